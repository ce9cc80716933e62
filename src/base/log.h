// Diagnostics on stderr with a verbosity level; stdout is reserved for data.
#pragma once

#include <string_view>

namespace wv {

enum class Verbosity { kQuiet = 0, kNormal = 1, kVerbose = 2, kDebug = 3 };

void set_verbosity(Verbosity level);
Verbosity verbosity();

void log_warning(std::string_view message);  ///< "warning: ..." unless quiet
void log_info(std::string_view message);     ///< shown at normal verbosity and above
void log_debug(std::string_view message);    ///< shown with -vv

}  // namespace wv
