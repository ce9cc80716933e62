// pylock.toml reader, written once against the light TOML tree (src/base/toml_tree.h): the
// subset parser reads what wvlock writes; anything else goes to toml++ (lock/toml_full_tree.h).
// Every error names the file and the line of the offending key.
#include "src/base/limits.h"
#include "src/base/str.h"
#include "src/base/toml_guard.h"
#include "src/base/toml_subset.h"
#include "lock/lockfile.h"
#include "lock/toml_full_tree.h"
#include "lock/toml_value.h"
#include "lock/variants_table.h"
#include "src/pkg/upload_time.h"

namespace wv::lock {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view path) : path_(path) {}

  Error error(const TomlNode* node, std::string message) const {
    int line = node ? node->line : 0;
    return make_error(ErrorCode::kInvalidLockfile,
                      line > 0 ? str_cat(path_, ":", line, ": ", message)
                               : str_cat(path_, ": ", message));
  }

  int line_of(const TomlNode& node) const { return node.line; }

  Result<std::string> string(const TomlNode& table, std::string_view key, bool required,
                             std::string_view where) const {
    const TomlNode* node = table.get(key);
    if (!node) {
      if (required) return error(&table, str_cat("`", where, key, "` is required"));
      return std::string();
    }
    if (!node->is_string()) return error(node, str_cat("`", where, key, "`: expected a string"));
    return std::string(node->text);
  }

  // Names reach file names (`pylock.NAME.toml`, dist-info folders): each must be a name in
  // its normal form, never a path, so what was written is what reads back.
  Result<pkg::PackageName> package_name(const TomlNode& table, std::string_view text) const {
    if (text.empty()) return error(table.get("name"), "a package has no `name`");
    Result<pkg::PackageName> name = pkg::parse_normalized_name(text);
    if (!name) {
      return error(table.get("name"),
                   str_cat("package name ", in_backticks(text.substr(0, 100)),
                           " is not a normalised name (PEP 503/685)"));
    }
    return name;
  }

  Result<bool> boolean(const TomlNode& table, std::string_view key,
                       std::string_view where) const {
    const TomlNode* node = table.get(key);
    if (!node) return false;
    if (!node->is_boolean()) return error(node, str_cat("`", where, key, "`: expected true or false"));
    return node->boolean;
  }

  Result<std::vector<std::string>> strings(const TomlNode& table, std::string_view key,
                                           std::string_view where) const {
    std::vector<std::string> items;
    const TomlNode* node = table.get(key);
    if (!node) return items;
    if (!node->is_array()) return error(node, str_cat("`", where, key, "`: expected an array of strings"));
    for (const TomlNode* item : node->items) {
      if (!item->is_string()) {
        return error(item, str_cat("`", where, key, "`: expected an array of strings"));
      }
      items.emplace_back(item->text);
    }
    return items;
  }

  /// `key = { name = ["...", ...], ... }`.
  Result<std::map<std::string, std::vector<std::string>>> string_lists(
      const TomlNode& table, std::string_view key, std::string_view where) const {
    std::map<std::string, std::vector<std::string>> lists;
    const TomlNode* node = table.get(key);
    if (!node) return lists;
    if (!node->is_table()) return error(node, str_cat("`", where, key, "`: expected a table of arrays"));
    for (const auto& [name, value] : node->members) {
      (void)value;
      WV_ASSIGN_OR_RETURN(lists[std::string(name)], strings(*node, name, str_cat(where, key, ".")));
    }
    return lists;
  }

  /// `key = { name = "...", ... }`.
  Result<std::map<std::string, std::string>> string_table(const TomlNode& table,
                                                          std::string_view key,
                                                          std::string_view where) const {
    std::map<std::string, std::string> values;
    const TomlNode* node = table.get(key);
    if (!node) return values;
    if (!node->is_table()) return error(node, str_cat("`", where, key, "`: expected a table of strings"));
    for (const auto& [name, value] : node->members) {
      (void)value;
      WV_ASSIGN_OR_RETURN(values[std::string(name)],
                          string(*node, name, true, str_cat(where, key, ".")));
    }
    return values;
  }

  Result<TomlValue> generic(const TomlNode& node) const {
    if (node.is_string()) return TomlValue(std::string(node.text));
    if (node.is_integer()) return TomlValue(node.integer);
    if (node.is_boolean()) return TomlValue(node.boolean);
    if (node.is_array()) {
      TomlArray items;
      for (const TomlNode* item : node.items) {
        WV_ASSIGN_OR_RETURN(TomlValue value, generic(*item));
        items.push_back(std::move(value));
      }
      return TomlValue(std::move(items));
    }
    if (node.is_table()) {
      TomlTable items;
      for (const auto& [key, item] : node.members) {
        WV_ASSIGN_OR_RETURN(TomlValue value, generic(*item));
        items[std::string(key)] = std::move(value);
      }
      return TomlValue(std::move(items));
    }
    return error(&node, "unsupported value type (floats and dates are not used by wvlock)");
  }

  Result<const TomlNode*> table_at(const TomlNode& node, std::string_view where) const {
    if (!node.is_table()) return error(&node, str_cat("`", where, "`: expected a table"));
    return &node;
  }

  /// A wheel or sdist table, or (`named` false) an archive's, which has no `name` key.
  Result<LockedFile> file(const TomlNode& node, std::string_view where,
                          bool named = true) const {
    WV_ASSIGN_OR_RETURN(const TomlNode* table, table_at(node, where));
    LockedFile file;
    file.line = line_of(node);
    if (named) {
      WV_ASSIGN_OR_RETURN(file.name, string(*table, "name", false, str_cat(where, ".")));
    }
    WV_ASSIGN_OR_RETURN(file.url, string(*table, "url", false, str_cat(where, ".")));
    WV_ASSIGN_OR_RETURN(file.path, string(*table, "path", false, str_cat(where, ".")));
    // PEP 751: the name may be omitted when it is the last component of the url or path.
    if (file.name.empty()) file.name = source_file_name(file);
    if (const TomlNode* size = table->get("size")) {
      if (!size->is_integer() || size->integer < 0) {
        return error(size, str_cat("`", where, ".size`: expected a non-negative integer"));
      }
      file.size = std::uint64_t(size->integer);
    }
    if (const TomlNode* uploaded = table->get("upload-time")) {
      WV_ASSIGN_OR_RETURN(file.upload_time, upload_time(*uploaded, where));
    }
    const TomlNode* hashes = table->get("hashes");
    if (!hashes || !hashes->is_table()) {
      return error(&node, str_cat(in_backticks(file.name),
                                  ": expected `hashes = { sha256 = \"...\" }` (PEP 751: `hashes` "
                                  "is required; wvlock installs no file it cannot verify)"));
    }
    WV_ASSIGN_OR_RETURN(file.sha256,
                        string(*hashes, "sha256", true, str_cat(where, ".hashes.")));
    return file;
  }

  /// PEP 751 `upload-time`: a TOML offset date-time, read back in its one UTC spelling.
  Result<std::string> upload_time(const TomlNode& node, std::string_view where) const {
    std::optional<std::string> text;
    if (node.kind == TomlKind::kOffsetDateTime) text = pkg::normalize_upload_time(node.text);
    if (!text) {
      return error(&node, str_cat("`", where, ".upload-time`: expected an offset date-time "
                                  "such as 2025-01-25T11:30:10.164985Z (PEP 751), not a string "
                                  "or a local time"));
    }
    return std::move(*text);
  }

  Result<LockedDirectory> directory(const TomlNode& node) const {
    WV_ASSIGN_OR_RETURN(const TomlNode* table, table_at(node, "packages.directory"));
    LockedDirectory directory;
    std::string_view where = "packages.directory.";
    WV_ASSIGN_OR_RETURN(directory.path, string(*table, "path", true, where));
    WV_ASSIGN_OR_RETURN(directory.editable, boolean(*table, "editable", where));
    WV_ASSIGN_OR_RETURN(directory.subdirectory, string(*table, "subdirectory", false, where));
    return directory;
  }

  Result<LockedVcs> vcs(const TomlNode& node) const {
    WV_ASSIGN_OR_RETURN(const TomlNode* table, table_at(node, "packages.vcs"));
    LockedVcs vcs;
    std::string_view where = "packages.vcs.";
    WV_ASSIGN_OR_RETURN(vcs.type, string(*table, "type", true, where));
    WV_ASSIGN_OR_RETURN(vcs.url, string(*table, "url", false, where));
    WV_ASSIGN_OR_RETURN(vcs.path, string(*table, "path", false, where));
    WV_ASSIGN_OR_RETURN(vcs.requested_revision, string(*table, "requested-revision", false, where));
    WV_ASSIGN_OR_RETURN(vcs.commit_id, string(*table, "commit-id", true, where));
    WV_ASSIGN_OR_RETURN(vcs.subdirectory, string(*table, "subdirectory", false, where));
    return vcs;
  }

  Result<LockedArchive> archive(const TomlNode& node) const {
    LockedArchive archive;
    WV_ASSIGN_OR_RETURN(archive.file, file(node, "packages.archive", false));
    WV_ASSIGN_OR_RETURN(archive.subdirectory,
                        string(node, "subdirectory", false, "packages.archive."));
    return archive;
  }

  // `[packages.directory]`, `[packages.vcs]`, `[packages.archive]` (validate() checks that at
  // most one is there, and not with wheels or an sdist).
  Result<void> source_trees(const TomlNode& table, LockedPackage& package) const {
    if (const TomlNode* node = table.get("directory")) {
      WV_ASSIGN_OR_RETURN(package.directory, directory(*node));
    }
    if (const TomlNode* node = table.get("vcs")) {
      WV_ASSIGN_OR_RETURN(package.vcs, vcs(*node));
    }
    if (const TomlNode* node = table.get("archive")) {
      WV_ASSIGN_OR_RETURN(package.archive, archive(*node));
    }
    return {};
  }

  // `[packages.tool.wvlock]`: index-name, project, and a source tree's version.
  Result<void> tool(const TomlNode& table, LockedPackage& package) const {
    const TomlNode* node = table.get_path({"tool", "wvlock"});
    const TomlNode* tool = node && node->is_table() ? node : nullptr;
    if (node && !tool) return error(node, "`packages.tool.wvlock`: expected a table");
    std::string version;
    if (tool) {
      std::string_view where = "packages.tool.wvlock.";
      WV_ASSIGN_OR_RETURN(package.index_name, string(*tool, "index-name", false, where));
      WV_ASSIGN_OR_RETURN(package.is_project, boolean(*tool, "project", where));
      WV_ASSIGN_OR_RETURN(package.workspace_member, boolean(*tool, "workspace-member", where));
      WV_ASSIGN_OR_RETURN(version, string(*tool, "version", false, where));
    }
    // PEP 751 forbids a top-level version for source trees; wvlock keeps theirs in the tool
    // table, and only theirs, so each entry has its version in one place.
    bool tree = package.directory || package.vcs;
    // Another tool's entry (no wvlock table) may carry a top-level version: packaging's reader
    // accepts it, and so does installing, which never reads it for a source tree.
    if (tree && !tool) return {};
    if (tree && !package.version.empty()) {
      return error(table.get("version"),
                   str_cat("package ", in_backticks(package.name.str()),
                           ": a directory or vcs entry has no top-level `version` (PEP 751); "
                           "expected it in `[packages.tool.wvlock] version`"));
    }
    if (!tree && !version.empty()) {
      return error(tool->get("version"),
                   str_cat("package ", in_backticks(package.name.str()),
                           ": `packages.tool.wvlock.version` is for directory and vcs entries; "
                           "expected the top-level `version`"));
    }
    if (tree) package.version = std::move(version);
    return {};
  }

  // `[packages.tool.wvlock.targets.<target>]`: the wheels and dependencies each target uses.
  Result<void> target_uses(const TomlNode& table, LockedPackage& package) const {
    const TomlNode* targets = table.get_path({"tool", "wvlock", "targets"});
    if (!targets) return {};
    if (!targets->is_table()) {
      return error(targets, "`packages.tool.wvlock.targets`: expected a table");
    }
    for (const auto& [name, entry] : targets->members) {
      std::string where = str_cat("packages.tool.wvlock.targets.", name, ".");
      if (!entry->is_table()) return error(entry, str_cat("`", where, "`: expected a table"));
      TargetUse use;
      WV_ASSIGN_OR_RETURN(use.wheels, strings(*entry, "wheels", where));
      WV_ASSIGN_OR_RETURN(use.dependencies, strings(*entry, "dependencies", where));
      WV_ASSIGN_OR_RETURN(use.extra_dependencies,
                          string_lists(*entry, "extra-dependencies", where));
      package.targets[std::string(name)] = std::move(use);
    }
    return {};
  }

  Result<LockedPackage> package(const TomlNode& table) const {
    LockedPackage package;
    package.line = line_of(table);
    WV_ASSIGN_OR_RETURN(std::string name, string(table, "name", true, "packages."));
    WV_ASSIGN_OR_RETURN(package.name, package_name(table, name));
    WV_ASSIGN_OR_RETURN(package.version, string(table, "version", false, "packages."));
    WV_ASSIGN_OR_RETURN(package.marker, string(table, "marker", false, "packages."));
    WV_ASSIGN_OR_RETURN(package.requires_python,
                        string(table, "requires-python", false, "packages."));
    WV_ASSIGN_OR_RETURN(package.index, string(table, "index", false, "packages."));
    WV_TRY(source_trees(table, package));
    if (const TomlNode* sdist = table.get("sdist")) {
      WV_ASSIGN_OR_RETURN(package.sdist, file(*sdist, "packages.sdist"));
    }
    if (const TomlNode* wheels = table.get("wheels")) {
      if (!wheels->is_array()) return error(wheels, "`packages.wheels`: expected an array of tables");
      for (const TomlNode* wheel : wheels->items) {
        WV_ASSIGN_OR_RETURN(LockedFile parsed, file(*wheel, "packages.wheels"));
        package.wheels.push_back(std::move(parsed));
      }
    }
    if (const TomlNode* variants = table.get("variants-json")) {
      WV_ASSIGN_OR_RETURN(TomlValue value, generic(*variants));
      if (!value.is_table()) return error(variants, "`packages.variants-json`: expected a table");
      auto metadata = variants_from_table(value.as_table(),
                                          str_cat(path_, ":", line_of(*variants)));
      if (!metadata) return std::move(metadata).error();
      package.variants = std::move(*metadata);
    }
    WV_TRY(tool(table, package));
    WV_TRY(target_uses(table, package));
    return package;
  }

  Result<LockedTarget> target(const TomlNode& table) const {
    LockedTarget target;
    target.line = line_of(table);
    std::string_view where = "tool.wvlock.target.";
    WV_ASSIGN_OR_RETURN(target.name, string(table, "name", true, where));
    WV_ASSIGN_OR_RETURN(std::string declared_name, string(table, "declared-name", false, where));
    if (!declared_name.empty() && !targets::is_valid_target_name(declared_name)) {
      return error(table.get("declared-name"),
                   str_cat("`tool.wvlock.target.declared-name`: invalid target name ",
                           in_backticks(declared_name)));
    }
    WV_ASSIGN_OR_RETURN(target.marker, string(table, "marker", false, where));
    WV_ASSIGN_OR_RETURN(target.roots, strings(table, "roots", where));
    WV_ASSIGN_OR_RETURN(target.extra_roots, string_lists(table, "extra-roots", where));
    WV_ASSIGN_OR_RETURN(target.group_roots, string_lists(table, "group-roots", where));
    std::map<std::string, std::string> facts;
    const TomlNode* facts_node = table.get("facts");
    if (facts_node) {
      if (!facts_node->is_table()) {
        return error(facts_node, "`tool.wvlock.target.facts`: expected a table");
      }
      for (const auto& [key, value] : facts_node->members) {
        if (!value->is_string()) {
          return error(value, str_cat("`tool.wvlock.target.facts.", key, "`: expected a string"));
        }
        facts[std::string(key)] = std::string(value->text);
      }
    }
    WV_ASSIGN_OR_RETURN(target.provider_output, namespace_values(table, "providers", where));
    WV_ASSIGN_OR_RETURN(auto properties, namespace_values(table, "properties", where));
    Result<targets::Target> declared =
        targets::target_from_facts(target.name, facts, std::move(properties));
    if (!declared) return error(facts_node ? facts_node : &table, declared.error().message);
    target.declared = std::move(*declared);
    target.declared.declared_name = std::move(declared_name);
    return target;
  }

  // `[tool.wvlock.target.<key>]`: namespace -> feature -> values (provider output, or a
  // target's declared properties).
  Result<std::map<std::string, pkg::FeatureValues>> namespace_values(
      const TomlNode& table, std::string_view key, std::string_view where) const {
    std::map<std::string, pkg::FeatureValues> out;
    const TomlNode* node = table.get(key);
    if (!node) return out;
    if (!node->is_table()) return error(node, str_cat("`", where, key, "`: expected a table"));
    for (const auto& [name, features] : node->members) {
      if (!features->is_table()) return error(features, "expected a table of feature values");
      pkg::FeatureValues values;
      for (const auto& [feature, list] : features->members) {
        (void)list;
        WV_ASSIGN_OR_RETURN(values[std::string(feature)],
                            strings(*features, feature, str_cat(where, key, ".", name, ".")));
      }
      out[std::string(name)] = std::move(values);
    }
    return out;
  }

 private:
  std::string path_;
};

}  // namespace

