// `wvlock check`: the lockfile is fresh, and for every target each package has a wheel the
// target can install and each file the target would install (the wheels it keeps, the sdists and
// archives it would build) is here with the locked size and sha256. Found and verified by the
// code sync uses (install::LocalWheelStore, install::inspect_file); a file with a remote url is
// looked up in the download cache only: check never uses the network.

#include "src/base/json_writer.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/lock_input.h"
#include "src/cli/lock_view.h"
#include "src/cli/project.h"
#include "src/install/target_files.h"
#include "src/install/wheel_store.h"
#include "src/net/caching_fetcher.h"
#include "src/pkg/wheel_filename.h"

namespace wv::cli {
namespace {

// The cache's content-addressed store is all check reads of it; nothing is ever fetched.
class NoNetwork final : public Fetcher {
 public:
  Result<FetchResponse> fetch(const FetchRequest& request) override {
    return make_error(ErrorCode::kNetwork,
                      str_cat("`wvlock check` never downloads (", request.url, ")"));
  }
};

// Remote files: their verified copy in the download cache, when sync downloaded them before.
// A damaged copy counts as not downloaded: sync discards it and downloads the file again.
class CachedFiles final : public install::WheelStore {
 public:
  CachedFiles(const GlobalOptions& options, FileSystem& file_system)
      : cache_(no_network_, file_system, net::CacheOptions{cache_directory(options)}) {}
  Result<std::string> get(const lock::LockedFile& file) override {
    return make_error(ErrorCode::kNetwork, str_cat("`wvlock check` never downloads ", file.url));
  }
  install::LocatedFile locate(const lock::LockedFile& file) override {
    const std::string path = cache_.verified_path(file.sha256);
    install::LocatedFile located = install::inspect_file(path, file.sha256, file.size, file.name);
    if (located.state == install::FileState::kMissing ||
        located.state == install::FileState::kMismatch) {
      located.state = install::FileState::kNotDownloaded;
      located.problem = str_cat(in_backticks(file.name), " is not downloaded yet");
    }
    return located;
  }

