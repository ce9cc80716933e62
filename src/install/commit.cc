// What the commit changes, checked, and the journaled moves with their flushes and roll back.
#include "src/install/commit.h"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "src/base/str.h"
#include "src/install/destinations.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;  // lexical only: the folders of a relative path

// The files that leave: those the RECORD of every distribution the plan upgrades or removes
// lists, and the byte-code caches of its modules. A folder a RECORD lists is not removed as
// such (it could hold other distributions' files); it goes only when removing its files
// empties it.
Result<void> add_leaving(const FileSystem& file_system, const CommitRequest& request,
                         Journal& journal, std::set<std::string>& trashed) {
  // By shown name: a distribution with no valid name is removed by its folder's.
  std::map<std::string_view, const InstalledDistribution*> installed_by_name;
  for (const InstalledDistribution& distribution : request.installed) {
    installed_by_name[distribution.shown_name()] = &distribution;
  }
  for (const PlanItem& item : request.plan.items) {
    if (!removes_files(item.action)) continue;
    auto it = installed_by_name.find(item.shown_name());
    if (it == installed_by_name.end()) continue;
    WV_ASSIGN_OR_RETURN(std::vector<std::string> old_files,
                        installed_files(request.scheme, *it->second));
    for (const std::string& rel : old_files) {
      if (check_member_name(rel).empty() && trashed.count(rel) == 0) {
        Result<FileInfo> info = file_system.stat(path_join(request.root, rel));
        if (info && info->type != FileType::kDirectory) {
          trashed.insert(rel);
          journal.trashed.push_back(rel);
        }
      }
      for (std::string& cache : pycache_of(file_system, request.root, rel)) {
        if (trashed.insert(cache).second) journal.trashed.push_back(std::move(cache));
      }
    }
  }
  return {};
}

// Every installed file -> "`name version`" of the distribution whose RECORD lists it.
std::map<std::string, std::string> record_owners(const CommitRequest& request) {
  std::map<std::string, std::string> owners;
  for (const InstalledDistribution& distribution : request.installed) {
    Result<std::vector<std::string>> listed = installed_files(request.scheme, distribution);
    if (!listed) continue;
    for (const std::string& file : *listed) {
      owners.emplace(file, str_cat(distribution.shown_name(), " ", distribution.version));
    }
  }
  return owners;
}

// Every path the commit touches stays inside the environment, and every destination takes the
// place only of what DestinationCheck allows. Returns the destinations to move into; the
// folders that leave whole join journal.vacated_dirs.
Result<std::vector<std::string>> check_destinations(const FileSystem& file_system,
                                                    const CommitRequest& request,
                                                    const StagedFiles& staged,
                                                    const std::set<std::string>& trashed,
                                                    Journal& journal) {
  const std::string& root = request.root;
  const std::string real_root = file_system.real_path(root).value_or(root);
  std::set<std::string> checked;
  for (const std::string& rel : journal.trashed) {
    WV_TRY(check_inside(file_system, root, real_root, rel, checked));
  }
  for (const std::string& rel : staged.placed) {
    WV_TRY(check_inside(file_system, root, real_root, rel, checked));
  }
  std::optional<std::map<std::string, std::string>> owners;  // read only to word a refusal
  auto owner = [&](const std::string& rel) -> std::string {
    if (!owners) owners = record_owners(request);
    auto it = owners->find(rel);
    return it == owners->end() ? std::string() : it->second;
  };
  const DestinationCheck destinations{
      file_system, root, request.scheme, trashed,
      [&](const std::string& rel) { return staged.source(rel); }, owner,
      [&](const std::string& rel) { return staged.staged_path(rel); }};
  std::vector<std::string> to_move;
  for (const std::string& rel : staged.placed) {
    Result<bool> there = destinations.check(rel, journal.vacated_dirs);
    if (!there) return std::move(there).error().with_note(unchanged_note(root));
    if (!*there) to_move.push_back(rel);
  }
  return to_move;
}

