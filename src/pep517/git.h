// Git sources (DESIGN.md §2.2: `{ git = URL, tag | branch | rev }`, locked to a commit): a cache
// of one bare database per repository, resolution of a reference to its full commit id, and
// immutable checkouts of a commit. Runs the `git` program (never a library) in a clean
// environment, so no user or system configuration changes what is fetched or checked out.
// POSIX only.
//
// Cache layout under `root` (the cache folder's git part):
//   db/<key>/             bare repository: refs/remotes/origin/* (branches), refs/tags/*,
//                         refs/wvlock/remote-head (the remote's HEAD), refs/wvlock/<commit>
//                         (every commit resolved or checked out, kept reachable so that no
//                         gc ever drops it after a force-push)
//   db/<key>.lock         flock(2) held while a process fetches into db/<key> or makes a
//                         checkout of it
//   checkouts/<key>/<commit>/   a tree, made once under a temporary name and renamed
//   home/                 the HOME of every git run (no user configuration is read)
// <key> is the repository's name plus a short hash of its URL without credentials.
//
// Not supported: submodules (a checkout has none of them filled in) and Git LFS (pointer files
// stay pointer files).
#pragma once

#include <string>

#include "src/base/result.h"

namespace wv::build {

/// A git source as the project file writes it: { git = URL, tag | branch | rev }. At most one
/// of tag/branch/rev; none = the remote's default branch (HEAD).
struct GitReference {
  std::string url;
  std::string tag;
  std::string branch;
  std::string rev;  ///< a full or abbreviated commit id, or any ref (`refs/pull/1/head`)
};

/// The text the lockfile records as PEP 751 `requested-revision`: the tag, the branch, the rev,
/// or "" for HEAD.
std::string requested_revision(const GitReference& reference);

/// The cache folder name of a repository: its name and a hash of `url` without credentials
/// (`tool-0123456789abcdef`), so that two spellings with other passwords share one database.
std::string git_url_key(const std::string& url);

class GitCache {
 public:
  /// `root`: the cache folder's git part (<cache>/git). `offline`: never touch the network.
  GitCache(std::string root, bool offline);

  /// The full 40-hex commit id the reference names now. Fetches the repository's branches and
  /// tags into the database first unless offline; offline it resolves from what the database
  /// holds and says to run without --offline when it cannot.
  Result<std::string> resolve(const GitReference& reference);

  /// The folder holding a checkout of `commit` (40 hex) of `url`, made once and never modified
  /// afterwards (a second call returns it without running git). Fetches the commit only when
  /// the database lacks it and not offline, so it works after the remote moved on, was
  /// force-pushed or is gone, as long as the database has the commit.
  Result<std::string> checkout(const std::string& url, const std::string& commit);

 private:
  std::string root_;
  bool offline_;
};

}  // namespace wv::build
