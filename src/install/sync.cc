// The sync: plan, fetch, stage, then a journaled commit that can be rolled back.
#include "install/sync.h"
#include "install/built_sources.h"
#include "install/direct_url.h"
#include "install/requested.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "base/file_system.h"
#include "base/sha256.h"
#include "base/str.h"
#include "pkg/name.h"
#include "pkg/version.h"
#include "pkg/wheel_filename.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

std::string under(const std::string& root, std::string_view rel) {
  return str_cat(root, "/", rel);
}

/// Wheels unpacked at once (bounded: unpacking is mostly file creation).
constexpr std::size_t kMaxUnpackThreads = 8;

/// A staged path `N/rel` (wheel N's staging folder) -> its destination `rel`.
std::string destination_of(std::string_view staged) {
  std::size_t slash = staged.find('/');
  return std::string(slash == std::string_view::npos ? staged : staged.substr(slash + 1));
}

/// What the commit moves: T = an existing file moved to the trash, R = a folder removed once
/// its files were trashed (a file of the new version takes its place), D = a folder created,
/// P = a staged file (`N/rel`, N the wheel) moved into place at `rel`. Written before the first move.
struct Journal {
  std::string staging;  ///< folder name under the root
  std::vector<std::string> trashed;
  std::vector<std::string> vacated_dirs;  ///< deepest first
  std::vector<std::string> created_dirs;
  std::vector<std::string> placed;

  std::string serialize() const {
    std::string out = str_cat("wvlock-journal 1\nS ", staging, "\n");
    for (const auto& rel : trashed) out += str_cat("T ", rel, "\n");
    for (const auto& rel : vacated_dirs) out += str_cat("R ", rel, "\n");
    for (const auto& rel : created_dirs) out += str_cat("D ", rel, "\n");
    for (const auto& rel : placed) out += str_cat("P ", rel, "\n");
    return out;
  }
  static Result<Journal> parse(std::string_view text, std::string_view path) {
    Journal journal;
    std::vector<std::string_view> lines = split(text, '\n');
    if (lines.empty() || lines.front() != "wvlock-journal 1") {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(path), " is not a wvlock journal; remove it by hand "
                                                    "after checking the environment"));
    }
    for (std::size_t i = 1; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      if (line.empty()) continue;
      if (line.size() < 3 || line[1] != ' ' || !check_member_name(line.substr(2)).empty()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(path, ":", i + 1, ": expected `T|R|D|P|S <relative path>`"));
      }
      std::string rel(line.substr(2));
      switch (line[0]) {
        case 'S': journal.staging = rel; break;
        case 'T': journal.trashed.push_back(rel); break;
        case 'R': journal.vacated_dirs.push_back(rel); break;
        case 'D': journal.created_dirs.push_back(rel); break;
        case 'P': journal.placed.push_back(rel); break;
        default:
          return make_error(ErrorCode::kInvalidInput,
                            str_cat(path, ":", i + 1, ": unknown journal entry"));
      }
    }
    return journal;
  }
};

bool exists_no_follow(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

/// Renames `from` to `to`, creating the parent first unless `parents_exist`.
Result<void> move_file(const std::string& from, const std::string& to, bool parents_exist = false) {
  std::error_code ec;
  if (!parents_exist) fs::create_directories(fs::path(to).parent_path(), ec);
  fs::rename(from, to, ec);
  if (ec) {
    return make_error(ErrorCode::kIo, str_cat("cannot move ", in_backticks(from), " to ",
                                              in_backticks(to), ": ", ec.message()));
  }
  return {};
}

/// Undoes a journal: placed files whose staged copy is gone are removed, created folders go
/// (deepest first, only when empty), removed folders come back, then trashed files. Folders
/// go before files come back because a file may return where a created folder stood.
Result<void> roll_back(const std::string& root, const Journal& journal) {
  const std::string staging = under(root, journal.staging);
  const std::string trash = under(root, kTrashName);
  std::error_code ec;
  for (const std::string& staged : journal.placed) {
    const std::string rel = destination_of(staged);
    if (!exists_no_follow(under(staging, staged)) && exists_no_follow(under(root, rel))) {
      fs::remove(under(root, rel), ec);
      if (ec) {
        return make_error(ErrorCode::kIo, str_cat("cannot remove ", in_backticks(under(root, rel)),
                                                  ": ", ec.message()));
      }
    }
  }
  for (auto it = journal.created_dirs.rbegin(); it != journal.created_dirs.rend(); ++it) {
    fs::remove(under(root, *it), ec);  // fails (kept) when not empty
  }
  for (auto it = journal.vacated_dirs.rbegin(); it != journal.vacated_dirs.rend(); ++it) {
    fs::create_directories(under(root, *it), ec);
  }
  for (const std::string& rel : journal.trashed) {
    if (exists_no_follow(under(trash, rel))) WV_TRY(move_file(under(trash, rel), under(root, rel)));
  }
  return {};
}

/// Makes everything written to the file system holding `root` durable (syncfs): the staged
/// files before the journal names them, the moves before the journal goes. Without it a power
/// loss could keep a rename but not the data behind it, or drop the journal while keeping only
/// some of the moves it guards.
Result<void> flush_to_disk(const std::string& root) {
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::syncfs(fd) != 0) {
    const int saved = errno;
    if (fd >= 0) ::close(fd);
    return make_error(ErrorCode::kIo, str_cat("cannot flush ", in_backticks(root), " to disk: ",
                                              std::strerror(saved)));
  }
  ::close(fd);
  return {};
}

