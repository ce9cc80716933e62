// Command-line options shared by every subcommand, and a small argument cursor.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/name.h"

namespace wv::cli {

/// Exit codes (DESIGN.md §4).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  ///< resolution or selection failed, with an explanation
inline constexpr int kExitUsage = 2;    ///< bad input or usage
inline constexpr int kExitIo = 3;       ///< network or file system

/// The index flags of lock, sync and run (cli/index_overrides.h applies them).
struct IndexOverrides {
  std::optional<std::string> default_index;  ///< `--default-index URL`
  std::vector<std::string> indexes;          ///< `--index [NAME=]URL`, as given
  bool no_index = false;                     ///< `--no-index`
};

struct GlobalOptions {
  std::string project_dir = ".";
  /// The workspace member whose folder the command started in, when `project_dir` was moved
  /// up to its workspace root (cli/workspace.h); "" otherwise. sync, run, tree and export work
  /// on that member unless `--package` or `--all-packages` says otherwise (uv's rule).
  std::string workspace_member_dir;
  bool offline = false;
  std::string cache_dir;  ///< "" = $XDG_CACHE_HOME/wvlock or ~/.cache/wvlock
  int verbosity = 1;      ///< 0 quiet, 1 normal, 2 verbose, 3 debug
  bool color = false;
  /// `--refresh`: revalidate every cached page; `--refresh-package NAME` (repeatable, names
  /// normalised): only those projects' (index/sources.h IndexSource::set_refresh()).
  bool refresh = false;
  std::vector<pkg::PackageName> refresh_packages;
  /// `--keyring-provider`: "subprocess", "disabled", or "" when not given.
  std::string keyring_provider;
  /// `--default-index`, `--index`, `--no-index` of the command that resolves.
  IndexOverrides index_overrides;
};

/// The arguments of one subcommand, consumed front to back.
class Arguments {
 public:
  explicit Arguments(std::vector<std::string> items) : items_(std::move(items)) {}
  /// True and consumes it when the next argument is `flag`.
  bool take_flag(std::string_view flag);
  /// `--name VALUE` or `--name=VALUE`; an error when the value is missing.
  Result<std::optional<std::string>> take_value(std::string_view name);
  /// The next positional argument (one not starting with `-`).
  std::optional<std::string> take_positional();
  /// An error naming the first argument nobody consumed.
  Result<void> expect_done() const;
  bool empty() const { return position_ >= items_.size(); }
  /// Scans all remaining arguments (any order) for a flag and removes it.
  bool extract_flag(std::string_view flag);
  Result<std::optional<std::string>> extract_value(std::string_view name);
  /// Removes the first argument equal to `marker` and everything after it; returns what
  /// followed it (empty when `marker` is absent).
  std::vector<std::string> split_off_after(std::string_view marker);

 private:
  std::vector<std::string> items_;
  std::size_t position_ = 0;
};

/// Every `--NAME VALUE` given (in any order), each a package name (`Foo_Bar` is foo-bar); an
/// invalid name is an error naming the flag and the position.
Result<std::vector<pkg::PackageName>> extract_names(Arguments& arguments, std::string_view flag);
/// The same for extras and dependency groups (`--extra`, `--group`): their normalised text.
Result<std::vector<pkg::ExtraName>> extract_extra_names(Arguments& arguments, std::string_view flag);

/// Maps an error to an exit code: network and file-system failures 3, everything else 2.
int exit_code_for(const Error& error);

/// Prints `error: ...` (and notes) to stderr.
void print_error(const Error& error);

}  // namespace wv::cli
