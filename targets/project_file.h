// The project file (DESIGN.md §2): what wvlock reads from pyproject.toml — `[project]` name,
// requires-python, dependencies and optional-dependencies, `[dependency-groups]` (PEP 735) as
// raw strings for the lock layer, and `[tool.wvlock]` with its `[[tool.wvlock.target]]`
// tables, its `[[tool.wvlock.index]]` tables and `[tool.wvlock.sources]` (§2.1, uv's
// vocabulary), and uv's `[tool.uv]` as written (its indexes, sources, settings, constraints,
// overrides, conflicts and environments; `[tool.wvlock]` wins key by key). A project that
// declares no target locks for the platforms of uv's `environments`, else for this host
// (targets/default_targets.h). toml++ is used only by the reader's .cc files (project_*.cc,
// sharing the internal targets/project_reader.h). Errors name the file, line, column and key;
// unknown keys in `[tool.wvlock]`, a target, an index and a source entry are errors, in
// `[tool.uv]` warnings. Cheap to include.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "src/pkg/direct_source.h"
#include "src/pkg/name.h"
#include "targets/target.h"

namespace wv::targets {

/// One entry of a PEP 735 dependency group: a requirement string or `{include-group = "x"}`.
struct DependencyGroupEntry {
  std::string requirement;    ///< "" for an include
  std::string include_group;  ///< "" for a requirement
  bool operator==(const DependencyGroupEntry&) const = default;
};

/// One package index (`[[tool.wvlock.index]]`, or the `index-url` / `extra-index-url`
/// shorthands mapped onto one), in uv's vocabulary (DESIGN.md §2.1).
struct IndexConfig {
  /// As written (`[A-Za-z0-9._-]+`, compared exactly); the shorthands are named `index-url`
  /// and `extra-index-url`, `extra-index-url-2`, ... in the order written.
  std::string name;
  std::string url;  ///< a URL, file:// or a path (relative to the project folder), as written
  /// Only packages that `[tool.wvlock.sources]` pins to it come from it.
  bool explicit_only = false;
  /// Asked last, after every other index (`default = true`, or `index-url`).
  bool is_default = false;
  int line = 0;  ///< where it was declared in pyproject.toml (0 when built in memory)
  int column = 0;
  bool operator==(const IndexConfig&) const = default;
};

/// One entry of `[tool.wvlock.sources]`: pins a package to a named index where it applies.
/// An entry applies to a target when every condition it carries holds there: the target is
/// in `targets` (when given), `marker` is true in the target's marker environment (when
/// given), the target locks `extra` (when given; see Target::extras), and `group` names a
/// dependency group of the project (groups are locked for every target). The marker is
/// evaluated with the target's extras and every dependency group active.
struct SourceEntry {
  /// `index`: pinned to a declared index. `path`, `url`, `git`: the package comes from there
  /// (pkg::DirectSource, made by direct_source()).
  /// `workspace`: the package is a member of the project's workspace (`{ workspace = true }`,
  /// uv's); the CLI checks that it is one (cli/workspace.h).
  enum class Kind { kIndex, kPath, kUrl, kGit, kWorkspace };
  Kind kind = Kind::kIndex;
  std::string index;                 ///< the name of a declared index (kIndex)
  /// kPath: as written (relative to the project folder); kUrl: the archive URL; kGit: the
  /// repository URL.
  std::string location;
  bool editable = false;             ///< kPath folders only
  std::string tag, branch, rev;      ///< kGit: at most one
  std::string subdirectory;
  std::vector<std::string> targets;  ///< target names; empty = no target condition
  std::string marker;                ///< a PEP 508 marker; "" = none
  std::string extra;                 ///< PEP 685 normalised; "" = none
  std::string group;                 ///< PEP 735 normalised; "" = none
  int line = 0;  ///< where the entry was written
  int column = 0;
  bool operator==(const SourceEntry&) const = default;
};

/// `[tool.wvlock.workspace]` (else uv's `[tool.uv.workspace]`): the member folders, as globs
/// relative to the workspace root (docs/user-guide.md, "Workspaces").
struct WorkspaceConfig {
  struct Pattern {
    std::string glob;  ///< as written
    int line = 0;      ///< where it was written
    int column = 0;
    bool operator==(const Pattern&) const = default;
  };
  std::vector<Pattern> members;
  std::vector<Pattern> exclude;
  bool operator==(const WorkspaceConfig&) const = default;
};

/// Everything wvlock takes from pyproject.toml. Paths are as written; resolve them with
/// resolve_project_path() (they are relative to the folder of pyproject.toml).
/// `[build-system]` (PEP 517/518).
struct BuildSystemConfig {
  std::vector<std::string> requirements;  ///< `requires`
  std::string backend;                    ///< "" = not given
  std::vector<std::string> backend_path;  ///< relative to the project folder
};

struct ProjectConfig {
  std::string path;         ///< the pyproject.toml read (for messages)
  std::string project_dir;  ///< its folder

