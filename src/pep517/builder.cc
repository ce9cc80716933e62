#include "src/pep517/builder.h"

#include <stdlib.h>
#include <unistd.h>  // mkdtemp and getpid: macOS declares mkdtemp here, not in stdlib.h
#include <zip.h>

#include <algorithm>
#include <filesystem>

#include "src/base/contained_path.h"
#include "src/base/credentials.h"
#include "src/base/file_system.h"
#include "src/base/limits.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/pep517/hooks.h"
#include "src/pep517/sdist_archive.h"
#include "src/pep517/tree_metadata.h"
#include "src/pkg/source_tree.h"
#include "src/install/zip_handle.h"
#include "src/install/environment.h"
#include "src/install/sync.h"
#include "lock/project_requirements.h"
#include "lock/resolve.h"
#include "lock/target_context.h"
#include "src/base/process.h"
#include "targets/project_file.h"

namespace wv::build {
namespace fs = std::filesystem;
namespace {

// PEP 517's fallback for a tree without `[build-system]` (or without `build-backend`).
constexpr std::string_view kLegacyBackend = "setuptools.build_meta:__legacy__";
constexpr std::string_view kLegacyRequirement = "setuptools>=40.8.0";

struct BuildSystem {
  std::vector<std::string> requirements;
  std::string backend;
  std::vector<std::string> backend_path;
};

// A metadata file of a source tree (pyproject.toml, setup.py), its links followed and kept inside
// the tree (contained_path.h); nullopt when the tree has none.
Result<std::optional<std::string>> tree_file(const std::string& tree, std::string_view leaf,
                                             const std::string& what) {
  Result<std::string> path = resolve_inside(tree, leaf, str_cat("the source tree of ", what));
  if (path) return std::optional<std::string>(std::move(*path));
  if (path.error().code == ErrorCode::kNotFound) return std::optional<std::string>();
  return std::move(path).error();
}

Result<BuildSystem> read_build_system(const std::string& tree, const std::string& what) {
  BuildSystem build{{std::string(kLegacyRequirement)}, std::string(kLegacyBackend), {}};
  WV_ASSIGN_OR_RETURN(std::optional<std::string> pyproject, tree_file(tree, "pyproject.toml", what));
  if (!pyproject) return build;
  RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(targets::ProjectConfig config, targets::read_project_file(file_system, *pyproject));
  if (!config.build_system) return build;
  if (!config.build_system->requirements.empty() || !config.build_system->backend.empty()) {
    build.requirements = config.build_system->requirements;
  }
  if (!config.build_system->backend.empty()) build.backend = config.build_system->backend;
  build.backend_path = config.build_system->backend_path;
  return build;
}

Result<void> make_folder(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    return make_error(ErrorCode::kIo, str_cat("cannot create ", in_backticks(path), ": ", ec.message()));
  }
  return {};
}

// Through a temporary name (FileSystem::write_file_atomic), so a reader never sees half.
Result<void> write_atomically(const std::string& path, std::string_view text) {
  WV_TRY(make_folder(fs::path(path).parent_path().string()));
  RealFileSystem file_system;
  return file_system.write_file_atomic(path, text, false);
}

std::optional<std::string> read_if_present(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  RealFileSystem file_system;
  Result<std::string> text = file_system.read_file(path);
  return text ? std::optional<std::string>(std::move(*text)) : std::nullopt;
}

// A copy of `tree` at `destination`. Links stay links, so one pointing out of the tree points out
// of the copy too: what wvlock reads or builds in the copy goes through resolve_inside, which
// refuses it (the backend itself is the package's code, and reads what it likes anyway).
Result<std::string> copy_tree(const std::string& tree, const std::string& destination) {
  std::error_code ec;
  fs::copy(tree, destination, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) {
    return make_error(ErrorCode::kIo, str_cat("cannot copy ", in_backticks(tree), ": ", ec.message()));
  }
  return destination;
}

// The one wheel in a folder, or "".
std::string wheel_in(const std::string& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".whl") return it->path().string();
  }
  return "";
}

// The platform shorthand of a live host, which a build environment's target declares.
std::string platform_of(const targets::HostProfile& host) {
  const std::string arch = host.arch.value.value_or("x86_64");
  switch (host.os.value.value_or(targets::OsKind::kLinux)) {
    case targets::OsKind::kMacos: return arch == "aarch64" ? "macos-arm64" : "macos-x86_64";
    case targets::OsKind::kWindows: return arch == "aarch64" ? "windows-arm64" : "windows-amd64";
    case targets::OsKind::kLinux: break;
  }
  return host.libc.value == targets::LibcKind::kMusl ? "linux-musl-" + arch : "linux-" + arch;
}

}  // namespace