 private:
  NoNetwork no_network_;
  net::CachingFetcher cache_;
};

struct Problem {
  std::string package, version, file;  ///< "" when the problem is not about one
  std::string kind;                    ///< missing, mismatch, unreadable, no-wheel, not-locked
  std::string message;
};

struct TargetReport {
  std::string name;
  std::size_t packages = 0;
  std::size_t checked = 0;         ///< files looked at
  std::size_t ok = 0;              ///< present with the locked size and sha256
  std::size_t not_downloaded = 0;  ///< remote files not in the download cache
  std::vector<Problem> problems;
  bool unreadable = false;  ///< a file system error while reading a file
};

TargetReport check_target(const lock::Lockfile& lockfile, const lock::TargetContext& context,
                          install::WheelStore& store) {
  TargetReport report;
  report.name = context.name;
  if (!lockfile.find_target(context.name)) {
    report.problems.push_back({"", "", "", "not-locked",
                               str_cat("target ", in_backticks(context.name),
                                       " is not in the lockfile; run `wvlock lock`")});
    return report;
  }
  for (const lock::LockedPackage* package : lockfile.closure(context.name)) {
    ++report.packages;
    const lock::TargetUse& use = package->targets.at(context.name);
    // A package the lock says to build is installable wherever its source is.
    bool installable = use.wheels.empty() && package->has_source();
    for (const std::string& wheel : use.wheels) {
      auto filename = pkg::parse_wheel_filename(wheel);
      if (filename && context.tags.is_compatible(filename->tags)) installable = true;
    }
    if (!installable) {
      report.problems.push_back({package->name.str(), package->version, "", "no-wheel",
                                 str_cat(package->name, " ", package->version,
                                         " keeps no wheel this target can install")});
    }
    for (const lock::LockedFile* file : install::files_of(*package, use)) {
      ++report.checked;
      const install::LocatedFile located = store.locate(*file);
      switch (located.state) {
        case install::FileState::kVerified: ++report.ok; continue;
        case install::FileState::kNotDownloaded: ++report.not_downloaded; continue;
        case install::FileState::kMissing:
        case install::FileState::kMismatch:
        case install::FileState::kUnreadable:
          break;
      }
      const bool unreadable = located.state == install::FileState::kUnreadable;
      report.unreadable = report.unreadable || unreadable;
      report.problems.push_back(
          {package->name.str(), package->version, file->name,
           unreadable ? "unreadable"
                      : located.state == install::FileState::kMissing ? "missing" : "mismatch",
           located.problem});
    }
  }
  return report;
}

// A lock named by `--lockfile` (a standard PEP 751 file, ours or another tool's): no project
// to be fresh against and no target contexts, so every file of every package is checked.
TargetReport check_all_files(const lock::Lockfile& lockfile, install::WheelStore& store) {
  TargetReport report;
  report.name = "all";
  for (const lock::LockedPackage& package : lockfile.packages) {
    ++report.packages;
    std::vector<const lock::LockedFile*> files;
    for (const lock::LockedFile& wheel : package.wheels) files.push_back(&wheel);
    if (package.sdist) files.push_back(&*package.sdist);
    if (package.archive) files.push_back(&package.archive->file);
    for (const lock::LockedFile* file : files) {
      ++report.checked;
      const install::LocatedFile located = store.locate(*file);
      if (located.state == install::FileState::kVerified) {
        ++report.ok;
        continue;
      }
      if (located.state == install::FileState::kNotDownloaded) {
        ++report.not_downloaded;
        continue;
      }
      const bool unreadable = located.state == install::FileState::kUnreadable;
      report.unreadable = report.unreadable || unreadable;
      report.problems.push_back(
          {package.name.str(), package.version, file->name,
           unreadable ? "unreadable"
                      : located.state == install::FileState::kMissing ? "missing" : "mismatch",
           located.problem});
    }
  }
  return report;
}

std::string summary_line(const TargetReport& report) {
  std::string line =
      str_cat(report.name, ": ", counted(report.packages, "package", "packages"), ", ", report.ok,
              " of ", counted(report.checked, "file", "files"), " present with matching sha256");
  if (report.not_downloaded > 0) {
    line += str_cat(", ", report.not_downloaded, " not downloaded yet (sync verifies them when it "
                    "downloads them)");
  }
  if (!report.problems.empty()) {
    line += ", " + counted(report.problems.size(), "problem", "problems");
  }
  return line + "\n";
}

std::string json_document(const std::string& lockfile_path, std::optional<bool> fresh,
                          const std::vector<TargetReport>& reports) {
  JsonWriter json;
  json.begin_object().field("version", 1).field("lockfile", lockfile_path);
  if (fresh) json.field("fresh", *fresh);
  else json.key("fresh").text_or_null("");  // a named lock has no project to be fresh against
  json.key("targets").begin_array();
  for (const TargetReport& report : reports) {
    json.begin_object().field("name", report.name).field("packages", std::uint64_t(report.packages));
    json.key("files").begin_object()
        .field("checked", std::uint64_t(report.checked))
        .field("ok", std::uint64_t(report.ok))
        .field("not_downloaded", std::uint64_t(report.not_downloaded))
        .end();
    json.key("problems").begin_array();
    for (const Problem& problem : report.problems) {
      json.begin_object()
          .key("package").text_or_null(problem.package)
          .key("version").text_or_null(problem.version)
          .key("file").text_or_null(problem.file)
          .field("kind", problem.kind)
          .field("problem", problem.message)
          .end();
    }
    json.end().end();
  }
  json.end().end();
  return json.text();
}


// `check --lockfile PATH`: the file is valid PEP 751 (read_lockfile validates it) and every file
// it names is here with its locked size and sha256.
int check_named_lock(const GlobalOptions& options, const std::string& flag, bool json) {
  RealFileSystem file_system;
  auto input = lock_input(options, flag);
  if (!input) return fail_reading_lock(input.error());
  auto text = file_system.read_file(input->path);
  if (!text) return fail_reading_lock(text.error());
  auto lockfile = lock::read_lockfile(*text, input->path);
  if (!lockfile) return fail_reading_lock(lockfile.error());
  CachedFiles cached(options, file_system);
  install::LocalWheelStore store(input->dir, &cached);
  const TargetReport report = check_all_files(*lockfile, store);
  for (const Problem& problem : report.problems) print_diagnostic("error: " + problem.message);
  write_out(json ? json_document(input->path, std::nullopt, {report}) : summary_line(report));
  if (report.unreadable) return kExitIo;
  return report.problems.empty() ? kExitOk : kExitFailure;
}

}  // namespace

int run_check(const GlobalOptions& options, Arguments& arguments) {
  const bool json = arguments.extract_flag("--json");
  auto named = arguments.extract_value("--lockfile");
  if (!named) return fail_reading_lock(named.error());
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  if (*named) return check_named_lock(options, **named, json);
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  const lock::Lockfile& lockfile = inputs->lockfile;
  const std::string& lockfile_path = inputs->project.lockfile_path;
  const bool fresh = lock_is_fresh(inputs->project, lockfile);
  if (!fresh) print_error(stale_lockfile(lockfile_path, stale_reason(inputs->project, lockfile)));
  CachedFiles cached(options, file_system);
  install::LocalWheelStore store(options.project_dir, &cached);
  std::vector<TargetReport> reports;
  bool problems = false;
  bool file_problems = false;
  bool unreadable = false;
  for (const lock::TargetContext& context : inputs->project.targets) {
    reports.push_back(check_target(lockfile, context, store));
    const TargetReport& report = reports.back();
    for (const Problem& problem : report.problems) {
      print_diagnostic(str_cat("error: target `", report.name, "`: ", problem.message));
      file_problems = file_problems || problem.kind == "missing" || problem.kind == "mismatch";
    }
    problems = problems || !report.problems.empty();
    unreadable = unreadable || report.unreadable;
  }
  if (file_problems) {
    print_diagnostic("hint: put the files back as they were locked, or run `wvlock lock` "
                     "to lock the files that are there now");
  }
  std::string out;
  if (json) {
    out = json_document(lockfile_path, fresh, reports);
  } else {
    for (const TargetReport& report : reports) out += summary_line(report);
  }
  write_out(out);
  if (unreadable) return kExitIo;
  return fresh && !problems ? kExitOk : kExitFailure;
}

}  // namespace wv::cli