void remove_quietly(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

/// True when every existing component of `rel` below the root resolves inside the root
/// (a symlinked folder in the environment must not carry a write or a removal outside it).
Result<void> check_inside(const std::string& root, const std::string& real_root,
                          const std::string& rel, std::set<std::string>& checked) {
  fs::path current(root);
  std::vector<std::string_view> parts = split(rel, '/');
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    current /= std::string(parts[i]);
    if (!checked.insert(current.string()).second) continue;
    struct stat info;
    if (::lstat(current.c_str(), &info) != 0) return {};  // does not exist yet: created by us
    if (S_ISLNK(info.st_mode)) {
      std::error_code ec;
      fs::path target = fs::canonical(current, ec);
      std::string text = target.string();
      if (ec || (text != real_root && text.compare(0, real_root.size() + 1, real_root + "/") != 0)) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(in_backticks(current.string()), " is a symlink leading outside "
                                  "the environment; refusing to write ", in_backticks(rel),
                                  " through it"));
      }
    }
  }
  return {};
}

/// Python's byte-code caches of a removed module (`__pycache__/mod.*.pyc`), which RECORD
/// does not list.
std::vector<std::string> pycache_of(const std::string& root, const std::string& rel) {
  std::vector<std::string> result;
  if (rel.size() < 3 || rel.compare(rel.size() - 3, 3, ".py") != 0) return result;
  fs::path path(rel);
  const std::string stem = path.stem().string() + ".";
  const fs::path cache = path.parent_path() / "__pycache__";
  std::error_code ec;
  for (fs::directory_iterator it(under(root, cache.string()), ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.compare(0, stem.size(), stem) == 0 && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".pyc") == 0) {
      result.push_back((cache / name).generic_string());
    }
  }
  return result;
}

/// The lock's entries, their wheels' file names and the plan must agree on each distribution
/// (pip refuses the same, "inconsistent name/version"): two entries of one normalised name
/// would share one dist-info slot and each remove the other's files, and a wheel of another
/// version would make the next sync misread what is installed.
Result<void> check_selection(const lock::Lockfile& lockfile, const Selection& selection) {
  // The closure keeps one entry per name and would silently drop the other, so the target's
  // entries are checked, not only the chosen wheels.
  std::vector<const lock::LockedPackage*> entries;
  for (const lock::LockedPackage& package : lockfile.packages) {
    if (package.targets.count(selection.target)) entries.push_back(&package);
  }
  for (const ChosenWheel& chosen : selection.wheels) entries.push_back(chosen.package);
  std::map<std::string, const lock::LockedPackage*> seen;
  for (const lock::LockedPackage* package : entries) {
    auto [it, fresh] = seen.emplace(pkg::normalize_name(package->name), package);
    if (!fresh && it->second != package) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("the plan for target ", in_backticks(selection.target),
                                " installs the distribution ", in_backticks(it->first), " twice (",
                                in_backticks(it->second->name + " " + it->second->version), " and ",
                                in_backticks(package->name + " " + package->version),
                                "); refusing to sync"));
    }
  }
  for (const ChosenWheel& chosen : selection.wheels) {
    if (chosen.file == nullptr) continue;  // built here: its wheel is checked when unpacked
    const lock::LockedPackage& package = *chosen.package;
    const std::string name = pkg::normalize_name(package.name);
    WV_ASSIGN_OR_RETURN(pkg::WheelFilename filename, pkg::parse_wheel_filename(chosen.file->name));
    if (filename.name.str() != name) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("inconsistent name: the lock's entry ", in_backticks(package.name),
                                " chooses the wheel ", in_backticks(chosen.file->name),
                                ", which is named ", in_backticks(filename.name.str())));
    }
    Result<pkg::Version> version = pkg::parse_version(package.version);
    if (!version || !(*version == filename.version)) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("inconsistent version: the lock's entry ",
                                in_backticks(package.name + " " + package.version),
                                " chooses the wheel ", in_backticks(chosen.file->name),
                                ", which is version ", in_backticks(filename.version.to_string())));
    }
  }
  return {};
}