Result<std::string> wheel_file_metadata(const std::string& wheel_path) {
  WV_ASSIGN_OR_RETURN(install::ZipPtr archive,
                      install::open_zip(wheel_path, str_cat("wheel ", in_backticks(wheel_path))));
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* raw = zip_get_name(archive.get(), zip_uint64_t(i), 0);
    if (raw == nullptr) continue;
    const std::string name = raw;
    const std::size_t slash = name.find('/');
    if (slash == std::string::npos || slash < 10 || name.substr(slash) != "/METADATA" ||
        name.substr(slash - 10, 10) != ".dist-info") {
      continue;
    }
    zip_stat_t stat;
    if (zip_stat_index(archive.get(), zip_uint64_t(i), 0, &stat) != 0 ||
        stat.size > limit_value(Limit::kMetadataBytes)) {
      return limit_error(Limit::kMetadataBytes, str_cat("METADATA of ", in_backticks(wheel_path)),
                         std::nullopt, limit_value(Limit::kMetadataBytes));
    }
    install::ZipFilePtr file(zip_fopen_index(archive.get(), zip_uint64_t(i), 0));
    std::string text(stat.size, '\0');
    if (file && zip_fread(file.get(), text.data(), stat.size) == zip_int64_t(stat.size)) return text;
    break;
  }
  return make_error(ErrorCode::kParse,
                    str_cat(in_backticks(wheel_path), " has no readable *.dist-info/METADATA"));
}

Builder::Builder(BuildServices services)
    : services_(std::move(services)),
      git_(path_join(services_.cache_dir, "git"), services_.offline) {}

Builder::~Builder() {
  if (temp_root_.empty()) return;
  std::error_code ec;
  fs::remove_all(temp_root_, ec);
}

Result<std::string> Builder::fresh_folder(std::string_view label) {
  if (temp_root_.empty()) {
    std::error_code ec;
    fs::path temporary = fs::temp_directory_path(ec);
    if (ec) temporary = "/tmp";  // TMPDIR names no folder: the system's
    std::string pattern = (temporary / "wvlock-build-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return make_error(ErrorCode::kIo, "cannot create a temporary folder for builds");
    }
    temp_root_ = pattern;
  }
  const std::string folder = path_join(temp_root_, str_cat(label, "-", ++counter_));
  WV_TRY(make_folder(folder));
  return folder;
}

Result<const Builder::Interpreter*> Builder::interpreter(const std::string& python) {
  if (auto found = interpreters_.find(python); found != interpreters_.end()) return &found->second;
  WV_ASSIGN_OR_RETURN(install::InterpreterFacts facts, install::read_interpreter(".", python));
  if (!services_.host) return make_error(ErrorCode::kUnsupported, "no host detection for builds");
  WV_ASSIGN_OR_RETURN(targets::HostProfile host, services_.host());
  Interpreter entry;
  entry.host = install::with_interpreter(std::move(host), facts);
  entry.tag = str_cat(facts.markers.implementation_name, "-", facts.version.major,
                      facts.version.minor, facts.free_threaded ? "t" : "", "-",
                      facts.markers.sys_platform, "-", facts.markers.platform_machine);
  return &interpreters_.emplace(python, std::move(entry)).first->second;
}

