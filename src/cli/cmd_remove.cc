// `wvlock remove NAME...`: every item naming each package (PEP 503) out of the dependency
// array the flags select, and its `[tool.wvlock.sources]` entry once no array names it; then
// lock and sync. A name that is not in the array changes nothing (uv's error and hints). In a
// workspace the member the command started in, or `--package NAME`, is the one edited.
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/dependency_edit.h"
#include "src/pkg/name.h"

namespace wv::cli {
namespace {

int fail(const Error& error) {
  print_error(error);
  return exit_code_for(error);
}

// What uv suggests when the package is in another list.
std::string remove_hint(std::string_view name, const pkg::DependencyList& list) {
  switch (list.kind) {
    case pkg::DependencyList::Kind::kProject:
      return str_cat("hint: `", name, "` is a production dependency");
    case pkg::DependencyList::Kind::kOptional:
      return str_cat("hint: `", name, "` is an optional dependency (try: `wvlock remove ", name,
                     " --optional ", list.name, "`)");
    case pkg::DependencyList::Kind::kGroup:
      return str_cat("hint: `", name, "` is in the `", list.name,
                     "` group (try: `wvlock remove ", name, " --group ", list.name, "`)");
  }
  return "";
}

// `text` without `name` in `list` (and its source entry when nothing else names it).
Result<std::string> removed_from(std::string text, const std::string& path,
                                 const pkg::DependencyList& list, const std::string& name) {
  WV_ASSIGN_OR_RETURN(pkg::Removal removal, pkg::remove_dependency(text, path, list, name));
  if (removal.removed == 0) {
    Error error = make_error(ErrorCode::kInvalidInput,
                             str_cat("The dependency `", name, "` could not be found in `",
                                     list.describe(), "`"));
    WV_ASSIGN_OR_RETURN(std::vector<pkg::DependencyList> elsewhere,
                        pkg::lists_naming(text, path, name));
    for (const pkg::DependencyList& other : elsewhere) {
      error.notes.push_back(remove_hint(name, other));
    }
    return error;
  }
  WV_ASSIGN_OR_RETURN(std::vector<pkg::DependencyList> still, pkg::lists_naming(removal.text, path, name));
  if (!still.empty()) return std::move(removal.text);
  WV_ASSIGN_OR_RETURN(pkg::Removal source, pkg::remove_source(removal.text, path, name));
  // A workspace member's `{ workspace = true }` may be in uv's table.
  WV_ASSIGN_OR_RETURN(pkg::Removal uv_source, pkg::remove_source(source.text, path, name, "uv"));
  return std::move(uv_source.text);
}

}  // namespace

int run_remove(const GlobalOptions& given, Arguments& arguments) {
  auto flags = extract_edit_flags(arguments);
  if (!flags) return fail(flags.error());
  std::vector<std::string> names;
  while (std::optional<std::string> name = arguments.take_positional()) {
    auto parsed = pkg::parse_package_name(*name);
    if (!parsed) return fail(parsed.error());
    names.push_back(parsed->str());
  }
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  if (names.empty()) {
    return fail(make_error(ErrorCode::kInvalidInput,
                           "`wvlock remove` needs a package name, e.g. `wvlock remove numpy`"));
  }
  RealFileSystem file_system;
  auto target = find_edit_target(given, file_system, flags->package);
  if (!target) return fail(target.error());
  const GlobalOptions options = options_for(given, *target);
  auto files = read_project_files(options, *target, file_system);
  if (!files) return fail(files.error());
  std::string text = files->pyproject;
  for (const std::string& name : names) {
    auto edited = removed_from(std::move(text), files->pyproject_path, flags->list, name);
    if (!edited) return fail(edited.error());
    text = std::move(*edited);
  }
  if (auto written = write_pyproject(file_system, *files, text); !written) {
    return fail(written.error());
  }
  log_info(str_cat("removed ", join_backticked(names), " from `", flags->list.describe(),
                   "` in ", files->pyproject_path));
  if (flags->frozen) return kExitOk;
  return lock_and_sync(options, file_system, *files, flags->no_sync);
}

}  // namespace wv::cli
