// Diagnostics on stderr with a verbosity level; stdout is reserved for data.
#pragma once

#include <string>
#include <string_view>

namespace wv {

enum class Verbosity { kQuiet = 0, kNormal = 1, kVerbose = 2, kDebug = 3 };

void set_verbosity(Verbosity level);
Verbosity verbosity();

/// Whether diagnostics are coloured (`--color`, NO_COLOR; set once by the CLI).
void set_color(bool enabled);
bool color_enabled();

enum class Style { kError, kWarning, kHint, kBold };
/// `text` in `style`'s ANSI colour when colour is on, else unchanged.
std::string paint(std::string_view text, Style style);
/// A diagnostic with its leading `error:`, `warning:`, `hint:` or `note:` painted on each
/// line that has one.
std::string paint_diagnostic(std::string_view text);

/// Prints `text` and a newline on stderr as a diagnostic: control characters made visible
/// (printable_text: a message may quote a backend's output or a hostile name), prefixes
/// painted, credentials masked (base/output.h). Every message goes out through here.
void print_diagnostic(std::string_view text);

void log_warning(std::string_view message);  ///< "warning: ..." unless quiet
void log_info(std::string_view message);     ///< shown at normal verbosity and above
void log_debug(std::string_view message);    ///< shown with -vv

}  // namespace wv
