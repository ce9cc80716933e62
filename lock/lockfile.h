// The lockfile model: what `wvlock lock` writes to pylock.toml and `wvlock sync` reads back.
// A valid PEP 751 file (lock-version 1.0) with variant metadata inline per PEP 825
// (`[packages.variants-json]`) and wvlock's per-target choices in the `tool` tables PEP 751
// reserves (docs/lockfile.md). This header is the only thing locking and installing share.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/name.h"
#include "src/pkg/variant.h"
#include "targets/target.h"

namespace wv::lock {

/// The lock-version wvlock writes; a reader accepts any 1.x and refuses another major.
inline constexpr std::string_view kLockVersion = "1.0";
inline constexpr std::string_view kCreatedBy = "wvlock";

/// One wheel or sdist file of a locked package (PEP 751 `[[packages.wheels]]`).
struct LockedFile {
  std::string name;   ///< the file name
  std::string url;    ///< http(s):// or file:// (exactly one of url and path is set)
  std::string path;   ///< a local path, relative to the lockfile's folder when it can be
  std::optional<std::uint64_t> size;
  std::string sha256;  ///< 64 lower-case hex digits; required
  /// When the index says the file was uploaded (PEP 700), as pkg::normalize_upload_time()
  /// spells it; "" when unknown. Written as a TOML offset date-time (PEP 751).
  std::string upload_time;
  int line = 0;        ///< where it was read (0 when built in memory)

  friend bool operator==(const LockedFile&, const LockedFile&) = default;
};

/// PEP 751 `[packages.directory]`: a local source tree (a path source, or the project).
struct LockedDirectory {
  std::string path;  ///< relative to the lockfile's folder when it can be (POSIX separators)
  bool editable = false;
  std::string subdirectory;
  friend bool operator==(const LockedDirectory&, const LockedDirectory&) = default;
};

/// PEP 751 `[packages.vcs]`: a git source locked to one commit.
struct LockedVcs {
  std::string type = "git";
  std::string url;                 ///< credentials never included; "" for a local repository
  /// A local repository (PEP 751 `vcs.path`): relative to the lockfile's folder when it can be.
  std::string path;
  std::string requested_revision;  ///< the tag, branch or rev asked for ("" = HEAD); informational
  std::string commit_id;           ///< the full 40-hex commit: what install checks out
  std::string subdirectory;
  friend bool operator==(const LockedVcs&, const LockedVcs&) = default;
};

/// PEP 751 `[packages.archive]`: an sdist (or other source archive) named by a URL or path
/// source or a direct reference; `file.name` is its file name. (A wheel from a path or URL
/// source is a `[[packages.wheels]]` entry with that path or url: installers judge its tags
/// like any wheel's.)
struct LockedArchive {
  LockedFile file;
  std::string subdirectory;
  friend bool operator==(const LockedArchive&, const LockedArchive&) = default;
};

/// What one target uses of one package version.
struct TargetUse {
  /// Wheels this target keeps, best first: the one its resolution chose, then every other
  /// wheel of the version compatible with the target with the same dependencies. Empty: the
  /// target builds the package from its source (sdist, directory, vcs or archive).
  std::vector<std::string> wheels;
  /// The dependency edges of this package for this target: "name==version" (extras as
  /// "name[extra]==version"), sorted.
  std::vector<std::string> dependencies;
  /// extra -> the further edges `name[extra]` adds (PEP 508 extras of this package).
  std::map<std::string, std::vector<std::string>> extra_dependencies;