Result<std::string> Builder::environment(std::vector<std::string> requirements,
                                         const std::string& python, const std::string& what) {
  std::sort(requirements.begin(), requirements.end());
  requirements.erase(std::unique(requirements.begin(), requirements.end()), requirements.end());
  const std::string key = str_cat(python, "\n", join(requirements, "\n"));
  if (auto found = environments_.find(key); found != environments_.end()) return found->second;
  WV_ASSIGN_OR_RETURN(const Interpreter* base, interpreter(python));
  const std::string context = str_cat("the build requirements of ", what);

  lock::ProjectRequirements project;
  project.name = "build-environment";
  WV_ASSIGN_OR_RETURN(project.dependencies, lock::parse_requirements(requirements, context));
  targets::Target target;
  target.name = "build";
  target.platform = platform_of(base->host);
  target.profile = base->host;
  WV_ASSIGN_OR_RETURN(lock::TargetContext target_context, lock::make_target_context(target));
  std::vector<lock::TargetContext> targets;
  targets.push_back(std::move(target_context));
  std::unique_ptr<lock::Catalog> catalog = services_.make_catalog();
  lock::ResolveOptions resolve;
  resolve.locate = services_.locate;
  Result<lock::ResolveOutcome> outcome = lock::resolve_targets(project, targets, *catalog, resolve);
  if (!outcome) return std::move(outcome).error().with_context(context);
  if (!outcome->lockfile) {
    return make_error(ErrorCode::kUnavailable,
                      str_cat("cannot install ", context, " (", join(requirements, ", "),
                              ") from the project's indexes"))
        .with_note(outcome->failures.empty() ? std::string() : outcome->failures.front().explanation);
  }
  for (const lock::LockedPackage& package : outcome->lockfile->packages) {
    for (const auto& [name, use] : package.targets) {
      if (use.wheels.empty()) {
        return make_error(ErrorCode::kUnsupported,
                          str_cat(context, " need ", package.name, " ", package.version,
                                  ", which has no wheel for this interpreter: wvlock installs "
                                  "build requirements from wheels"));
      }
    }
  }
  WV_ASSIGN_OR_RETURN(std::string folder, fresh_folder("env"));
  install::SyncOptions sync;
  sync.venv = path_join(folder, "venv");
  sync.python = python;
  sync.select.forced_target = "build";
  sync.lock_dir = services_.lock_dir;
  Result<install::SyncReport> installed =
      install::sync(sync, *outcome->lockfile, base->host, *services_.store);
  if (!installed) return std::move(installed).error().with_context(context);
  const std::string env_python = path_join(sync.venv, "bin/python");
  environments_.emplace(key, env_python);
  return env_python;
}

Result<HookCall> Builder::prepared_call(const std::string& tree, const std::string& python,
                                        Hook requires_hook, const std::string& what) {
  WV_ASSIGN_OR_RETURN(BuildSystem system, read_build_system(tree, what));
  HookCall call;
  WV_ASSIGN_OR_RETURN(call.python, environment(system.requirements, python, what));
  call.source_dir = tree;
  call.backend = system.backend;
  call.backend_path = system.backend_path;
  call.what = what;
  call.hook = requires_hook;
  WV_ASSIGN_OR_RETURN(call.work_dir, fresh_folder("hook"));
  WV_ASSIGN_OR_RETURN(HookResult requires_result, call_hook(call));
  if (!requires_result.requirements.empty()) {
    // What the backend asks for on top of `requires` (setuptools before 70 asks for wheel).
    std::vector<std::string> all = system.requirements;
    all.insert(all.end(), requires_result.requirements.begin(), requires_result.requirements.end());
    WV_ASSIGN_OR_RETURN(call.python, environment(all, python, what));
  }
  return call;
}

Result<std::string> Builder::build_in_tree(const std::string& tree, bool editable,
                                           const std::string& python,
                                           const std::string& output_dir, const std::string& what) {
  WV_ASSIGN_OR_RETURN(
      HookCall call,
      prepared_call(tree, python,
                    editable ? Hook::kGetRequiresForBuildEditable : Hook::kGetRequiresForBuildWheel,
                    what));
  call.hook = editable ? Hook::kBuildEditable : Hook::kBuildWheel;
  call.output_dir = output_dir;
  WV_ASSIGN_OR_RETURN(call.work_dir, fresh_folder("hook"));
  WV_ASSIGN_OR_RETURN(HookResult built, call_hook(call));
  if (built.hook_missing) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("the build backend ", in_backticks(call.backend), " of ", what,
                              " cannot build editable wheels (PEP 660)"))
        .with_note("install it as a regular wheel with `--no-editable`");
  }
  return path_join(output_dir, built.basename);
}

Result<std::string> Builder::prepare_in_tree(const std::string& tree, const std::string& what) {
  WV_ASSIGN_OR_RETURN(HookCall call, prepared_call(tree, services_.python,
                                                   Hook::kGetRequiresForBuildWheel, what));
  call.hook = Hook::kPrepareMetadataForBuildWheel;
  WV_ASSIGN_OR_RETURN(call.output_dir, fresh_folder("metadata"));
  WV_ASSIGN_OR_RETURN(call.work_dir, fresh_folder("hook"));
  WV_ASSIGN_OR_RETURN(HookResult prepared, call_hook(call));
  if (!prepared.hook_missing) {
    RealFileSystem file_system;
    return file_system.read_file(path_join(path_join(call.output_dir, prepared.basename), "METADATA"));
  }
  // PEP 517: without the optional hook, build the wheel and read its metadata.
  call.hook = Hook::kBuildWheel;
  WV_ASSIGN_OR_RETURN(call.work_dir, fresh_folder("hook"));
  WV_ASSIGN_OR_RETURN(HookResult built, call_hook(call));
  return wheel_file_metadata(path_join(call.output_dir, built.basename));
}