/// The rule at each destination, checked before anything changes: a file placed by the sync
/// may take the place of (a) nothing, (b) a file this sync removes anyway (listed in the
/// RECORD of a distribution it upgrades or removes), or (c) a folder whose every file is such
/// a file, which the commit then removes (returned, deepest first). Never a folder with
/// anything else in it, never another distribution's or the environment's own file, and never
/// through a symlink or a file on the way (pip: IsADirectoryError / NotADirectoryError, after
/// having changed things; here nothing has).
struct DestinationCheck {
  const std::string& root;
  const InstallScheme& scheme;
  const std::set<std::string>& trashed;
  /// "`member` of wheel `W`" for a destination.
  std::function<std::string(const std::string&)> source;
  /// "`name version`" of the installed distribution whose RECORD lists a path, or "".
  std::function<std::string(const std::string&)> owner;
  /// The staged copy of a destination.
  std::function<std::string(const std::string&)> staged;

  std::string whose(const std::string& rel) const {
    std::string name = owner(rel);
    return name.empty() ? std::string("no installed distribution records it")
                        : str_cat("it belongs to ", in_backticks(name));
  }

  /// True for the environment's own folders: a scheme folder or one above it. A symlink
  /// there (a distribution's `lib64 -> lib`) is the venv's layout, not something to refuse.
  bool is_scheme_folder(const std::string& rel) const {
    for (const std::string* folder : {&scheme.purelib, &scheme.platlib, &scheme.scripts,
                                      &scheme.headers, &scheme.data}) {
      if (*folder == rel ||
          (folder->size() > rel.size() && folder->compare(0, rel.size(), rel) == 0 &&
           (*folder)[rel.size()] == '/')) {
        return true;
      }
    }
    return false;
  }

  /// True when `rel` already holds exactly the staged file (same bytes, same executable bit):
  /// namespace packages (`nvidia/__init__.py` in every nvidia-* wheel) ship one file from
  /// several distributions, and leaving it as it is replaces nothing.
  bool already_there(const std::string& rel) const {
    struct stat existing;
    struct stat incoming;
    if (::lstat(under(root, rel).c_str(), &existing) != 0 || !S_ISREG(existing.st_mode) ||
        ::lstat(staged(rel).c_str(), &incoming) != 0 || existing.st_size != incoming.st_size ||
        ((existing.st_mode & 0111) != 0) != ((incoming.st_mode & 0111) != 0)) {
      return false;
    }
    Result<std::string> a = sha256_file_hex(under(root, rel));
    Result<std::string> b = sha256_file_hex(staged(rel));
    return a && b && *a == *b;
  }

  /// Ok(true) when the destination already holds the file (nothing to move), Ok(false) when
  /// the file may be moved in, else the refusal.
  Result<bool> check(const std::string& rel, std::vector<std::string>& vacated) const {
    std::vector<std::string_view> parts = split(rel, '/');
    std::string prefix;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      prefix = prefix.empty() ? std::string(parts[i]) : str_cat(prefix, "/", parts[i]);
      struct stat info;
      if (::lstat(under(root, prefix).c_str(), &info) != 0) break;  // created by this sync
      if (S_ISDIR(info.st_mode)) continue;
      if (trashed.count(prefix)) break;  // an old file that leaves; a folder takes its place
      if (S_ISLNK(info.st_mode)) {
        if (is_scheme_folder(prefix)) continue;
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(source(rel), " installs ", in_backticks(rel), " through ",
                                  in_backticks(under(root, prefix)), ", a symlink wvlock did not "
                                  "create; refusing to write through it"));
      }
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(source(rel), " installs ", in_backticks(rel), ", but ",
                                in_backticks(under(root, prefix)), " is a file, not a folder (",
                                whose(prefix), "); refusing to replace it"));
    }
    struct stat info;
    if (::lstat(under(root, rel).c_str(), &info) != 0) return false;
    if (!S_ISDIR(info.st_mode)) {
      if (trashed.count(rel)) return false;
      if (already_there(rel)) return true;
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(source(rel), " would replace ", in_backticks(under(root, rel)),
                                " (", whose(rel), "); only the files of a distribution this sync "
                                "upgrades or removes are replaced"));
    }
    auto refuse_folder = [&](const std::string& why) -> Error {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(source(rel), " installs a file at ", in_backticks(rel), ", but ",
                                in_backticks(under(root, rel)), " is a folder (", why,
                                "); wvlock never replaces a folder it does not own as a whole"));
    };
    if (is_scheme_folder(rel)) return refuse_folder("one of the environment's own");
    std::vector<std::string> folders = {rel};
    std::error_code ec;
    for (fs::recursive_directory_iterator it(under(root, rel), ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string inner = str_cat(rel, "/", it->path().lexically_relative(under(root, rel))
                                                      .generic_string());
      std::error_code type_error;
      if (it->symlink_status(type_error).type() == fs::file_type::directory) {
        folders.push_back(inner);
      } else if (!trashed.count(inner)) {
        return refuse_folder(str_cat("it holds ", in_backticks(inner), ", which this sync keeps: ",
                                     whose(inner)));
      }
    }
    if (ec) return refuse_folder(str_cat("it cannot be read: ", ec.message()));
    // Deepest first: a folder's path is longer than every folder above it.
    std::sort(folders.begin(), folders.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    vacated.insert(vacated.end(), folders.begin(), folders.end());
    return false;
  }
};

}  // namespace