namespace {

Result<Lockfile> read_document(const TomlNode& document, std::string_view path);

/// "lockfile `PATH`", as limit errors name it.
std::string lock_name(std::string_view path) { return str_cat("lockfile ", in_backticks(path)); }

/// The document's tree: the subset parser's when it answers, else the full parser's. The nesting
/// pre-scan guards the full parser's recursion; the subset parser bounds its own, below the
/// limit unless the limit is set lower.
Result<TomlTree> parse_lock_text(std::string_view text, std::string_view path) {
  const std::uint64_t max_depth = limit_value(Limit::kTomlDepth);
  auto check_nesting = [&] { return check_toml_nesting(text, max_depth, lock_name(path)); };
  if (std::optional<TomlTree> tree = parse_toml_subset(text)) {
    if (max_depth < kTomlSubsetMaxNesting) WV_TRY(check_nesting());
    return std::move(*tree);
  }
  WV_TRY(check_nesting());
  Result<TomlTree> tree = parse_toml_full(text, path);
  if (!tree) {
    Error error = std::move(tree).error();
    error.code = ErrorCode::kInvalidLockfile;
    return error;
  }
  return tree;
}

}  // namespace

Result<Lockfile> read_lockfile(std::string_view text, std::string_view path) {
  if (text.size() > limit_value(Limit::kTomlBytes)) {
    return limit_error(Limit::kTomlBytes, lock_name(path), text.size());
  }
  WV_ASSIGN_OR_RETURN(TomlTree tree, parse_lock_text(text, path));
  const TomlNode& document = tree.root();
  Result<Lockfile> lockfile = read_document(document, path);
  // Our own lock that does not validate is a failed install (exit 1, as ever); a lock without
  // wvlock targets is someone else's input, and bad input (exit 2).
  if (!lockfile && lockfile.error().code == ErrorCode::kInvalidLockfile &&
      !document.get_path({"tool", "wvlock", "target"})) {
    Error error = std::move(lockfile).error();
    error.code = ErrorCode::kInvalidInput;
    return error;
  }
  return lockfile;
}