  friend bool operator==(const TargetUse&, const TargetUse&) = default;
};

/// One `[[packages]]` entry: a package version used by at least one target.
struct LockedPackage {
  pkg::PackageName name;
  std::string version;  ///< normalised PEP 440
  std::string marker;   ///< where some target needs it (for standard installers); "" = always
  std::string requires_python;
  std::string index;    ///< the source that listed it: the index URL (or folder)
  /// The configured index's name (`[[tool.wvlock.index]]`); "" for find-links. Written as
  /// `[packages.tool.wvlock] index-name`.
  std::string index_name;
  std::vector<LockedFile> wheels;    ///< sorted by name
  std::optional<LockedFile> sdist;
  /// At most one of these three, and then no wheels or sdist (PEP 751). For directory and
  /// vcs entries `version` is written in `[packages.tool.wvlock] version`, since PEP 751
  /// forbids a top-level version for source trees.
  std::optional<LockedDirectory> directory;
  std::optional<LockedVcs> vcs;
  std::optional<LockedArchive> archive;
  /// The project itself (`[packages.tool.wvlock] project = true`): a directory entry with
  /// path "." that sync installs (editable when `directory->editable`) unless told not to. It
  /// has no per-target uses: its dependencies are the targets' roots.
  bool is_project = false;
  /// A workspace member (`[packages.tool.wvlock] workspace-member = true`): an editable
  /// directory entry locked for the whole workspace; sync installs it when it is selected
  /// (`--package`, `--all-packages`) or reached from what is (docs/lockfile.md).
  bool workspace_member = false;
  /// PEP 825 `[packages.variants-json]`: the version's variant metadata, used labels only.
  std::optional<pkg::VariantsMetadata> variants;
  /// target name -> what it uses.
  std::map<std::string, TargetUse> targets;
  int line = 0;

  const LockedFile* find_wheel(std::string_view filename) const;
  /// Built from source at install (an sdist, directory, vcs or archive entry): what a target
  /// whose `wheels` list is empty installs.
  bool has_source() const { return sdist || directory || vcs || archive; }
};

/// One declared target as resolved: its facts and its providers' output.
struct LockedTarget {
  std::string name;
  /// The target as declared: platform, Python and hardware facts (source kDeclared; the
  /// platform's implied ones kDefault) and its declared `properties` (its own provider answers
  /// for those namespaces). Written as `facts` (targets::declared_facts) and `properties`.
  targets::Target declared;
  /// The PEP 508 marker that describes the target's platform (written to `environments`).
  std::string marker;
  /// namespace -> feature -> ordered supported values, as the providers answered.
  std::map<std::string, pkg::FeatureValues> provider_output;
  /// The target's direct requirements (the roots of its closure): "name==version", sorted.
  std::vector<std::string> roots;
  /// The roots each project extra (`[project.optional-dependencies]`) adds.
  std::map<std::string, std::vector<std::string>> extra_roots;
  /// The roots each dependency group (`[dependency-groups]`, PEP 735) adds.
  std::map<std::string, std::vector<std::string>> group_roots;
  int line = 0;

  friend bool operator==(const LockedTarget&, const LockedTarget&) = default;
};

/// What one install or export asks of a target: the project extras and dependency groups whose
/// roots it follows besides the target's own roots (normalised names).
struct Selection {
  std::vector<std::string> extras;
  std::vector<std::string> groups;
  /// false: the groups' roots alone, not the target's own (uv's `--only-group`).
  bool dependencies = true;
};

struct Lockfile {
  std::string lock_version = std::string(kLockVersion);
  std::string created_by = std::string(kCreatedBy);
  std::string requires_python;
  std::vector<std::string> environments;
  std::vector<std::string> extras;
  std::vector<std::string> dependency_groups;
  std::vector<std::string> default_groups;
  std::vector<LockedPackage> packages;  ///< sorted by (name, version)
  /// "xxh3-128:<hex>" of everything resolution read from the project.
  std::string input_hash;
  /// The files besides pyproject.toml that resolution read (a path source's pyproject.toml,
  /// setup.cfg, setup.py), relative to the project folder -> "sha256:<hex>": a stale lock names
  /// the one that changed. Empty for a project without path sources.
  std::map<std::string, std::string> input_files;
  std::vector<LockedTarget> targets;  ///< in declared order

