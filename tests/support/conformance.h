// Locating the shared conformance data: $WVLOCK_CONFORMANCE_DIR, else ../shared/conformance
// beside the checkout. Tests that need it skip with a message when it is absent.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace wv::test {

/// The conformance folder, or nullopt (after printing why) when it is absent.
std::optional<std::string> conformance_dir();

/// Calls `visit(line, line_number)` for each non-empty line of a file; false if unreadable.
bool for_each_line(const std::string& path,
                   const std::function<void(std::string_view line, int line_number)>& visit);

/// Prints "<label>: N passed, M failed" (the conformance summary format).
void print_tally(std::string_view label, int passed, int failed);

}  // namespace wv::test