  /// `[build-system]`; nullopt when the file has none (the project is then virtual).
  std::optional<BuildSystemConfig> build_system;

  // [project]
  std::optional<std::string> name;
  std::optional<std::string> version;  ///< nullopt when not given (or dynamic)
  /// `dynamic`, as written (lower-cased by the reader).
  std::vector<std::string> dynamic;
  std::optional<std::string> requires_python;
  std::vector<std::string> dependencies;
  std::map<std::string, std::vector<std::string>> optional_dependencies;
  // [dependency-groups]
  std::map<std::string, std::vector<DependencyGroupEntry>> dependency_groups;

  // [tool.wvlock]
  /// `package`: false makes the project virtual (never installed itself); nullopt = decided by
  /// whether `[build-system]` exists (uv's rule).
  std::optional<bool> package;
  /// `cpu-fallback`: a GPU host that no GPU target serves may install a CPU target (with a
  /// warning) instead of being refused; install-time only, not part of the lock's inputs.
  bool cpu_fallback = false;
  /// `python`: the default Pythons of every target (`"3.12"` or `["3.11", "3.12"]`); empty
  /// when not given.
  std::vector<MajorMinor> python;
  std::optional<std::string> index_url;
  std::vector<std::string> extra_index_urls;
  /// Every index in the order they are asked (uv's order): `[[tool.wvlock.index]]` in
  /// declared order, then the `extra-index-url` shorthands, then the default index
  /// (`default = true` or `index-url`) last. Includes the shorthands.
  std::vector<IndexConfig> indexes;
  /// `index-strategy`: false = "first-index" (the first index that has a package answers for
  /// it alone), true = "unsafe-best-match" (every non-explicit index's versions are merged).
  bool index_best_match = false;
  /// `[tool.wvlock.sources]`: PEP 503 normalised package name -> its entries, as written.
  std::map<pkg::PackageName, std::vector<SourceEntry>> sources;
  std::vector<std::string> find_links;
  /// The workspace this file is the root of; nullopt when it declares none.
  std::optional<WorkspaceConfig> workspace;
  /// Where `[project] name` was written (0 when not given), for workspace errors.
  int name_line = 0;
  int name_column = 0;
  std::optional<std::string> prerelease;  ///< as written, one of kPrereleaseModes (prerelease.h)
  /// `keyring-provider`: "subprocess" asks the `keyring` command for index passwords
  /// (docs/network.md); "disabled" or "" (not given) does not.
  std::string keyring_provider;
  /// `default-groups`: the dependency groups sync installs when none is asked for (uv's
  /// setting; `"all"` is every declared group), normalised and sorted; nullopt when not given.
  std::optional<std::vector<std::string>> default_groups;
  /// Optional variant providers enabled for every target (`enable-providers = ["debug"]`).
  std::vector<std::string> enabled_providers;
  /// `constraint-dependencies` and `override-dependencies` (`[tool.wvlock]`'s, else uv's), as
  /// written; the lock layer reads them (lock::ProjectRequirements).
  std::vector<std::string> constraint_dependencies;
  std::vector<std::string> override_dependencies;
  /// uv's `conflicts`: sets of extras (normalised) that no target locks two of. A project
  /// without declared targets gets one target per way to choose among them.
  std::vector<std::vector<std::string>> conflicts;
  /// uv's `environments` and `required-environments`, as written, when they made the targets.
  std::vector<std::string> environments;
  /// The targets, in file order: declared, or made when none is (`origin` says how).
  std::vector<Target> targets;
  enum class TargetOrigin { kDeclared, kEnvironments, kHost };
  TargetOrigin targets_origin = TargetOrigin::kDeclared;
  /// What was read but is not acted on (uv's other settings), one message per entry, each
  /// starting with `path:line:column`; the caller prints them as warnings.
  std::vector<std::string> warnings;

