// `wvlock fetch`: downloads and verifies (sha256) every file the named targets install (all
// targets by default), so that a machine without network can sync later: into the cache, or
// with `--into DIR` into a flat wheelhouse that `sync --wheelhouse DIR` reads (install/
// wheelhouse.h). The files are what `wvlock check` verifies (install::files_of: every kept
// wheel, and the sdist or archive of what is built), got through sync's stores, so the
// downloads run in parallel with sync's progress bar and verification. A git source is
// fetched into the cache's git database (a wheelhouse holds files only); a folder needs nothing.

#include <filesystem>
#include <map>
#include <set>

#include "src/base/json_writer.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/pep517/git.h"
#include "src/cli/commands.h"
#include "src/cli/lock_view.h"
#include "src/cli/network.h"
#include "src/cli/project.h"
#include "src/install/target_files.h"
#include "src/install/wheel_store.h"
#include "src/install/wheelhouse.h"
#include "src/net/progress.h"

namespace wv::cli {
namespace {

// One file to fetch, once however many targets install it.
struct Wanted {
  const lock::LockedPackage* package = nullptr;
  const lock::LockedFile* file = nullptr;
  std::vector<std::string> targets;
  std::string status;  ///< "downloaded", "cached" (already in the download cache), "local"
  std::string path;    ///< where it is now ("" after an error)
  std::optional<Error> error;
};

// One git commit to put into the git cache.
struct WantedGit {
  const lock::LockedPackage* package = nullptr;
  std::vector<std::string> targets;
  std::string path;  ///< the checkout
  std::optional<Error> error;
};

struct FetchPlan {
  std::vector<std::string> targets;
  std::vector<Wanted> files;
  std::vector<WantedGit> git;
};

struct FetchFlags {
  std::vector<std::string> targets;  ///< as given; empty: all
  std::optional<std::string> into;
  bool json = false;
  bool frozen = false;
};

Result<FetchFlags> fetch_flags(Arguments& arguments) {
  FetchFlags flags;
  while (true) {
    WV_ASSIGN_OR_RETURN(std::optional<std::string> name, arguments.extract_value("--target"));
    if (!name) break;
    flags.targets.push_back(std::move(*name));
  }
  WV_ASSIGN_OR_RETURN(flags.into, arguments.extract_value("--into"));
  flags.json = arguments.extract_flag("--json");
  flags.frozen = arguments.extract_flag("--frozen");
  arguments.extract_flag("--locked");  // the default: a stale lock is an error
  WV_TRY(arguments.expect_done());
  return flags;
}

// The locked targets the flags name, each once, in the lock's order.
Result<std::vector<const lock::LockedTarget*>> named_targets(const lock::Lockfile& lockfile,
                                                             const std::vector<std::string>& names) {
  if (names.empty()) return chosen_targets(lockfile, std::nullopt);
  std::set<const lock::LockedTarget*> named;
  for (const std::string& name : names) {
    WV_ASSIGN_OR_RETURN(std::vector<const lock::LockedTarget*> one, chosen_targets(lockfile, name));
    named.insert(one.begin(), one.end());
  }
  std::vector<const lock::LockedTarget*> targets;
  for (const lock::LockedTarget& target : lockfile.targets) {
    if (named.count(&target)) targets.push_back(&target);
  }
  return targets;
}

FetchPlan plan_fetch(const lock::Lockfile& lockfile,
                     const std::vector<const lock::LockedTarget*>& targets) {
  FetchPlan plan;
  std::map<std::pair<std::string, std::string>, std::size_t> file_index;  // (name, sha256)
  std::map<const lock::LockedPackage*, std::size_t> git_index;
  for (const lock::LockedTarget* target : targets) {
    plan.targets.push_back(target->name);
    for (const lock::LockedPackage* package : lockfile.closure(target->name)) {
      auto use = package->targets.find(target->name);
      if (use == package->targets.end()) continue;
      for (const lock::LockedFile* file : install::files_of(*package, use->second)) {
        auto [at, added] = file_index.try_emplace({file->name, file->sha256}, plan.files.size());
        if (added) plan.files.push_back(Wanted{package, file, {}, "", "", std::nullopt});
        plan.files[at->second].targets.push_back(target->name);
      }
      if (use->second.wheels.empty() && package->vcs) {
        auto [at, added] = git_index.try_emplace(package, plan.git.size());
        if (added) plan.git.push_back(WantedGit{package, {}, "", std::nullopt});
        plan.git[at->second].targets.push_back(target->name);
      }
    }
  }
  return plan;
}

// A flat folder holds one file per name: two locked files of one name cannot both go in.
Result<void> check_flat_names(const FetchPlan& plan) {
  std::map<std::string, const Wanted*> by_name;
  for (const Wanted& wanted : plan.files) {
    auto [at, added] = by_name.try_emplace(wanted.file->name, &wanted);
    if (added) continue;
    return make_error(ErrorCode::kInvalidLockfile,
                      str_cat("two locked files are named ", in_backticks(wanted.file->name),
                              " (sha256 ", at->second->file->sha256, " and ", wanted.file->sha256,
                              "); a wheelhouse holds one file per name"))
        .with_note("fetch the targets that use them into separate folders (--target NAME)");
  }
  return {};
}

// Every file, in one batch: local ones verified in place, the others from the download cache
// or downloaded in parallel.
void fetch_files(FetchPlan& plan, install::LocalWheelStore& store, NetworkWheelStore& network,
                 FileSystem& file_system) {
  std::vector<const lock::LockedFile*> files;
  for (Wanted& wanted : plan.files) {
    files.push_back(wanted.file);
    const std::string stored = network.fetcher().verified_path(wanted.file->sha256);
    if (!store.local_path(*wanted.file).empty()) wanted.status = "local";
    else if (file_system.exists(stored)) wanted.status = "cached";
    else wanted.status = "downloaded";
  }
  std::vector<Result<std::string>> paths = store.get_all(files);
  for (std::size_t i = 0; i < plan.files.size(); ++i) {
    Wanted& wanted = plan.files[i];
    if (i >= paths.size()) {
      wanted.error = make_error(ErrorCode::kIo, str_cat("no answer for ", in_backticks(wanted.file->name)));
    } else if (!paths[i]) {
      wanted.error = std::move(paths[i]).error();
    } else {
      wanted.path = std::move(*paths[i]);
    }
  }
}

// Each git commit checked out into the cache's git database, as the builder would at sync.
void fetch_git(FetchPlan& plan, const GlobalOptions& options) {
  if (plan.git.empty()) return;
  build::GitCache git(path_join(cache_directory(options), "git"), options.offline);
  for (WantedGit& wanted : plan.git) {
    const lock::LockedVcs& vcs = *wanted.package->vcs;
    // A local repository is its path against the lock's folder, as the builder names it
    // (build/builder.cc), so the sync finds this checkout.
    const std::string location =
        vcs.url.empty()
            ? (std::filesystem::path(options.project_dir) / vcs.path).lexically_normal().string()
            : vcs.url;
    Result<std::string> checkout = git.checkout(location, vcs.commit_id);
    if (checkout) wanted.path = std::move(*checkout);
    else wanted.error = std::move(checkout).error();
  }
}

// The fetched files copied into the wheelhouse, and its SHA256SUMS written.
Result<void> fill_wheelhouse(FetchPlan& plan, const std::string& dir, FileSystem& file_system) {
  WV_TRY(file_system.create_directories(dir));
  std::vector<std::pair<std::string, std::string>> listed;
  for (Wanted& wanted : plan.files) {
    if (wanted.error) continue;
    Result<std::string> placed = install::add_to_wheelhouse(file_system, dir, wanted.path, *wanted.file);
    if (!placed) {
      wanted.error = std::move(placed).error();
      continue;
    }
    wanted.path = std::move(*placed);
    listed.emplace_back(wanted.file->name, wanted.file->sha256);
  }
  return install::write_wheelhouse_manifest(file_system, dir, listed);
}

std::size_t count_status(const FetchPlan& plan, std::string_view status) {
  std::size_t count = 0;
  for (const Wanted& wanted : plan.files) count += !wanted.error && wanted.status == status ? 1 : 0;
  return count;
}

std::string summary(const FetchPlan& plan, const std::optional<std::string>& into) {
  std::uint64_t bytes = 0;
  std::size_t fetched = 0;
  for (const Wanted& wanted : plan.files) {
    if (wanted.error) continue;
    ++fetched;
    bytes += wanted.file->size.value_or(0);
  }
  std::string text = str_cat(
      "fetched ", counted(fetched, "file", "files"), " (", net::format_bytes(bytes), ") for ",
      counted(plan.targets.size(), "target", "targets"), " (", join(plan.targets, ", "), "): ",
      count_status(plan, "downloaded"), " downloaded, ", count_status(plan, "cached"),
      " already in the cache, ", count_status(plan, "local"), " local\n");
  std::size_t checked_out = 0;
  for (const WantedGit& git : plan.git) checked_out += git.error ? 0 : 1;
  if (!plan.git.empty()) {
    text += str_cat(counted(checked_out, "git commit", "git commits"), " in the cache's git database",
                    into ? " (a wheelhouse holds files only: a node builds them from the cache)" : "",
                    "\n");
  }
  if (into) {
    text += str_cat("wheelhouse ", in_backticks(*into), ": ", counted(fetched, "file", "files"),
                    ", listed in ", install::kWheelhouseManifest, "\n");
  }
  return text;
}

std::string json_document(const std::string& lockfile_path, const FetchPlan& plan,
                          const std::optional<std::string>& into, const std::string& error) {
  JsonWriter json;
  json.begin_object().field("version", 1).field("lockfile", lockfile_path);
  json.key("targets").strings(plan.targets);
  json.key("into").value(into);
  json.key("files").begin_array();
  std::uint64_t bytes = 0;
  for (const Wanted& wanted : plan.files) {
    if (!wanted.error) bytes += wanted.file->size.value_or(0);
    json.begin_object()
        .field("name", wanted.file->name)
        .field("package", wanted.package->name.str())
        .field("version", wanted.package->version)
        .field("sha256", wanted.file->sha256);
    json.key("size");
    if (wanted.file->size) json.value(*wanted.file->size);
    else json.null();
    json.key("targets").strings(wanted.targets);
    json.key("status").value(wanted.error ? std::string_view("failed") : std::string_view(wanted.status));
    json.key("path").text_or_null(wanted.path);
    json.key("error").text_or_null(wanted.error ? wanted.error->message : "");
    json.end();
  }
  json.end();
  json.key("git").begin_array();
  for (const WantedGit& wanted : plan.git) {
    const lock::LockedVcs& vcs = *wanted.package->vcs;
    json.begin_object()
        .field("package", wanted.package->name.str())
        .field("version", wanted.package->version)
        .field("url", vcs.url.empty() ? vcs.path : vcs.url)
        .field("commit", vcs.commit_id);
    json.key("targets").strings(wanted.targets);
    json.key("path").text_or_null(wanted.path);
    json.key("error").text_or_null(wanted.error ? wanted.error->message : "");
    json.end();
  }
  json.end();
  json.key("summary").begin_object()
      .field("files", std::uint64_t(plan.files.size()))
      .field("bytes", bytes)
      .field("downloaded", std::uint64_t(count_status(plan, "downloaded")))
      .field("cached", std::uint64_t(count_status(plan, "cached")))
      .field("local", std::uint64_t(count_status(plan, "local")))
      .end();
  json.key("error").text_or_null(error);
  json.end();
  return json.text();
}

// Exit codes as sync's: a broken lock 1, bad input or a mismatching file 2, network or file
// system 3.
int exit_for(const Error& error) {
  if (error.code == ErrorCode::kInvalidLockfile || error.code == ErrorCode::kUnavailable) {
    return kExitFailure;
  }
  return exit_code_for(error);
}

}  // namespace

int run_fetch(const GlobalOptions& options, Arguments& arguments) {
  auto flags = fetch_flags(arguments);
  if (!flags) return fail_reading_lock(flags.error());
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  const std::string& lockfile_path = inputs->project.lockfile_path;
  if (!flags->frozen && !lock_is_fresh(inputs->project, inputs->lockfile)) {
    return fail_reading_lock(
        stale_lockfile(lockfile_path, stale_reason(inputs->project, inputs->lockfile), ", or pass `--frozen` to fetch it as it is"));
  }
  auto targets = named_targets(inputs->lockfile, flags->targets);
  if (!targets) return fail_reading_lock(targets.error());
  FetchPlan plan = plan_fetch(inputs->lockfile, *targets);
  if (flags->into) {
    if (Result<void> flat = check_flat_names(plan); !flat) {
      print_error(flat.error());
      return exit_for(flat.error());
    }
  }
  NetworkWheelStore network(options, inputs->project.config, file_system);
  install::LocalWheelStore store(options.project_dir, &network);
  fetch_files(plan, store, network, file_system);
  fetch_git(plan, options);
  Result<void> filled =
      flags->into ? fill_wheelhouse(plan, *flags->into, file_system) : Result<void>();
  // Every file is tried; each failure is reported, the first one decides the exit code.
  std::optional<Error> failure;
  auto report = [&](const Error& error) {
    print_error(error);
    if (!failure) failure = error;
  };
  for (const Wanted& wanted : plan.files) {
    if (wanted.error) report(*wanted.error);
  }
  for (const WantedGit& wanted : plan.git) {
    if (wanted.error) report(*wanted.error);
  }
  if (!filled) report(filled.error());
  const std::string message = failure ? failure->message : "";
  write_out(flags->json ? json_document(lockfile_path, plan, flags->into, message)
                        : summary(plan, flags->into));
  return failure ? exit_for(*failure) : kExitOk;
}

}  // namespace wv::cli
