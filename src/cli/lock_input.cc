#include "src/cli/lock_input.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "src/base/str.h"
#include "src/cli/options.h"
#include "src/install/standard_select.h"

namespace wv::cli {

Result<LockInput> lock_input(const GlobalOptions& options, const std::optional<std::string>& flag) {
  LockInput input;
  if (!flag) {
    input.path = path_join(options.project_dir, "pylock.toml");
    input.dir = options.project_dir;
    return input;
  }
  namespace fs = std::filesystem;
  const fs::path path(*flag);
  const std::string name = path.filename().string();
  // PEP 751: `pylock.toml`, or `pylock.NAME.toml` with one dot-free NAME.
  const bool named_lock = name.size() > 12 && name.rfind("pylock.", 0) == 0 &&
                          name.compare(name.size() - 5, 5, ".toml") == 0 &&
                          name.substr(7, name.size() - 12).find('.') == std::string::npos;
  if (name != "pylock.toml" && !named_lock) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("`--lockfile ", *flag, "`: a PEP 751 lockfile is named "
                              "`pylock.toml` or `pylock.NAME.toml`"));
  }
  input.path = *flag;
  input.dir = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  input.named = true;
  return input;
}

bool checks_freshness(const LockInput& input, const lock::Lockfile& lockfile) {
  return !input.named && !install::is_standard_lock(lockfile);
}

Result<std::unique_ptr<ProjectSource>> lock_build_source(const GlobalOptions& options,
                                                        const lock::Lockfile& lockfile,
                                                        const std::string& lock_dir,
                                                        FileSystem& file_system) {
  LoadedProject project;
  project.config.project_dir = absolute_path(lock_dir);
  std::set<std::string> seen;
  std::vector<targets::IndexConfig> indexes;
  for (const lock::LockedPackage& package : lockfile.packages) {
    if (package.index.empty() || !seen.insert(package.index).second) continue;
    targets::IndexConfig index;
    index.name = str_cat("lock-index-", indexes.size() + 1);
    index.url = package.index;
    indexes.push_back(std::move(index));
  }
  // The first index named is the default, asked last (uv's order for `--index-url`).
  if (!indexes.empty()) {
    indexes.front().is_default = true;
    std::rotate(indexes.begin(), indexes.begin() + 1, indexes.end());
  }
  project.config.indexes = std::move(indexes);
  project.lockfile_path = path_join(lock_dir, "pylock.toml");
  return ProjectSource::open(options, project, file_system);
}

}  // namespace wv::cli
