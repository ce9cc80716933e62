#include "src/cli/project.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include "src/base/credentials.h"
#include "src/base/log.h"
#include "src/base/url.h"
#include "src/base/str.h"
#include "src/pep517/builder.h"
#include "src/pep517/source_listing.h"
#include "src/index/sources.h"
#include "src/install/wheel_store.h"
#include "targets/default_targets.h"
#include "targets/detect/detect.h"
#include "targets/detect/env_vars.h"
#include "src/cli/index_overrides.h"
#include "src/cli/network.h"
#include "src/cli/python_default.h"
#include "src/net/caching_fetcher.h"
#include "src/pkg/name.h"

namespace wv::cli {
namespace {

class WiredSource final : public ProjectSource {
 public:
  WiredSource(const GlobalOptions& options, const LoadedProject& project,
              FileSystem& file_system, bool needs_network, NetworkStack* shared)
      : project_dir_(project.config.project_dir) {
    std::vector<index::SourceLocation> locations;
    for (const std::string& folder : project.config.find_links) {
      locations.push_back({index::LocationKind::kFlatFolder,
                           targets::resolve_project_path(project.config, folder)});
    }
    // In uv's asking order (the default index last); explicit ones serve pinned packages only.
    for (const targets::IndexConfig& index : project.config.indexes) {
      locations.push_back({index::LocationKind::kSimpleIndex,
                           targets::resolve_project_path(project.config, index.url), index.name,
                           index.explicit_only});
    }
    Fetcher* fetcher = nullptr;
    if (needs_network) {
      if (shared == nullptr) {
        network_ = std::make_unique<NetworkStack>(options, &project.config, file_system);
        shared = network_.get();
      }
      caching_ = &shared->fetcher();
      fetcher = caching_;
    }
    source_ = std::make_unique<index::IndexSource>(std::move(locations), file_system, fetcher);
    source_->set_best_match(project.config.index_best_match);
    source_->set_refresh(options.refresh, std::set<pkg::PackageName>(
                                              options.refresh_packages.begin(),
                                              options.refresh_packages.end()));
    if (caching_) source_->set_derived_cache(caching_);
    // Find-links folders keep their listing in the cache, network or not (docs/sources.md).
    if (!project.config.find_links.empty()) {
      source_->set_folder_digests(file_system,
                                  path_join(cache_directory(options), "find-links-v1"));
    }
    for (const targets::IndexConfig& index : project.config.indexes) {
      Result<std::unique_ptr<pkg::PackageSource>> view = source_->pinned(index.name);
      if (!view) continue;  // cannot happen: every configured index has a location
      pinned_.emplace_back(index.name, std::move(*view));
    }
    wire_builds(options, project);
  }

  pkg::PackageSource& source() override { return *source_; }
  std::unique_ptr<lock::Catalog> make_catalog() override {
    auto catalog = std::make_unique<lock::Catalog>(*building_);
    for (auto& [name, view] : pinned_building_) catalog->add_pinned_index(name, *view);
    for (auto& [key, direct] : direct_) catalog->add_pinned_index(key, *direct);
    return catalog;
  }
  build::Builder& builder() override { return *builder_; }

  void keep_locked_commits(const lock::Lockfile& previous, bool upgrade_all,
                           const std::set<pkg::PackageName>& upgrade_packages) override {
    if (upgrade_all) return;
    for (auto& [key, direct] : direct_) {
      const pkg::DirectSource& source = direct->direct_source();
      if (source.kind != pkg::DirectKind::kGit || upgrade_packages.count(direct->package())) continue;
      for (const lock::LockedPackage& package : previous.packages) {
        if (!package.vcs || package.name != direct->package()) continue;
        const lock::LockedVcs& vcs = *package.vcs;
        std::error_code ec;
        const std::string locked_at =
            vcs.url.empty()
                ? std::filesystem::absolute(std::filesystem::path(project_dir_) / vcs.path, ec)
                      .lexically_normal()
                      .generic_string()
                : vcs.url;
        if (locked_at == strip_credentials(source.location) &&
            vcs.requested_revision == source.requested_revision() &&
            vcs.subdirectory == source.subdirectory) {
          direct->prefer_commit(vcs.commit_id);
        }
      }
    }
  }


  lock::LockedFile locate(const pkg::Distribution& file) const override {
    lock::LockedFile locked;
    locked.name = file.filename;
    locked.size = file.size;
    std::string location = project_relative(file.url);
    (is_url(location) ? locked.url : locked.path) = location;
    return locked;
  }

  std::string describe_index(const std::string& location) const override {
    return project_relative(location);
  }