// The folders the moves need that are not there yet, outermost first. A trashed file on the
// way is gone by the time folders are created.
void add_created_dirs(const FileSystem& file_system, const std::string& root,
                      const std::vector<std::string>& to_move,
                      const std::set<std::string>& trashed, Journal& journal) {
  std::set<std::string> new_dirs;
  std::set<std::string> seen_dirs;
  for (const std::string& rel : to_move) {
    fs::path parent = fs::path(rel).parent_path();
    std::vector<std::string> chain;
    while (!parent.empty() && seen_dirs.insert(parent.generic_string()).second &&
           (!file_system.exists(path_join(root, parent.generic_string())) ||
            trashed.count(parent.generic_string()))) {
      chain.push_back(parent.generic_string());
      parent = parent.parent_path();
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (new_dirs.insert(*it).second) journal.created_dirs.push_back(*it);
    }
  }
}

// The first folder above `rel` that the environment does not have yet ("" when every one
// exists, or when a file that leaves stands in the way: a folder then replaces it file by file).
std::string first_missing_folder(const FileSystem& file_system, const std::string& root,
                                 const std::string& rel, const std::set<std::string>& trashed,
                                 std::map<std::string, bool>& exists) {
  std::string prefix;
  for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
    prefix = rel.substr(0, slash);
    if (trashed.count(prefix)) return "";
    auto [it, fresh] = exists.emplace(prefix, false);
    if (fresh) it->second = file_system.exists(path_join(root, prefix));
    if (!it->second) return prefix;
  }
  return "";
}

// The moves: a folder that does not exist in the environment yet and whose staged copy holds
// exactly the files one wheel places there (a new package's `torch/`) moves in one rename; every
// other file moves alone. Returns the destinations (folders among them) and their staged
// copies (`N/rel`), pairwise.
std::pair<std::vector<std::string>, std::vector<std::string>> group_moves(const FileSystem& file_system, const std::string& root,
                                     const StagedFiles& staged, const std::vector<std::string>& to_move,
                                     const std::set<std::string>& trashed) {
  std::map<std::string, bool> exists;
  std::map<std::string, std::vector<const std::string*>> by_folder;
  std::vector<std::string> moves;
  std::vector<std::string> sources;
  auto move_alone = [&](const std::string& rel) {
    moves.push_back(rel);
    sources.push_back(staged.staged_rel(rel));
  };
  for (const std::string& rel : to_move) {
    std::string folder = first_missing_folder(file_system, root, rel, trashed, exists);
    if (folder.empty()) move_alone(rel);
    else by_folder[folder].push_back(&rel);
  }
  // How many files each wheel staged under each candidate folder (a file another wheel wins
  // is staged too, and must not move in with the folder).
  std::map<std::pair<std::size_t, std::string>, std::size_t> staged_under;
  for (const auto& [key, member] : staged.member_of) {
    (void)member;
    for (std::size_t slash = key.second.find('/'); slash != std::string::npos;
         slash = key.second.find('/', slash + 1)) {
      std::string prefix = key.second.substr(0, slash);
      if (by_folder.count(prefix)) ++staged_under[{key.first, prefix}];
    }
  }
  for (const auto& [folder, files] : by_folder) {
    const std::size_t wheel = staged.source_of.at(*files.front());
    bool whole = staged_under[{wheel, folder}] == files.size();
    for (const std::string* rel : files) whole = whole && staged.source_of.at(*rel) == wheel;
    if (whole) {
      moves.push_back(folder);
      sources.push_back(str_cat(wheel, "/", folder));
    } else {
      for (const std::string* rel : files) move_alone(*rel);
    }
  }
  return {std::move(moves), std::move(sources)};
}

// The journal durable under its name before the first move: its content is flushed before
// the rename publishes it (write_file_atomic), the rename by one flush of the file system. The
// staged files need no flush of their own before it: until the commit point a crash rolls
// back, and what roll_back moves back to staging is discarded whatever it holds; that flush,
// and the one before the commit point, make them durable with the rest.
Result<void> write_journal(FileSystem& file_system, const std::string& root,
                           const Journal& journal) {
  const std::string journal_path = path_join(root, kJournalName);
  WV_TRY(file_system.write_file_atomic(journal_path, journal.serialize()));
  if (Result<void> flushed = file_system.sync_file_system(root); !flushed) {
    (void)file_system.remove(journal_path);
    return std::move(flushed).error().with_note(unchanged_note(root));
  }
  return {};
}

