// Where a package comes from when it is not an index (DESIGN.md §2.2): a local source tree, an
// archive (wheel or sdist) by path or URL, or a git repository at a tag, branch or commit.
// `[tool.wvlock.sources]` entries and PEP 508 direct references (`name @ URL`) both become one
// of these; the lock layer pins the package to it, the build layer reads and builds it.
// Pure values, no I/O. Cheap to include.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::pkg {

enum class DirectKind : std::uint8_t {
  kDirectory,  ///< a folder with a pyproject.toml (or setup.py)
  kArchive,    ///< a .whl, .tar.gz or .zip by path or URL
  kGit,        ///< a git repository
};

struct DirectSource {
  DirectKind kind = DirectKind::kDirectory;
  /// kDirectory/kArchive: an absolute path, or an http(s) URL for a remote archive. kGit: the
  /// repository URL as git takes it (no `git+` prefix, no `@rev`), or an absolute path.
  std::string location;
  bool editable = false;  ///< kDirectory only
  /// kGit: at most one is set; none = the default branch.
  std::string tag;
  std::string branch;
  std::string rev;
  /// The folder inside the tree or repository that holds the package ("" = its root).
  std::string subdirectory;
  /// kArchive: the sha256 a direct reference's `#sha256=` fragment gave ("" = not given).
  std::string sha256;

  /// A text naming this source uniquely (the catalog's pin key, messages, the input-hash):
  /// "path:/abs/dir", "path:/abs/dir (editable)", "url:https://host/x.whl", "git:URL@tag=v1#sub".
  std::string key() const;
  /// "the folder ../mylib", "git https://host/repo at tag v1.2": for messages.
  std::string describe() const;
  /// The revision asked for, as PEP 751 `requested-revision` records it ("" = HEAD).
  std::string requested_revision() const;

  friend bool operator==(const DirectSource&, const DirectSource&) = default;
};

/// Whether a file name is an archive a direct source may name (.whl, .tar.gz, .tgz, .zip).
bool is_archive_name(std::string_view name);

/// A PEP 508 direct reference's URL as a source: `git+https://host/r.git@v1#subdirectory=x`
/// (git+https, git+ssh, git+http, git+file), `file:///abs/dir` (a folder unless it names an
/// archive), `file:///abs/x.whl`, `https://host/x-1.0.tar.gz#sha256=...`. Percent escapes in
/// file URLs are decoded. kInvalidInput names the URL and what was expected.
Result<DirectSource> parse_direct_url(std::string_view url);

}  // namespace wv::pkg