Result<std::string> repair_environment(const std::string& root) {
  RealFileSystem file_system;
  const std::string journal_path = under(root, kJournalName);
  std::string note;
  if (file_system.exists(journal_path)) {
    WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(journal_path));
    WV_ASSIGN_OR_RETURN(Journal journal, Journal::parse(text, journal_path));
    WV_TRY(roll_back(root, journal));
    note = str_cat("an interrupted sync left ", in_backticks(journal_path),
                   "; its changes were rolled back (", journal.placed.size(),
                   " files removed, ", journal.trashed.size(), " restored)");
    WV_TRY(file_system.remove(journal_path));
  }
  // Leftover staging and trash folders of a killed sync.
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.compare(0, kStagingPrefix.size(), kStagingPrefix) == 0 || name == kTrashName) {
      remove_quietly(it->path().string());
    }
  }
  return note;
}

namespace {

// Selects with `facts`' Python and records it in the report: the host facts and every
// target's verdict, also when no target fits.
Result<void> select_into(SyncReport& report, const lock::Lockfile& lockfile,
                         const targets::HostProfile& live, const InterpreterFacts& facts,
                         const SelectOptions& select) {
  targets::HostProfile host = with_interpreter(live, facts);
  report.plan.python_version = facts.full_version;
  report.plan.python_executable = facts.base_executable;
  Result<Selection> selection = select_target(lockfile, host, select);
  report.host = host;
  report.refused = false;
  report.verdicts.clear();
  if (!selection) {
    Error error = std::move(selection).error();
    if (error.code == ErrorCode::kUnavailable) {
      // The verdicts as the `wvlock targets` table, in place of one note per target.
      report.refused = true;
      report.verdicts = evaluate_targets(lockfile, host, select);
      std::string table = render_targets_table(lockfile, report.verdicts, host);
      if (!table.empty() && table.back() == '\n') table.pop_back();
      error.notes = {std::move(table)};
    }
    return error;
  }
  WV_TRY(check_selection(lockfile, *selection));
  report.verdicts = selection->verdicts;
  report.selection = std::move(*selection);
  return {};
}

// Everything after the environment's fate is decided: the environment made (unless a dry run),
// its interpreter read, the selection, the plan, and the install.
Result<void> install_into(SyncReport& report, const SyncOptions& options,
                          const lock::Lockfile& lockfile, const targets::HostProfile& live,
                          WheelStore& store, const EnvironmentPlan& environment,
                          const EnvironmentTransaction* transaction) {
  const EnvironmentMode mode = transaction != nullptr ? transaction->mode() : environment.mode;
  const std::string& root = environment.root;
  InterpreterFacts facts;
  if (mode == EnvironmentMode::kKeep && environment.current) {
    facts = *environment.current;
  } else if (options.dry_run) {
    facts = *environment.base;  // what the new environment would have
  } else {
    if (mode != EnvironmentMode::kKeep) {
      WV_ASSIGN_OR_RETURN(report.created_environment, ensure_venv(root, options.python));
      report.recreated_environment = mode == EnvironmentMode::kRecreate;
    }
    WV_ASSIGN_OR_RETURN(facts, read_interpreter(root));
  }
  if (!options.dry_run) {
    WV_ASSIGN_OR_RETURN(std::string note, repair_environment(root));
    if (!note.empty()) report.notes.push_back(std::move(note));
  }
  WV_TRY(select_into(report, lockfile, live, facts, options.select));
  if (const lock::LockedPackage* project = lockfile.project();
      project != nullptr && options.install_project) {
    report.selection.wheels.push_back(ChosenWheel{project, nullptr, "", true});
  }
  WV_ASSIGN_OR_RETURN(auto identities, source_identities(report.selection, options));
  std::vector<InstalledDistribution> installed;
  if (mode == EnvironmentMode::kKeep) {
    WV_ASSIGN_OR_RETURN(installed, list_installed(facts.scheme));
  }
  report.plan = make_plan(report.selection, installed, PlanOptions{options.reinstall, options.inexact},
                          identities);
  report.plan.environment = root;
  report.plan.python_version = facts.full_version;
  report.plan.python_executable = facts.base_executable;
  if (environment.mode == EnvironmentMode::kCreate && mode != EnvironmentMode::kKeep) {
    report.plan.environment_change = "created";
  } else if (environment.mode == EnvironmentMode::kRecreate) {
    report.plan.environment_change = "recreated";
    report.plan.environment_reason = environment.reason;
  }
  for (const InstalledDistribution& distribution : installed) {
    if (!distribution.installer.empty() && distribution.installer != "wvlock" &&
        distribution.wheel.empty()) {
      for (const PlanItem& item : report.plan.items) {
        if (item.name == distribution.name && item.action == PlanAction::kKeep && !item.unlisted) {
          report.notes.push_back(str_cat(distribution.name, " ", distribution.version,
                                         " was installed by ", distribution.installer,
                                         "; kept as is (its build is not recorded)"));
        }
      }
    }
  }
  if (options.dry_run) return {};

  // The note of every failure before the commit begins.
  const std::string unchanged = str_cat("nothing was changed in ", in_backticks(root));

  // 1. Every file, verified against the lock, before anything changes.
  std::vector<const PlanItem*> wanted;
  std::vector<const lock::LockedFile*> files;
  std::vector<const PlanItem*> builds;
  for (const PlanItem& item : report.plan.items) {
    if (!installs_files(item.action)) continue;
    if (item.build != nullptr) {
      builds.push_back(&item);
      if (const lock::LockedFile* source = source_file(*item.build)) {
        wanted.push_back(&item);
        files.push_back(source);
      }
      continue;
    }
    wanted.push_back(&item);
    files.push_back(item.file);
  }
  WV_TRY(check_buildable(builds, options));
  std::vector<Result<std::string>> paths = store.get_all(files);
  if (paths.size() != files.size()) {
    return make_error(ErrorCode::kIo, "the wheel store answered a different number of files");
  }
  std::vector<std::pair<const PlanItem*, std::string>> fetched;
  std::map<const PlanItem*, std::string> sources;  // built item -> its verified archive
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (!paths[i]) {
      return std::move(paths[i]).error().with_note(unchanged);
    }
    if (wanted[i]->build != nullptr) {
      sources[wanted[i]] = std::move(*paths[i]);
    } else {
      fetched.emplace_back(wanted[i], std::move(*paths[i]));
    }
  }
  // Built packages: each one's wheel, built for this environment's interpreter.
  for (const PlanItem* item : builds) {
    BuildRequest request;
    request.package = item->build;
    auto archive = sources.find(item);
    request.archive_path = archive == sources.end() ? std::string() : archive->second;
    request.directory = source_directory(*item->build, options);
    request.editable = installs_editable(*item->build, options);
    request.python = path_join(root, "bin/python");
    Result<std::string> built = options.builder->build_wheel(request);
    if (!built) return std::move(built).error().with_note(unchanged);
    fetched.emplace_back(item, std::move(*built));
  }
  std::map<std::string, const InstalledDistribution*> installed_by_name;
  for (const InstalledDistribution& distribution : installed) {
    installed_by_name[distribution.name] = &distribution;
  }
  bool changes = !fetched.empty() || report.plan.count(PlanAction::kRemove) > 0;
  if (!changes) return {};