// The journal's moves, in its order: old files to the trash, emptied folders out, new folders
// in, staged files into place.
Result<void> apply(FileSystem& file_system, const std::string& root, const Journal& journal) {
  const std::string staging = path_join(root, journal.staging);
  const std::string trash = path_join(root, kTrashName);
  std::set<std::string> trash_dirs;
  for (const std::string& rel : journal.trashed) {
    const std::string to = path_join(trash, rel);
    const bool known = !trash_dirs.insert(path_parent(to)).second;
    WV_TRY(move_file(file_system, path_join(root, rel), to, known));
  }
  for (const std::string& rel : journal.vacated_dirs) {
    WV_TRY(io_failure(file_system.remove(path_join(root, rel))));
  }
  for (const std::string& rel : journal.created_dirs) {
    WV_TRY(io_failure(file_system.create_directory(path_join(root, rel))));
  }
  for (const std::string& staged : journal.placed) {
    WV_TRY(move_file(file_system, path_join(staging, staged),
                     path_join(root, destination_of(staged)), true));
  }
  return {};
}

// After a failed move: the roll back, and what the error then says about the environment.
Error undo(FileSystem& file_system, const std::string& root, const Journal& journal, Error error) {
  const std::string journal_path = path_join(root, kJournalName);
  if (Result<void> undone = roll_back(file_system, root, journal); !undone) {
    return std::move(error).with_note(
        str_cat("rolling back failed too (", undone.error().message, "); the journal ",
                in_backticks(journal_path), " is kept and the next sync will retry"));
  }
  (void)file_system.remove(journal_path);
  (void)file_system.remove_all(path_join(root, kTrashName));
  return std::move(error).with_note(str_cat("the environment ", in_backticks(root),
                                            " was restored to its state before the sync"));
}

// Folders the removed distributions leave empty go before the commit point, under the
// journal: a sync killed after it must not leave an empty `*.dist-info` folder behind (the
// next sync would list it as installed and fail to read its RECORD). A roll back recreates
// the parents of the files it restores. The scheme's folders stay.
void remove_emptied_folders(FileSystem& file_system, const CommitRequest& request,
                            const Journal& journal) {
  std::set<std::string, std::greater<>> parents;  // deepest first
  for (const std::string& rel : journal.trashed) {
    for (fs::path parent = fs::path(rel).parent_path(); !parent.empty();
         parent = parent.parent_path()) {
      parents.insert(parent.generic_string());
    }
  }
  const InstallScheme& scheme = request.scheme;
  const std::set<std::string> keep = {scheme.purelib, scheme.platlib, scheme.scripts,
                                      scheme.headers};
  for (const std::string& rel : parents) {
    if (keep.count(rel)) continue;
    const std::string path = path_join(request.root, rel);
    Result<FileInfo> info = file_system.stat(path);
    if (!info || info->type != FileType::kDirectory) continue;
    Result<std::vector<DirectoryEntry>> entries = file_system.list_directory(path);
    if (entries && entries->empty()) (void)file_system.remove(path);
  }
}

}  // namespace

Result<Journal> plan_commit(const FileSystem& file_system, const CommitRequest& request,
                            const StagedFiles& staged) {
  Journal journal;
  journal.staging = std::string(path_filename(staged.staging));
  std::set<std::string> trashed;
  WV_TRY(add_leaving(file_system, request, journal, trashed));
  WV_ASSIGN_OR_RETURN(std::vector<std::string> to_move,
                      check_destinations(file_system, request, staged, trashed, journal));
  auto [moves, sources] = group_moves(file_system, request.root, staged, to_move, trashed);
  add_created_dirs(file_system, request.root, moves, trashed, journal);
  journal.placed = std::move(sources);
  return journal;
}

Result<void> commit(FileSystem& file_system, const CommitRequest& request, const Journal& journal) {
  const std::string& root = request.root;
  const std::string journal_path = path_join(root, kJournalName);
  WV_TRY(write_journal(file_system, root, journal));
  if (Result<void> moved = apply(file_system, root, journal); !moved) {
    return undo(file_system, root, journal, std::move(moved).error());
  }
  remove_emptied_folders(file_system, request, journal);
  // The commit point: without the journal the new state stands. The moves are made durable
  // first; if that fails, the journal stays and the next sync rolls back to the old state.
  if (Result<void> flushed = file_system.sync_file_system(root); !flushed) {
    return std::move(flushed).error().with_note(
        str_cat("the journal ", in_backticks(journal_path), " was left; the next sync restores "
                "the environment to its state before this one"));
  }
  WV_TRY(file_system.remove(journal_path));
  (void)file_system.remove_all(path_join(root, kTrashName));
  return {};
}

}  // namespace wv::install