Result<std::string> Builder::sdist_metadata(const std::string& archive, const std::string& sha256,
                                            const std::string& what) {
  const std::string cached = path_join(services_.cache_dir, str_cat("built-metadata/sdist-", sha256));
  if (std::optional<std::string> text = read_if_present(cached)) return *text;
  std::string text;
  Result<std::string> pkg_info = read_sdist_pkg_info(archive);
  // Only a missing PKG-INFO sends the sdist to its backend: an archive refused, or a limit
  // exceeded, is the answer, not a reason to run the sdist's code instead.
  if (!pkg_info && pkg_info.error().code != ErrorCode::kNotFound) return std::move(pkg_info).error();
  if (pkg_info) {
    Result<pkg::CoreMetadata> parsed = pkg::parse_metadata(*pkg_info);
    if (parsed && pkg::static_for_resolution(*parsed)) text = std::move(*pkg_info);
  }
  if (text.empty()) {
    WV_ASSIGN_OR_RETURN(std::string folder, fresh_folder("sdist"));
    WV_ASSIGN_OR_RETURN(std::string tree, unpack_sdist(archive, path_join(folder, "tree")));
    WV_ASSIGN_OR_RETURN(text, prepare_in_tree(tree, what));
  }
  WV_TRY(write_atomically(cached, text));
  return text;
}

Result<std::string> Builder::tree_metadata(const std::string& tree, const std::string& what,
                                           const std::string& cache_key) {
  const std::string cached =
      cache_key.empty() ? "" : path_join(services_.cache_dir, "built-metadata/" + cache_key);
  if (!cached.empty()) {
    if (std::optional<std::string> text = read_if_present(cached)) return *text;
  }
  std::string text;
  WV_ASSIGN_OR_RETURN(std::optional<std::string> pyproject, tree_file(tree, "pyproject.toml", what));
  if (pyproject) {
    RealFileSystem file_system;
    WV_ASSIGN_OR_RETURN(targets::ProjectConfig config, targets::read_project_file(file_system, *pyproject));
    if (std::optional<std::string> stated = static_tree_metadata(config)) text = std::move(*stated);
  } else {
    WV_ASSIGN_OR_RETURN(std::optional<std::string> setup_py, tree_file(tree, "setup.py", what));
    if (!setup_py) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(what, " has neither pyproject.toml nor setup.py: nothing to build"));
    }
  }
  if (text.empty() && !cache_key.empty()) {
    // The backend writes into the tree it prepares (egg-info, build/): a shared checkout is
    // never changed, so it prepares a copy.
    WV_ASSIGN_OR_RETURN(std::string folder, fresh_folder("tree"));
    WV_ASSIGN_OR_RETURN(std::string copy, copy_tree(tree, path_join(folder, "tree")));
    WV_ASSIGN_OR_RETURN(text, prepare_in_tree(copy, what));
  } else if (text.empty()) {
    // A folder of the user's is prepared in place, as pip and uv do.
    WV_ASSIGN_OR_RETURN(text, prepare_in_tree(tree, what));
  }
  if (!cached.empty()) WV_TRY(write_atomically(cached, text));
  return text;
}

namespace {

// "editable-<digest>" of a source tree: its absolute path and its metadata files (read only
// inside it), which are all an editable wheel depends on.
Result<std::string> editable_key(const std::string& tree) {
  std::string text = str_cat("editable-1\n", absolute_path(tree));
  RealFileSystem file_system;
  for (std::string_view leaf : pkg::kMetadataFiles) {
    Result<std::string> path = resolve_inside(tree, leaf, str_cat("the folder ", in_backticks(tree)));
    if (!path && path.error().code != ErrorCode::kNotFound) return std::move(path).error();
    if (!path) continue;
    Result<std::string> content = file_system.read_file(*path);
    if (!content) continue;
    text += str_cat("\n", leaf, "\n", content->size(), "\n", *content);
  }
  return "editable-" + sha256_hex(text).substr(0, 32);
}

}  // namespace

