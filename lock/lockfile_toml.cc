// pylock.toml reader: the only file of lock/ that includes toml++. Every error names the file
// and the line of the offending key.
#include <toml++/toml.h>

#include <cstdio>
#include <cstdlib>

#include "src/base/limits.h"
#include "src/base/str.h"
#include "src/base/toml_guard.h"
#include "lock/lockfile.h"
#include "lock/toml_value.h"
#include "lock/variants_table.h"
#include "src/pkg/upload_time.h"

namespace wv::lock {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view path) : path_(path) {}

  Error error(const toml::node* node, std::string message) const {
    int line = node ? int(node->source().begin.line) : 0;
    return make_error(ErrorCode::kInvalidLockfile,
                      line > 0 ? str_cat(path_, ":", line, ": ", message)
                               : str_cat(path_, ": ", message));
  }

  int line_of(const toml::node& node) const { return int(node.source().begin.line); }

  Result<std::string> string(const toml::table& table, std::string_view key, bool required,
                             std::string_view where) const {
    const toml::node* node = table.get(key);
    if (!node) {
      if (required) return error(&table, str_cat("`", where, key, "` is required"));
      return std::string();
    }
    const auto* value = node->as_string();
    if (!value) return error(node, str_cat("`", where, key, "`: expected a string"));
    return value->get();
  }

  // Names reach file names (`pylock.NAME.toml`, dist-info folders): each must be a name in
  // its normal form, never a path, so what was written is what reads back.
  Result<pkg::PackageName> package_name(const toml::table& table, std::string_view text) const {
    if (text.empty()) return error(table.get("name"), "a package has no `name`");
    Result<pkg::PackageName> name = pkg::parse_normalized_name(text);
    if (!name) {
      return error(table.get("name"),
                   str_cat("package name ", in_backticks(text.substr(0, 100)),
                           " is not a normalised name (PEP 503/685)"));
    }
    return name;
  }

  Result<bool> boolean(const toml::table& table, std::string_view key,
                       std::string_view where) const {
    const toml::node* node = table.get(key);
    if (!node) return false;
    const auto* value = node->as_boolean();
    if (!value) return error(node, str_cat("`", where, key, "`: expected true or false"));
    return value->get();
  }

  Result<std::vector<std::string>> strings(const toml::table& table, std::string_view key,
                                           std::string_view where) const {
    std::vector<std::string> items;
    const toml::node* node = table.get(key);
    if (!node) return items;
    const toml::array* array = node->as_array();
    if (!array) return error(node, str_cat("`", where, key, "`: expected an array of strings"));
    for (const toml::node& item : *array) {
      const auto* text = item.as_string();
      if (!text) return error(&item, str_cat("`", where, key, "`: expected an array of strings"));
      items.push_back(text->get());
    }
    return items;
  }

  /// `key = { name = ["...", ...], ... }`.
  Result<std::map<std::string, std::vector<std::string>>> string_lists(
      const toml::table& table, std::string_view key, std::string_view where) const {
    std::map<std::string, std::vector<std::string>> lists;
    const toml::node* node = table.get(key);
    if (!node) return lists;
    const toml::table* inner = node->as_table();
    if (!inner) return error(node, str_cat("`", where, key, "`: expected a table of arrays"));
    for (const auto& [name, value] : *inner) {
      (void)value;
      WV_ASSIGN_OR_RETURN(lists[std::string(name.str())],
                          strings(*inner, name.str(), str_cat(where, key, ".")));
    }
    return lists;
  }

  /// `key = { name = "...", ... }`.
  Result<std::map<std::string, std::string>> string_table(const toml::table& table,
                                                          std::string_view key,
                                                          std::string_view where) const {
    std::map<std::string, std::string> values;
    const toml::node* node = table.get(key);
    if (!node) return values;
    const toml::table* inner = node->as_table();
    if (!inner) return error(node, str_cat("`", where, key, "`: expected a table of strings"));
    for (const auto& [name, value] : *inner) {
      WV_ASSIGN_OR_RETURN(values[std::string(name.str())],
                          string(*inner, name.str(), true, str_cat(where, key, ".")));
    }
    return values;
  }

  Result<TomlValue> generic(const toml::node& node) const {
    if (const auto* text = node.as_string()) return TomlValue(text->get());
    if (const auto* number = node.as_integer()) return TomlValue(std::int64_t(number->get()));
    if (const auto* flag = node.as_boolean()) return TomlValue(flag->get());
    if (const auto* array = node.as_array()) {
      TomlArray items;
      for (const toml::node& item : *array) {
        WV_ASSIGN_OR_RETURN(TomlValue value, generic(item));
        items.push_back(std::move(value));
      }
      return TomlValue(std::move(items));
    }
    if (const auto* table = node.as_table()) {
      TomlTable items;
      for (const auto& [key, item] : *table) {
        WV_ASSIGN_OR_RETURN(TomlValue value, generic(item));
        items[std::string(key.str())] = std::move(value);
      }
      return TomlValue(std::move(items));
    }
    return error(&node, "unsupported value type (floats and dates are not used by wvlock)");
  }

  Result<const toml::table*> table_at(const toml::node& node, std::string_view where) const {
    const toml::table* table = node.as_table();
    if (!table) return error(&node, str_cat("`", where, "`: expected a table"));
    return table;
  }

  /// A wheel or sdist table, or (`named` false) an archive's, which has no `name` key.
  Result<LockedFile> file(const toml::node& node, std::string_view where,
                          bool named = true) const {
    WV_ASSIGN_OR_RETURN(const toml::table* table, table_at(node, where));
    LockedFile file;
    file.line = line_of(node);
    if (named) {
      WV_ASSIGN_OR_RETURN(file.name, string(*table, "name", false, str_cat(where, ".")));
    }
    WV_ASSIGN_OR_RETURN(file.url, string(*table, "url", false, str_cat(where, ".")));
    WV_ASSIGN_OR_RETURN(file.path, string(*table, "path", false, str_cat(where, ".")));
    // PEP 751: the name may be omitted when it is the last component of the url or path.
    if (file.name.empty()) file.name = source_file_name(file);
    if (const toml::node* size = table->get("size")) {
      const auto* number = size->as_integer();
      if (!number || number->get() < 0) {
        return error(size, str_cat("`", where, ".size`: expected a non-negative integer"));
      }
      file.size = std::uint64_t(number->get());
    }
    if (const toml::node* uploaded = table->get("upload-time")) {
      WV_ASSIGN_OR_RETURN(file.upload_time, upload_time(*uploaded, where));
    }
    const toml::node* hashes = table->get("hashes");
    if (!hashes || !hashes->as_table()) {
      return error(&node, str_cat(in_backticks(file.name),
                                  ": expected `hashes = { sha256 = \"...\" }` (PEP 751: `hashes` "
                                  "is required; wvlock installs no file it cannot verify)"));
    }
    WV_ASSIGN_OR_RETURN(file.sha256,
                        string(*hashes->as_table(), "sha256", true, str_cat(where, ".hashes.")));
    return file;
  }

  /// PEP 751 `upload-time`: a TOML offset date-time, read back in its one UTC spelling.
  Result<std::string> upload_time(const toml::node& node, std::string_view where) const {
    const auto* value = node.as_date_time();
    std::optional<std::string> text;
    if (value && value->get().offset) {
      const toml::date_time& when = value->get();
      const int offset = when.offset->minutes;
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%09u%c%02d:%02d",
                    int(when.date.year), int(when.date.month), int(when.date.day),
                    int(when.time.hour), int(when.time.minute), int(when.time.second),
                    unsigned(when.time.nanosecond), offset < 0 ? '-' : '+',
                    std::abs(offset) / 60, std::abs(offset) % 60);
      text = pkg::normalize_upload_time(buffer);
    }
    if (!text) {
      return error(&node, str_cat("`", where, ".upload-time`: expected an offset date-time "
                                  "such as 2025-01-25T11:30:10.164985Z (PEP 751), not a string "
                                  "or a local time"));
    }
    return std::move(*text);
  }

  Result<LockedDirectory> directory(const toml::node& node) const {
    WV_ASSIGN_OR_RETURN(const toml::table* table, table_at(node, "packages.directory"));
    LockedDirectory directory;
    std::string_view where = "packages.directory.";
    WV_ASSIGN_OR_RETURN(directory.path, string(*table, "path", true, where));
    WV_ASSIGN_OR_RETURN(directory.editable, boolean(*table, "editable", where));
    WV_ASSIGN_OR_RETURN(directory.subdirectory, string(*table, "subdirectory", false, where));
    return directory;
  }

  Result<LockedVcs> vcs(const toml::node& node) const {
    WV_ASSIGN_OR_RETURN(const toml::table* table, table_at(node, "packages.vcs"));
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

  Result<LockedArchive> archive(const toml::node& node) const {
    LockedArchive archive;
    WV_ASSIGN_OR_RETURN(archive.file, file(node, "packages.archive", false));
    WV_ASSIGN_OR_RETURN(archive.subdirectory,
                        string(*node.as_table(), "subdirectory", false, "packages.archive."));
    return archive;
  }

  // `[packages.directory]`, `[packages.vcs]`, `[packages.archive]` (validate() checks that at
  // most one is there, and not with wheels or an sdist).
  Result<void> source_trees(const toml::table& table, LockedPackage& package) const {
    if (const toml::node* node = table.get("directory")) {
      WV_ASSIGN_OR_RETURN(package.directory, directory(*node));
    }
    if (const toml::node* node = table.get("vcs")) {
      WV_ASSIGN_OR_RETURN(package.vcs, vcs(*node));
    }
    if (const toml::node* node = table.get("archive")) {
      WV_ASSIGN_OR_RETURN(package.archive, archive(*node));
    }
    return {};
  }

  // `[packages.tool.wvlock]`: index-name, project, and a source tree's version.
  Result<void> tool(const toml::table& table, LockedPackage& package) const {
    const toml::node* node = table.at_path("tool.wvlock").node();
    const toml::table* tool = node ? node->as_table() : nullptr;
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

  Result<LockedPackage> package(const toml::table& table) const {
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
    if (const toml::node* sdist = table.get("sdist")) {
      WV_ASSIGN_OR_RETURN(package.sdist, file(*sdist, "packages.sdist"));
    }
    if (const toml::node* wheels = table.get("wheels")) {
      const toml::array* array = wheels->as_array();
      if (!array) return error(wheels, "`packages.wheels`: expected an array of tables");
      for (const toml::node& wheel : *array) {
        WV_ASSIGN_OR_RETURN(LockedFile parsed, file(wheel, "packages.wheels"));
        package.wheels.push_back(std::move(parsed));
      }
    }
    if (const toml::node* variants = table.get("variants-json")) {
      WV_ASSIGN_OR_RETURN(TomlValue value, generic(*variants));
      if (!value.is_table()) return error(variants, "`packages.variants-json`: expected a table");
      auto metadata = variants_from_table(value.as_table(),
                                          str_cat(path_, ":", line_of(*variants)));
      if (!metadata) return std::move(metadata).error();
      package.variants = std::move(*metadata);
    }
    WV_TRY(tool(table, package));
    const toml::node* targets = table.at_path("tool.wvlock.targets").node();
    if (targets) {
      const toml::table* by_target = targets->as_table();
      if (!by_target) return error(targets, "`packages.tool.wvlock.targets`: expected a table");
      for (const auto& [name, entry] : *by_target) {
        const toml::table* use_table = entry.as_table();
        std::string where = str_cat("packages.tool.wvlock.targets.", name.str(), ".");
        if (!use_table) return error(&entry, str_cat("`", where, "`: expected a table"));
        TargetUse use;
        WV_ASSIGN_OR_RETURN(use.wheels, strings(*use_table, "wheels", where));
        WV_ASSIGN_OR_RETURN(use.dependencies, strings(*use_table, "dependencies", where));
        WV_ASSIGN_OR_RETURN(use.extra_dependencies,
                            string_lists(*use_table, "extra-dependencies", where));
        package.targets[std::string(name.str())] = std::move(use);
      }
    }
    return package;
  }

  Result<LockedTarget> target(const toml::table& table) const {
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
    const toml::node* facts_node = table.get("facts");
    if (facts_node) {
      if (!facts_node->as_table()) {
        return error(facts_node, "`tool.wvlock.target.facts`: expected a table");
      }
      for (const auto& [key, value] : *facts_node->as_table()) {
        const auto* text = value.as_string();
        if (!text) return error(&value, str_cat("`tool.wvlock.target.facts.", key.str(),
                                                "`: expected a string"));
        facts[std::string(key.str())] = text->get();
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
      const toml::table& table, std::string_view key, std::string_view where) const {
    std::map<std::string, pkg::FeatureValues> out;
    const toml::node* node = table.get(key);
    if (!node) return out;
    if (!node->as_table()) return error(node, str_cat("`", where, key, "`: expected a table"));
    for (const auto& [name, features] : *node->as_table()) {
      if (!features.as_table()) return error(&features, "expected a table of feature values");
      pkg::FeatureValues values;
      for (const auto& [feature, list] : *features.as_table()) {
        (void)list;
        WV_ASSIGN_OR_RETURN(values[std::string(feature.str())],
                            strings(*features.as_table(), feature.str(),
                                    str_cat(where, key, ".", name.str(), ".")));
      }
      out[std::string(name.str())] = std::move(values);
    }
    return out;
  }

 private:
  std::string path_;
};

}  // namespace

namespace {

Result<Lockfile> read_document(const toml::table& document, std::string_view path);

}  // namespace

Result<Lockfile> read_lockfile(std::string_view text, std::string_view path) {
  if (text.size() > limit_value(Limit::kTomlBytes)) {
    return limit_error(Limit::kTomlBytes, str_cat("lockfile ", in_backticks(path)), text.size());
  }
  WV_TRY(check_toml_nesting(text, limit_value(Limit::kTomlDepth),
                            str_cat("lockfile ", in_backticks(path))));
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& failure) {
    return make_error(ErrorCode::kInvalidLockfile,
                      str_cat(path, ":", failure.source().begin.line, ":",
                              failure.source().begin.column, ": ", failure.description()));
  }
  Result<Lockfile> lockfile = read_document(document, path);
  // Our own lock that does not validate is a failed install (exit 1, as ever); a lock without
  // wvlock targets is someone else's input, and bad input (exit 2).
  if (!lockfile && lockfile.error().code == ErrorCode::kInvalidLockfile &&
      !document.at_path("tool.wvlock.target").node()) {
    Error error = std::move(lockfile).error();
    error.code = ErrorCode::kInvalidInput;
    return error;
  }
  return lockfile;
}

namespace {

Result<Lockfile> read_document(const toml::table& document, std::string_view path) {
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
  const toml::node* packages = document.get("packages");
  if (!packages || !packages->as_array()) {
    return reader.error(packages, "`packages` is required: an array of tables");
  }
  for (const toml::node& entry : *packages->as_array()) {
    if (!entry.as_table()) return reader.error(&entry, "`packages`: expected tables");
    WV_ASSIGN_OR_RETURN(LockedPackage package, reader.package(*entry.as_table()));
    lockfile.packages.push_back(std::move(package));
  }
  if (const toml::node* tool = document.at_path("tool.wvlock").node()) {
    const toml::table* table = tool->as_table();
    if (!table) return reader.error(tool, "`tool.wvlock`: expected a table");
    WV_ASSIGN_OR_RETURN(lockfile.input_hash,
                        reader.string(*table, "input-hash", false, "tool.wvlock."));
    WV_ASSIGN_OR_RETURN(lockfile.input_files,
                        reader.string_table(*table, "input-files", "tool.wvlock."));
    if (const toml::node* targets = table->get("target")) {
      if (!targets->as_array()) {
        return reader.error(targets, "`tool.wvlock.target`: expected an array of tables");
      }
      for (const toml::node& entry : *targets->as_array()) {
        if (!entry.as_table()) return reader.error(&entry, "`tool.wvlock.target`: expected tables");
        WV_ASSIGN_OR_RETURN(LockedTarget target, reader.target(*entry.as_table()));
        lockfile.targets.push_back(std::move(target));
      }
    }
  }
  WV_TRY(validate(lockfile, path));
  return lockfile;
}

}  // namespace

}  // namespace wv::lock