  /// The groups sync installs by default: `default-groups`, else `dev` when it is declared
  /// (uv's rule), else none.
  std::vector<std::string> default_group_names() const;
  /// The target named `name`, or nullptr.
  const Target* find_target(std::string_view name) const;
  /// The index named `name`, or nullptr.
  const IndexConfig* find_index(std::string_view name) const;
  /// Whether sync installs the project itself: `package`, else whether a `[build-system]` is
  /// declared.
  bool is_package() const { return package.value_or(build_system.has_value()); }
};

/// The values `keyring-provider` accepts (uv's names; uv's unimplemented `auto` is not one).
inline constexpr std::string_view kKeyringProviders[] = {"disabled", "subprocess"};

/// The values `index-strategy` accepts.
inline constexpr std::string_view kIndexStrategies[] = {"first-index", "unsafe-best-match"};

/// The source entry of `package` (normalised) that applies to `target`, or nullptr when none
/// does (the package then comes from the non-explicit indexes). parse_project_file() has
/// already refused two entries that apply to one target.
const SourceEntry* applicable_source(const ProjectConfig& config, const pkg::PackageName& package,
                                     const Target& target);

/// A path, url or git source entry as a pkg::DirectSource, paths resolved against the project
/// folder. kInvalidInput for an index entry.
Result<pkg::DirectSource> direct_source(const ProjectConfig& config, const SourceEntry& entry);

/// The Pythons of a target that declares none (neither its own `python` nor `[tool.wvlock]
/// python`), asked at most once per file with what was read so far (`[project]` included). The
/// CLI answers `.python-version`, else the lowest interpreter found that satisfies
/// requires-python (cli/python_default.h); without an answer such a target is an error.
using DefaultPythons = std::function<Result<std::vector<MajorMinor>>(const ProjectConfig&)>;

/// The target of a project that declares none (and no uv `environments`): the CLI answers this
/// host's (targets/default_targets.h host_target(), named `host`); its Pythons are added by the
/// reader. Without it such a project has no target.
using DefaultTarget = std::function<Result<Target>(const ProjectConfig&)>;

/// Parses pyproject.toml text. `path` names the file in messages and gives project_dir.
/// A target with several Pythons becomes one target per Python (targets/python_pairs.h).
Result<ProjectConfig> parse_project_file(std::string_view text, std::string_view path,
                                         const DefaultPythons& default_pythons = {},
                                         const DefaultTarget& default_target = {});

/// Reads and parses `path` through `file_system`.
Result<ProjectConfig> read_project_file(const FileSystem& file_system, const std::string& path,
                                        const DefaultPythons& default_pythons = {},
                                        const DefaultTarget& default_target = {});

/// Only the workspace table of pyproject.toml text (cheap: no targets, no sources), for finding
/// the workspace root above a member's folder; nullopt when the file declares none.
Result<std::optional<WorkspaceConfig>> parse_workspace_table(std::string_view text,
                                                             std::string_view path);

/// `value` resolved against the project folder: URLs (`scheme://`) and absolute paths are
/// returned unchanged.
std::string resolve_project_path(const ProjectConfig& config, std::string_view value);

}  // namespace wv::targets