Result<std::string> Builder::cached_build(
    const std::string& key, const std::string& python,
    const std::function<Result<std::string>(const std::string&)>& tree, const std::string& what,
    bool editable) {
  WV_ASSIGN_OR_RETURN(const Interpreter* base, interpreter(python));
  const std::string folder = path_join(services_.cache_dir, str_cat("built-wheels/", key, "/", base->tag));
  if (std::string wheel = wheel_in(folder); !wheel.empty()) return wheel;
  WV_ASSIGN_OR_RETURN(std::string work, fresh_folder("build"));
  WV_ASSIGN_OR_RETURN(std::string source, tree(work));
  const std::string output = path_join(work, "out");
  WV_TRY(make_folder(output));
  WV_ASSIGN_OR_RETURN(std::string built, build_in_tree(source, editable, python, output, what));
  // Into the cache under a temporary name, then renamed: two syncs at once both succeed.
  const std::string staged = str_cat(folder, ".tmp-", ::getpid(), "-", counter_);
  WV_TRY(make_folder(staged));
  std::error_code ec;
  fs::copy_file(built, path_join(staged, fs::path(built).filename().string()), ec);
  if (!ec) fs::rename(staged, folder, ec);
  if (ec) fs::remove_all(staged, ec);
  if (std::string wheel = wheel_in(folder); !wheel.empty()) return wheel;
  return built;
}

Result<std::string> Builder::build_wheel(const install::BuildRequest& request) {
  const lock::LockedPackage& package = *request.package;
  const std::string what =
      package.version.empty() ? package.name.str() : str_cat(package.name, " ", package.version);
  if (package.directory) {
    std::string tree = request.directory;
    if (!package.directory->subdirectory.empty()) {
      // The lock's subdirectory stays inside the folder the lock names (links followed).
      const std::string folder =
          (fs::path(services_.lock_dir) / package.directory->path).lexically_normal().string();
      WV_ASSIGN_OR_RETURN(tree, resolve_inside(folder, package.directory->subdirectory,
                                               str_cat("the folder ", in_backticks(folder))));
    }
    const std::string tree_what = str_cat(what, " (", request.directory, ")");
    if (request.editable) {
      // An editable wheel holds the tree's path and what its metadata files say, never its
      // code: it is cached by those (uv's cache keys), so a fresh venv reuses it.
      WV_ASSIGN_OR_RETURN(std::string key, editable_key(tree));
      return cached_build(key, request.python,
                          [&](const std::string&) -> Result<std::string> { return tree; }, tree_what,
                          true);
    }
    WV_ASSIGN_OR_RETURN(std::string output, fresh_folder("wheel"));
    return build_in_tree(tree, false, request.python, output, tree_what);
  }
  if (package.vcs) {
    const lock::LockedVcs& vcs = *package.vcs;
    const std::string repository =
        vcs.url.empty() ? (fs::path(services_.lock_dir) / vcs.path).lexically_normal().string() : vcs.url;
    const std::string key = str_cat("git-", vcs.commit_id,
                                    vcs.subdirectory.empty() ? "" : "-" + git_url_key(vcs.subdirectory));
    const std::string checkout_what =
        str_cat("the checkout of git ", in_backticks(strip_credentials(repository)), " at commit ",
                vcs.commit_id.substr(0, 12));
    return cached_build(key, request.python, [&](const std::string& work) -> Result<std::string> {
      WV_ASSIGN_OR_RETURN(std::string checkout, git_.checkout(repository, vcs.commit_id));
      // A subdirectory linked out of the checkout is refused before anything is copied; the
      // copy is checked again, since a relative link means another place there.
      WV_TRY(resolve_inside(checkout, vcs.subdirectory, checkout_what));
      // The checkout is shared and never modified: the backend builds in a copy.
      WV_ASSIGN_OR_RETURN(std::string copy, copy_tree(checkout, path_join(work, "tree")));
      return resolve_inside(copy, vcs.subdirectory, str_cat("the copy of ", checkout_what));
    }, str_cat(what, " (git ", vcs.commit_id.substr(0, 12), ")"));
  }
  const lock::LockedFile& file = package.archive ? package.archive->file : *package.sdist;
  const std::string subdirectory = package.archive ? package.archive->subdirectory : "";
  return cached_build(str_cat("sdist-", file.sha256), request.python,
                      [&](const std::string& work) -> Result<std::string> {
                        WV_ASSIGN_OR_RETURN(std::string tree,
                                            unpack_sdist(request.archive_path, path_join(work, "tree")));
                        return resolve_inside(tree, subdirectory,
                                              str_cat("the unpacked ", in_backticks(file.name)));
                      },
                      str_cat(what, " (", file.name, ")"));
}

}  // namespace wv::build