 private:
  // URLs stay as they are; local files (plain or file://) become paths relative to the project
  // folder, so the lockfile is the same on every checkout.
  std::string project_relative(std::string location) const {
    if (Result<std::string> path = file_url_to_path(location)) location = std::move(*path);
    if (is_url(location)) return strip_credentials(location);  // the lock holds bare URLs
    return relative_path(location, project_dir_);
  }

  // Builds read sdists and source trees (the lock's metadata) and build wheels (sync). Their
  // requirements resolve from the same indexes, without the builder (a build requirement is
  // installed from a wheel), and install through a store over the same cache.
  void wire_builds(const GlobalOptions& options, const LoadedProject& project) {
    build::BuildServices services;
    services.make_catalog = [this] {
      auto catalog = std::make_unique<lock::Catalog>(*source_);
      for (auto& [name, view] : pinned_) catalog->add_pinned_index(name, *view);
      return catalog;
    };
    services.locate = [this](const pkg::Distribution& file) { return locate(file); };
    network_store_ = std::make_unique<install::CallbackWheelStore>(
        [this](const lock::LockedFile& file) -> Result<std::string> {
          if (!caching_) {
            return make_error(ErrorCode::kNetwork,
                              str_cat("cannot download ", in_backticks(file.url),
                                      ": the project's indexes are local"));
          }
          return caching_->fetch_verified(file.url, file.sha256, file.size);
        });
    local_store_ = std::make_unique<install::LocalWheelStore>(project_dir_, network_store_.get());
    services.store = local_store_.get();
    services.lock_dir = project_dir_;
    services.cache_dir = cache_directory(options);
    services.offline = options.offline;
    services.host = [] {
      detect::ProcessEnvironment environment;
      return detect::detect_host(detect::options_from_environment(environment));
    };
    if (const char* python = std::getenv("WVLOCK_BUILD_PYTHON"); python && *python) {
      services.python = python;
    }
    builder_ = std::make_unique<build::Builder>(std::move(services));
    build::FetchFile fetch = [this](const std::string& url, const std::string& sha256)
        -> Result<std::string> {
      if (!caching_) {
        return make_error(ErrorCode::kNetwork, str_cat("cannot download ", in_backticks(url),
                                                       ": the project's indexes are local"));
      }
      return caching_->fetch_verified(url, sha256, std::nullopt);
    };
    building_ = std::make_unique<build::BuildingSource>(*source_, *builder_, fetch);
    for (auto& [name, view] : pinned_) {
      pinned_building_.emplace_back(name, std::make_unique<build::BuildingSource>(*view, *builder_, fetch));
    }
    for (const lock::TargetContext& target : project.targets) {
      for (const auto& [name, direct] : target.direct_sources) {
        const std::string key = direct.key();
        if (direct_.count(key)) continue;
        direct_.emplace(key, std::make_unique<build::DirectPackageSource>(direct, name, *builder_,
                                                                          fetch));
      }
    }
  }