  // 2. Stage and verify every wheel. Each dist-info also records whether the package was asked
  // for (REQUESTED) and, when the lock names it by location, where from (direct_url.json).
  const std::set<std::string> requested = requested_packages(
      lockfile, report.selection.target, options.select.groups, options.select.dependencies,
      options.install_project);
  std::map<std::string, const lock::LockedPackage*> entry_of;
  for (const ChosenWheel& chosen : report.selection.wheels) {
    entry_of[chosen.package->name] = chosen.package;
  }
  const std::string staging_name = str_cat(kStagingPrefix, "-", ::getpid());
  const std::string staging = under(root, staging_name);
  remove_quietly(staging);
  std::error_code ec;
  fs::create_directories(staging, ec);
  if (ec) {
    return make_error(ErrorCode::kIo, str_cat("cannot create ", in_backticks(staging), ": ",
                                              ec.message()));
  }
  struct StagingGuard {
    std::string path;
    ~StagingGuard() { remove_quietly(path); }
  } staging_guard{staging};
  // Wheels unpack in parallel, each into its own numbered folder; when two wheels install the
  // same path the later one in plan order wins, as with a sequential install.
  std::vector<std::optional<Result<UnpackedWheel>>> unpacked(fetched.size());
  {
    std::atomic<std::size_t> next{0};
    auto work = [&]() {
      for (std::size_t i; (i = next.fetch_add(1)) < fetched.size();) {
        const auto& [item, path] = fetched[i];
        UnpackOptions unpack;
        unpack.scheme = facts.scheme;
        unpack.staging = str_cat(staging, "/", i);
        unpack.limits = options.limits;
        if (item->build != nullptr) {
          const SourceIdentity& identity = identities.at(item->name);
          unpack.recorded_source = identity.name;
          unpack.recorded_digest = identity.digest;
          // Read-only here: these threads share `sources`.
          auto archive = sources.find(item);
          unpack.direct_url_json = direct_url_json(
              *item->build, nullptr, archive == sources.end() ? std::string() : archive->second,
              options);
        } else {
          unpack.wheel_name = item->file->name;
          unpack.wheel_sha256 = item->file->sha256;
          if (auto entry = entry_of.find(item->name); entry != entry_of.end()) {
            unpack.direct_url_json = direct_url_json(*entry->second, item->file, path, options);
          }
        }
        unpack.requested = requested.count(item->name) > 0;
        unpacked[i] = unpack_wheel(path, unpack);
      }
    };
    std::size_t workers = std::min<std::size_t>(
        {fetched.size(), std::max(1u, std::thread::hardware_concurrency()), kMaxUnpackThreads});
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
    for (std::thread& thread : threads) thread.join();
  }
  std::map<std::string, std::size_t> source_of;  // destination -> the wheel that wins it
  std::map<std::pair<std::size_t, std::string>, std::string> member_of;  // (wheel, dest) -> member
  std::vector<std::string> placed;               // destinations, first-seen order
  for (std::size_t i = 0; i < fetched.size(); ++i) {
    const PlanItem* item = fetched[i].first;
    Result<UnpackedWheel>& result = *unpacked[i];
    if (!result) {
      return std::move(result).error().with_note(unchanged);
    }
    if (result->name != item->name) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat(in_backticks(item->file ? item->file->name : fetched[i].second), " installs ",
                                in_backticks(result->name), ", the lock expects ",
                                in_backticks(item->name)));
    }
    if (item->build != nullptr && !item->version.empty() && result->version != item->version) {
      return make_error(ErrorCode::kIntegrity,
                        str_cat("building ", item->name, " gave version ", result->version,
                                ", and the lock says ", item->version,
                                ": its source changed since the lock"))
          .with_note("run `wvlock lock` to lock what the source is now")
          .with_note(unchanged);
    }
    for (std::size_t f = 0; f < result->files.size(); ++f) {
      std::string& rel = result->files[f];
      member_of[{i, rel}] = f < result->members.size() ? result->members[f] : std::string();
      auto [it, fresh] = source_of.emplace(rel, i);
      if (fresh) placed.push_back(std::move(rel));
      else it->second = i;
    }
  }
  auto source = [&](const std::string& rel) {
    const std::size_t i = source_of[rel];
    const std::string wheel = fetched[i].first->file ? fetched[i].first->file->name
                                                     : fs::path(fetched[i].second).filename().string();
    const std::string& member = member_of[{i, rel}];
    return member.empty() ? str_cat("wheel ", in_backticks(wheel), "'s installed metadata")
                          : str_cat(in_backticks(member), " of wheel ", in_backticks(wheel));
  };
  // A file of one wheel where another puts a folder cannot both be installed.
  for (const std::string& rel : placed) {
    for (fs::path parent = fs::path(rel).parent_path(); !parent.empty();
         parent = parent.parent_path()) {
      if (source_of.count(parent.generic_string())) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(source(parent.generic_string()), " installs a file at ",
                                  in_backticks(parent.generic_string()), ", and ", source(rel),
                                  " installs ", in_backticks(rel), " inside it"))
            .with_note(unchanged);
      }
    }
  }

  // 3. What leaves: the files of removed and replaced distributions. A folder a RECORD lists
  // is not removed as such (it could hold other distributions' files); it goes only when
  // removing its files empties it.
  Journal journal;
  journal.staging = staging_name;
  std::set<std::string> trashed;
  for (const PlanItem& item : report.plan.items) {
    if (!removes_files(item.action)) continue;
    auto it = installed_by_name.find(item.name);
    if (it == installed_by_name.end()) continue;
    WV_ASSIGN_OR_RETURN(std::vector<std::string> old_files,
                        installed_files(facts.scheme, *it->second));
    for (const std::string& rel : old_files) {
      struct stat info;
      if (check_member_name(rel).empty() && trashed.count(rel) == 0 &&
          ::lstat(under(root, rel).c_str(), &info) == 0 && !S_ISDIR(info.st_mode)) {
        trashed.insert(rel);
        journal.trashed.push_back(rel);
      }
      for (std::string& cache : pycache_of(root, rel)) {
        if (trashed.insert(cache).second) journal.trashed.push_back(std::move(cache));
      }
    }
  }
  std::string real_root = fs::canonical(root, ec).string();
  if (ec) real_root = root;
  std::set<std::string> checked;
  for (const std::string& rel : journal.trashed) WV_TRY(check_inside(root, real_root, rel, checked));
  for (const std::string& rel : placed) WV_TRY(check_inside(root, real_root, rel, checked));
  // Who owns a path, read only to word a refusal.
  std::optional<std::map<std::string, std::string>> owners;
  auto owner = [&](const std::string& rel) -> std::string {
    if (!owners) {
      owners.emplace();
      for (const InstalledDistribution& distribution : installed) {
        Result<std::vector<std::string>> listed = installed_files(facts.scheme, distribution);
        if (!listed) continue;
        for (const std::string& file : *listed) {
          owners->emplace(file, str_cat(distribution.name, " ", distribution.version));
        }
      }
    }
    auto it = owners->find(rel);
    return it == owners->end() ? std::string() : it->second;
  };
  auto staged_copy = [&](const std::string& rel) {
    return under(staging, str_cat(source_of[rel], "/", rel));
  };
  const DestinationCheck destinations{root, facts.scheme, trashed, source, owner, staged_copy};
  std::vector<std::string> to_move;
  for (const std::string& rel : placed) {
    Result<bool> there = destinations.check(rel, journal.vacated_dirs);
    if (!there) return std::move(there).error().with_note(unchanged);
    if (!*there) to_move.push_back(rel);
  }
  placed = std::move(to_move);
  std::set<std::string> new_dirs;
  std::set<std::string> seen_dirs;
  for (const std::string& rel : placed) {
    fs::path parent = fs::path(rel).parent_path();
    std::vector<std::string> chain;
    // A trashed file on the way is gone by the time folders are created.
    while (!parent.empty() && seen_dirs.insert(parent.string()).second &&
           (!exists_no_follow(under(root, parent.string())) ||
            trashed.count(parent.generic_string()))) {
      chain.push_back(parent.generic_string());
      parent = parent.parent_path();
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (new_dirs.insert(*it).second) journal.created_dirs.push_back(*it);
    }
  }
  for (const std::string& rel : placed) {
    journal.placed.push_back(str_cat(source_of[rel], "/", rel));
  }

  // 4. Commit under the journal, written (and the staged files) durably first.
  RealFileSystem file_system;
  const std::string journal_path = under(root, kJournalName);
  if (Result<void> flushed = flush_to_disk(root); !flushed) {
    return std::move(flushed).error().with_note(unchanged);
  }
  WV_TRY(file_system.write_file_atomic(journal_path, journal.serialize()));
  if (Result<void> flushed = flush_to_disk(root); !flushed) {  // the journal's name too
    (void)file_system.remove(journal_path);
    return std::move(flushed).error().with_note(unchanged);
  }
  const std::string trash = under(root, kTrashName);
  int moves = 0;
  auto commit = [&]() -> Result<void> {
    auto tick = [&]() -> Result<void> {
      if (options.fail_after_moves >= 0 && moves++ >= options.fail_after_moves) {
        return make_error(ErrorCode::kIo, str_cat("simulated failure after ",
                                                  options.fail_after_moves, " moves"));
      }
      return {};
    };
    std::set<std::string> trash_dirs;
    for (const std::string& rel : journal.trashed) {
      WV_TRY(tick());
      const std::string to = under(trash, rel);
      const bool known = !trash_dirs.insert(fs::path(to).parent_path().string()).second;
      WV_TRY(move_file(under(root, rel), to, known));
    }
    for (const std::string& rel : journal.vacated_dirs) {
      std::error_code dir_error;
      fs::remove(under(root, rel), dir_error);
      if (dir_error) {
        return make_error(ErrorCode::kIo, str_cat("cannot remove the emptied folder ",
                                                  in_backticks(under(root, rel)), ": ",
                                                  dir_error.message()));
      }
    }
    for (const std::string& rel : journal.created_dirs) {
      std::error_code dir_error;
      fs::create_directory(under(root, rel), dir_error);
      if (dir_error) {
        return make_error(ErrorCode::kIo, str_cat("cannot create ", in_backticks(under(root, rel)),
                                                  ": ", dir_error.message()));
      }
    }
    for (const std::string& staged : journal.placed) {
      WV_TRY(tick());
      WV_TRY(move_file(under(staging, staged), under(root, destination_of(staged)), true));
    }
    return {};
  };
  if (Result<void> done = commit(); !done) {
    Error error = std::move(done).error();
    if (options.leave_journal_on_failure) {
      staging_guard.path.clear();  // a killed process leaves everything behind
      return std::move(error).with_note(
          str_cat("the journal ", in_backticks(journal_path), " was left for the next sync"));
    }
    if (Result<void> undone = roll_back(root, journal); !undone) {
      return std::move(error).with_note(
          str_cat("rolling back failed too (", undone.error().message, "); the journal ",
                  in_backticks(journal_path), " is kept and the next sync will retry"));
    }
    (void)file_system.remove(journal_path);
    remove_quietly(trash);
    return std::move(error).with_note(str_cat("the environment ", in_backticks(root),
                                              " was restored to its state before the sync"));
  }
  // Folders the removed distributions leave empty go before the commit point, under the
  // journal: a sync killed after it must not leave an empty `*.dist-info` folder behind (the
  // next sync would list it as installed and fail to read its RECORD). A roll back recreates
  // the parents of the files it restores.
  std::set<std::string, std::greater<>> parents;
  for (const std::string& rel : journal.trashed) {
    for (fs::path parent = fs::path(rel).parent_path(); !parent.empty();
         parent = parent.parent_path()) {
      parents.insert(parent.generic_string());
    }
  }
  const std::set<std::string> keep = {facts.scheme.purelib, facts.scheme.platlib,
                                      facts.scheme.scripts, facts.scheme.headers};
  for (const std::string& rel : parents) {
    if (keep.count(rel)) continue;
    const std::string path = under(root, rel);
    if (fs::is_directory(path, ec) && fs::is_empty(path, ec)) fs::remove(path, ec);
  }
  // The commit point: without the journal the new state stands. The moves are made durable
  // first; if that fails, the journal stays and the next sync rolls back to the old state.
  if (Result<void> flushed = flush_to_disk(root); !flushed) {
    return std::move(flushed).error().with_note(
        str_cat("the journal ", in_backticks(journal_path), " was left; the next sync restores "
                "the environment to its state before this one"));
  }
  WV_TRY(file_system.remove(journal_path));
  remove_quietly(trash);
  return {};
}

}  // namespace