namespace {

Result<Lockfile> read_document(const TomlNode& document, std::string_view path) {
  Reader reader(path);
  Lockfile lockfile;
  WV_ASSIGN_OR_RETURN(lockfile.lock_version, reader.string(document, "lock-version", true, ""));
  WV_ASSIGN_OR_RETURN(lockfile.created_by, reader.string(document, "created-by", true, ""));
  WV_ASSIGN_OR_RETURN(lockfile.requires_python,
                      reader.string(document, "requires-python", false, ""));
  WV_ASSIGN_OR_RETURN(lockfile.environments, reader.strings(document, "environments", ""));
  WV_ASSIGN_OR_RETURN(lockfile.extras, reader.strings(document, "extras", ""));
  WV_ASSIGN_OR_RETURN(lockfile.dependency_groups,
                      reader.strings(document, "dependency-groups", ""));
  WV_ASSIGN_OR_RETURN(lockfile.default_groups, reader.strings(document, "default-groups", ""));
  // Check the version before anything else: a newer major may mean anything below.
  std::string_view major = std::string_view(lockfile.lock_version).substr(
      0, lockfile.lock_version.find('.'));
  if (major != "1") {
    return reader.error(document.get("lock-version"),
                        str_cat("lock-version ", in_backticks(lockfile.lock_version),
                                " is not supported: this wvlock reads lock-version 1.x (PEP 751: "
                                "a lock-version whose major an installer does not support MUST "
                                "be refused)"));
  }
  const TomlNode* packages = document.get("packages");
  if (!packages || !packages->is_array()) {
    return reader.error(packages, "`packages` is required: an array of tables");
  }
  for (const TomlNode* entry : packages->items) {
    if (!entry->is_table()) return reader.error(entry, "`packages`: expected tables");
    WV_ASSIGN_OR_RETURN(LockedPackage package, reader.package(*entry));
    lockfile.packages.push_back(std::move(package));
  }
  if (const TomlNode* tool = document.get_path({"tool", "wvlock"})) {
    const TomlNode* table = tool;
    if (!table->is_table()) return reader.error(tool, "`tool.wvlock`: expected a table");
    WV_ASSIGN_OR_RETURN(lockfile.input_hash,
                        reader.string(*table, "input-hash", false, "tool.wvlock."));
    WV_ASSIGN_OR_RETURN(lockfile.input_files,
                        reader.string_table(*table, "input-files", "tool.wvlock."));
    if (const TomlNode* targets = table->get("target")) {
      if (!targets->is_array()) {
        return reader.error(targets, "`tool.wvlock.target`: expected an array of tables");
      }
      for (const TomlNode* entry : targets->items) {
        if (!entry->is_table()) return reader.error(entry, "`tool.wvlock.target`: expected tables");
        WV_ASSIGN_OR_RETURN(LockedTarget target, reader.target(*entry));
        lockfile.targets.push_back(std::move(target));
      }
    }
  }
  WV_TRY(validate(lockfile, path));
  return lockfile;
}

}  // namespace

}  // namespace wv::lock
