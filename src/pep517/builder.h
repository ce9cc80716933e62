// Builds what is not a wheel (DESIGN.md §2.2): reads an sdist's or a source tree's metadata
// (static when PEP 643 / PEP 621 allow it, else through `prepare_metadata_for_build_wheel`) and
// builds wheels at sync, each build in an isolated environment: `build-system.requires` (and
// what `get_requires_for_build_*` adds) resolved for the build interpreter by wvlock's own
// solver from the project's indexes, installed by wvlock's own installer into a throwaway
// venv, the hooks called there by our runner (build/hooks.h). Built wheels of sdists and git
// commits are cached by (sdist sha256 or commit, interpreter, platform); source trees are
// rebuilt. Temporary folders live under one folder removed with the Builder.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/base/result.h"
#include "src/pep517/git.h"
#include "src/pep517/hooks.h"
#include "src/install/source_builder.h"
#include "src/install/wheel_store.h"
#include "lock/catalog.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::build {

/// What the CLI lends a Builder: the project's indexes and wheel store, its cache, its host.
struct BuildServices {
  /// A fresh catalog over the project's indexes (build requirements resolve from them).
  std::function<std::unique_ptr<lock::Catalog>()> make_catalog;
  /// A listed file as the lock records it (paths relative to `lock_dir`).
  std::function<lock::LockedFile(const pkg::Distribution&)> locate;
  /// Serves (and verifies) the wheels of build environments.
  install::WheelStore* store = nullptr;
  std::string lock_dir = ".";
  /// The cache folder: built-wheels/, built-metadata/ and git/ live there.
  std::string cache_dir;
  bool offline = false;
  /// The live host (detected when the first build needs it); each build's Python facts replace
  /// its own.
  std::function<Result<targets::HostProfile>()> host;
  /// The interpreter for builds at lock time (metadata); at sync the environment's is used.
  std::string python = "/usr/bin/python3";
};

class Builder final : public install::SourceBuilder {
 public:
  explicit Builder(BuildServices services);
  ~Builder() override;
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  /// The METADATA text of an sdist (a verified local file with that sha256): its PKG-INFO
  /// when static for resolution, else prepared by its backend. Cached by sha256.
  Result<std::string> sdist_metadata(const std::string& archive, const std::string& sha256,
                                     const std::string& what);
  /// The METADATA text of a source tree: from pyproject.toml when static, else prepared.
  /// `cache_key` ("" = none) caches it (a git commit's tree never changes).
  Result<std::string> tree_metadata(const std::string& tree, const std::string& what,
                                    const std::string& cache_key = "");
  /// install::SourceBuilder.
  Result<std::string> build_wheel(const install::BuildRequest& request) override;

  GitCache& git() { return git_; }

 private:
  struct Interpreter {
    std::string tag;  ///< "cpython-311-linux-x86_64": what a built wheel is cached under
    targets::HostProfile host;
  };
  Result<const Interpreter*> interpreter(const std::string& python);
  /// The python of a build environment holding `requirements` (made once per set).
  Result<std::string> environment(std::vector<std::string> requirements, const std::string& python,
                                  const std::string& what);
  /// A hook call on `tree` in a build environment that holds `build-system.requires` and what
  /// `requires_hook` (get_requires_for_build_*) adds.
  Result<HookCall> prepared_call(const std::string& tree, const std::string& python,
                                 Hook requires_hook, const std::string& what);
  /// Builds a wheel (or an editable one) of `tree` into `output_dir`; returns its path.
  Result<std::string> build_in_tree(const std::string& tree, bool editable,
                                    const std::string& python, const std::string& output_dir,
                                    const std::string& what);
  Result<std::string> prepare_in_tree(const std::string& tree, const std::string& what);
  Result<std::string> fresh_folder(std::string_view label);
  Result<std::string> cached_build(const std::string& key, const std::string& python,
                                   const std::function<Result<std::string>(const std::string&)>& tree,
                                   const std::string& what, bool editable = false);

  BuildServices services_;
  GitCache git_;
  std::string temp_root_;
  std::map<std::string, std::string> environments_;
  std::map<std::string, Interpreter> interpreters_;
  int counter_ = 0;
};

/// The METADATA text of a wheel file (its `*.dist-info/METADATA`), bounded by metadata-bytes.
Result<std::string> wheel_file_metadata(const std::string& wheel_path);

}  // namespace wv::build