Result<void> sync_into(SyncReport& report, const SyncOptions& options,
                       const lock::Lockfile& lockfile, const targets::HostProfile& live,
                       WheelStore& store) {
  report = SyncReport{};
  report.dry_run = options.dry_run;
  WV_ASSIGN_OR_RETURN(
      EnvironmentPlan environment,
      plan_environment(options.venv, options.python,
                       options.python_request ? &*options.python_request : nullptr));
  report.plan.environment = environment.root;
  if (environment.mode != EnvironmentMode::kKeep) {
    // Select with the Python the environment would get before making it: a host that no
    // target fits is refused before anything is created or replaced.
    WV_TRY(select_into(report, lockfile, live, *environment.base, options.select));
  }
  if (options.dry_run) {
    return install_into(report, options, lockfile, live, store, environment, nullptr);
  }
  WV_ASSIGN_OR_RETURN(EnvironmentTransaction transaction, EnvironmentTransaction::begin(environment));
  Result<void> done = install_into(report, options, lockfile, live, store, environment, &transaction);
  if (!done) {
    Error error = std::move(done).error();
    if (std::string note = transaction.abort(); !note.empty()) error.notes.push_back(std::move(note));
    return error;
  }
  transaction.commit();
  return {};
}

Result<SyncReport> sync(const SyncOptions& options, const lock::Lockfile& lockfile,
                        const targets::HostProfile& live, WheelStore& store) {
  SyncReport report;
  WV_TRY(sync_into(report, options, lockfile, live, store));
  return report;
}

std::string render_sync_json(const SyncReport& report, const lock::Lockfile& lockfile,
                             const std::string& error) {
  JsonWriter json;
  json.begin_object().field("version", 1).field("dry_run", report.dry_run);
  write_plan_json(json, report.plan);
  json.key("extras").strings(report.selection.extras);
  json.key("groups").strings(report.selection.groups);
  json.key("host");
  if (report.host) write_host_json(json, *report.host); else json.null();
  json.key("targets");
  write_verdicts_json(json, lockfile, report.verdicts);
  json.key("notes").strings(report.notes);
  json.key("error");
  json.text_or_null(error);
  json.end();
  return json.text();
}

}  // namespace wv::install