  const LockedTarget* find_target(std::string_view name) const;
  /// The project's own entry (LockedPackage::is_project), or nullptr for a virtual project.
  const LockedPackage* project() const;
  /// The entry of `name` used by `target`, or nullptr.
  const LockedPackage* find_package_for_target(const pkg::PackageName& name,
                                               std::string_view target) const;
  /// Every package entry `target` uses, sorted by name.
  std::vector<const LockedPackage*> closure(std::string_view target) const;
  /// The entries `target` needs with the given dependency groups: the packages reachable from
  /// its roots and its extras' roots (a target's declared extras are part of its install) along
  /// its dependency edges, sorted by name. `requested_extras` are accepted for symmetry with
  /// PEP 751. Without `with_dependencies` (uv's `--only-group`) only the groups' roots are
  /// followed, not the project's own dependencies and extras.
  std::vector<const LockedPackage*> closure(std::string_view target,
                                            const std::vector<std::string>& requested_extras,
                                            const std::vector<std::string>& groups,
                                            bool with_dependencies = true) const;
  /// The entries reachable from `target`'s roots and from the roots of exactly the extras and
  /// groups `selection` names (one the target did not lock adds nothing), sorted by name: what
  /// a PEP 751 installer given those extras and groups installs from this target's packages.
  std::vector<const LockedPackage*> selected_closure(std::string_view target,
                                                     const Selection& selection) const;
  /// The edges of the workspace members `target` uses ("name==version", and
  /// "name[extra]==version" for each extra the target locks of one), sorted.
  std::vector<std::string> member_edges(std::string_view target) const;
  /// The packages `target` reaches from `edges` ("name[extra]==version") along its dependency
  /// edges, by name.
  std::map<pkg::PackageName, const LockedPackage*> reachable(std::string_view target,
                                                             std::vector<std::string> edges) const;
};

/// The file name `file`'s url or path ends with (the last `/` segment; a url's query and
/// fragment dropped and `%XX` decoded). PEP 751 lets a file's `name` be omitted when it is this,
/// and an archive has no `name`: this is its `LockedArchive::file.name`.
std::string source_file_name(const LockedFile& file);

/// The package name of a dependency edge or root: "name==version" or "name[extra]==version"
/// -> "name".
std::string_view edge_name(std::string_view edge);
/// The package an edge names, as a name; an error when the edge's name is not a normalised one
/// (a lockfile's edges are, once read_lockfile() has validated them).
Result<pkg::PackageName> edge_package(std::string_view edge);

/// Sets each package's `marker` to what a PEP 751 installer needs to select it exactly where
/// some target does (docs/lockfile.md, "Markers"): per platform marker of the targets that use
/// it, `and` the way those targets reach it (`"x" in extras`, `"g" in dependency_groups`, `or`ed;
/// nothing when a root reaches it), `or`ed across platforms; no marker when every platform of
/// the lock needs it unconditionally. An error only when a target's marker does not parse.
Result<void> assign_package_markers(Lockfile& lockfile);

/// Puts packages, wheels and lists in the canonical order the writer relies on.
void canonicalize(Lockfile& lockfile);

/// Checks what a reader must: supported lock-version major, every wheel with a sha256, names and
/// versions present, each target's wheels listed in the package, every target's dependency edge
/// pointing at a package the target uses, one version per package per target, one source kind
/// per entry with PEP 751's rules for directory, vcs (git only) and archive sources, at most one
/// project entry (docs/lockfile.md, "Source trees, git and archives"). The first problem
/// is reported with the line it was read from (when known) and what was expected.
Result<void> validate(const Lockfile& lockfile, std::string_view path);

/// Renders pylock.toml text. Same model, same bytes, on any machine.
std::string write_lockfile(const Lockfile& lockfile);

/// Parses pylock.toml text (toml++), then validate()s it. `path` names the file in errors.
Result<Lockfile> read_lockfile(std::string_view text, std::string_view path);

}  // namespace wv::lock