  std::string project_dir_;
  std::unique_ptr<install::CallbackWheelStore> network_store_;
  std::unique_ptr<install::LocalWheelStore> local_store_;
  std::unique_ptr<build::Builder> builder_;
  std::unique_ptr<build::BuildingSource> building_;
  std::vector<std::pair<std::string, std::unique_ptr<build::BuildingSource>>> pinned_building_;  // asking order
  std::map<std::string, std::unique_ptr<build::DirectPackageSource>> direct_;
  std::unique_ptr<NetworkStack> network_;
  net::CachingFetcher* caching_ = nullptr;  ///< network_'s, when the project needs the network
  std::unique_ptr<index::IndexSource> source_;
  std::vector<std::pair<std::string, std::unique_ptr<pkg::PackageSource>>> pinned_;
};

}  // namespace

std::string cache_directory(const GlobalOptions& options) {
  std::string directory = options.cache_dir;
  if (directory.empty()) {
    auto found = net::default_cache_directory([](const std::string& name) {
      const char* value = std::getenv(name.c_str());
      return value ? std::optional<std::string>(value) : std::nullopt;
    });
    directory = found ? *found : std::string(".wvlock-cache");
  }
  // Absolute: builds run from other folders (a hook's working folder is its source tree).
  return absolute_path(directory);
}

// The target of a project that declares none: this host as detected (overrides included).
targets::DefaultTarget host_default_target() {
  return [](const targets::ProjectConfig&) -> Result<targets::Target> {
    detect::ProcessEnvironment environment;
    WV_ASSIGN_OR_RETURN(targets::HostProfile live,
                        detect::detect_host(detect::options_from_environment(environment)));
    return targets::host_target(live);
  };
}

void note_default_targets(const targets::ProjectConfig& config) {
  if (config.targets_origin == targets::ProjectConfig::TargetOrigin::kDeclared) return;
  std::vector<std::string> names;
  for (const targets::Target& target : config.targets) names.push_back(target.name);
  const bool host = config.targets_origin == targets::ProjectConfig::TargetOrigin::kHost;
  log_info(str_cat(
      "note: no `[[tool.wvlock.target]]` is declared: locking for ",
      host ? str_cat("this host (", targets::describe(config.targets.front().profile), ")")
           : std::string("the platforms of `[tool.uv] environments`"),
      " as ", names.size() == 1 ? "target " : "targets ", join_backticked(names),
      "; declare the machines to lock for with `[[tool.wvlock.target]]` (docs/targets.md)"));
}

Result<LoadedProject> load_project(const GlobalOptions& options, FileSystem& file_system,
                                   ProjectUse use) {
  LoadedProject project;
  project.use = use;
  std::string path = path_join(options.project_dir, "pyproject.toml");
  WV_ASSIGN_OR_RETURN(project.config,
                      targets::read_project_file(file_system, path,
                                                 project_default_pythons(file_system),
                                                 host_default_target()));
  WV_TRY(apply_index_overrides(project.config, options.index_overrides,
                               [](const std::string& name) -> std::optional<std::string> {
                                 const char* value = std::getenv(name.c_str());
                                 return value ? std::optional<std::string>(value) : std::nullopt;
                               }));
  const targets::ProjectConfig& config = project.config;
  WV_ASSIGN_OR_RETURN(project.workspace, load_workspace(file_system, config));
  project.lockfile_path = path_join(options.project_dir, "pylock.toml");
  static bool warned = false;  // once per run: commands may load the project twice
  if (!warned) {
    for (const std::string& warning : config.warnings) log_warning(warning);
    warned = true;
  }
  WV_ASSIGN_OR_RETURN(lock::ProjectInputs inputs,
                      lock::project_inputs(config, project.workspace.members, file_system,
                                           use == ProjectUse::kLock));
  project.requirements = std::move(inputs.requirements);
  project.targets = std::move(inputs.targets);
  project.inputs = std::move(inputs.inputs);
  project.input_files = std::move(inputs.input_files);
  return project;
}

Result<std::unique_ptr<ProjectSource>> ProjectSource::open(const GlobalOptions& options,
                                                           const LoadedProject& project,
                                                           FileSystem& file_system,
                                                           NetworkStack* network) {
  bool needs_network = false;
  for (const targets::IndexConfig& index : project.config.indexes) {
    if (is_url(index.url) && !is_file_url(index.url)) needs_network = true;
  }
  for (const lock::TargetContext& target : project.targets) {
    for (const auto& [name, direct] : target.direct_sources) {
      if (direct.kind == pkg::DirectKind::kArchive && is_url(direct.location)) needs_network = true;
    }
  }
  return std::unique_ptr<ProjectSource>(
      std::make_unique<WiredSource>(options, project, file_system, needs_network, network));
}

bool lock_is_fresh(const LoadedProject& project, const lock::Lockfile& lockfile) {
  return lockfile.input_hash ==
         lock::input_hash(project.requirements, project.targets, project.inputs);
}

std::string stale_reason(const LoadedProject& project, const lock::Lockfile& lockfile) {
  std::vector<std::string> changed;
  for (const auto& [path, digest] : project.input_files) {
    auto locked = lockfile.input_files.find(path);
    if (locked == lockfile.input_files.end() || locked->second != digest) changed.push_back(in_backticks(path));
  }
  for (const auto& [path, digest] : lockfile.input_files) {
    if (!project.input_files.count(path)) changed.push_back(in_backticks(path));
  }
  // A lock written before input-files were recorded cannot tell which file it was.
  if (changed.empty() && lockfile.input_files.empty() && !project.input_files.empty()) {
    return "pyproject.toml or a path source's metadata changed";
  }
  if (changed.empty()) return "pyproject.toml changed";
  return join(changed, ", ") + " changed";
}

Error stale_lockfile(std::string_view path, std::string_view reason, std::string_view remedy) {
  return make_error(ErrorCode::kInvalidLockfile,
                    str_cat(in_backticks(path), " is stale: ", reason,
                            " since it was written; run `wvlock lock`", remedy));
}

Result<lock::Lockfile> read_project_lockfile(const LoadedProject& project,
                                             const FileSystem& file_system) {
  WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(project.lockfile_path));
  return lock::read_lockfile(text, project.lockfile_path);
}

}  // namespace wv::cli
