// What `wvlock help CMD` and `wvlock CMD --help` print: a command's usage, what it does and its
// options. The texts live in one table so the help, the tests that hold every listed option to
// being accepted (tests/cli/help_test.cc) and docs/user-guide.md agree.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv::cli {

/// The full help of one command, or nullopt when `name` is no command.
std::optional<std::string> command_help(std::string_view name);

}  // namespace wv::cli
