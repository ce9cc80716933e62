// pylock.toml writer: fixed key order for the PEP 751 keys a reader looks at first (name,
// version, ...), sorted keys everywhere else, no timestamps, no absolute paths added here.
#include "src/base/str.h"
#include "lock/lockfile.h"
#include "lock/toml_value.h"
#include "lock/variants_table.h"
#include "src/pkg/wheel_filename.h"

namespace wv::lock {
namespace {

TomlValue strings(const std::vector<std::string>& items) {
  TomlArray array;
  for (const std::string& item : items) array.emplace_back(item);
  return TomlValue(std::move(array));
}

// Inline tables keep TOML's key order sorted; PEP 751 readers do not care, and name-first
// reads better, so sources are written by hand in a fixed order: name, url|path, size,
// upload-time, hashes for files; the identifying keys first for source trees. Empty optional
// keys are left out.
using Fields = std::vector<std::pair<std::string_view, std::string>>;  // key, TOML value

std::string inline_table(const Fields& fields) {
  std::string out = "{ ";
  bool first = true;
  for (const auto& [key, value] : fields) {
    if (value.empty()) continue;
    out += str_cat(first ? "" : ", ", key, " = ", value);
    first = false;
  }
  return out + " }";
}

std::string quoted(const std::string& text) { return text.empty() ? "" : toml_quote(text); }

Fields location_fields(const LockedFile& file) {
  return {{"url", quoted(file.url)},
          {"path", quoted(file.path)},
          {"size", file.size ? std::to_string(*file.size) : ""},
          // A TOML offset date-time, bare (PEP 751), already in its one UTC spelling.
          {"upload-time", file.upload_time},
          {"hashes", "{ sha256 = " + toml_quote(file.sha256) + " }"}};
}

std::string file_inline(const LockedFile& file) {
  Fields fields = location_fields(file);
  fields.insert(fields.begin(), {"name", toml_quote(file.name)});
  return inline_table(fields);
}

// An archive has no `name` in PEP 751: readers take it from the url or path.
std::string archive_inline(const LockedArchive& archive) {
  Fields fields = location_fields(archive.file);
  fields.emplace_back("subdirectory", quoted(archive.subdirectory));
  return inline_table(fields);
}

std::string directory_inline(const LockedDirectory& directory) {
  return inline_table({{"path", toml_quote(directory.path)},
                       {"editable", directory.editable ? "true" : ""},
                       {"subdirectory", quoted(directory.subdirectory)}});
}

std::string vcs_inline(const LockedVcs& vcs) {
  return inline_table({{"type", toml_quote(vcs.type)},
                       {"url", quoted(vcs.url)},
                       {"path", quoted(vcs.path)},
                       {"requested-revision", quoted(vcs.requested_revision)},
                       {"commit-id", toml_quote(vcs.commit_id)},
                       {"subdirectory", quoted(vcs.subdirectory)}});
}

void write_sources(std::string& out, const LockedPackage& package) {
  if (package.directory) out += "directory = " + directory_inline(*package.directory) + "\n";
  if (package.vcs) out += "vcs = " + vcs_inline(*package.vcs) + "\n";
  if (package.archive) out += "archive = " + archive_inline(*package.archive) + "\n";
  if (package.sdist) out += "sdist = " + file_inline(*package.sdist) + "\n";
  if (!package.wheels.empty()) {
    out += "wheels = [\n";
    for (const LockedFile& wheel : package.wheels) out += "  " + file_inline(wheel) + ",\n";
    out += "]\n";
  }
}

// `[packages.tool.wvlock]`: a source tree's version lives here, since PEP 751 forbids a
// top-level one for directory and vcs entries.
void write_package_tool(std::string& out, const LockedPackage& package) {
  TomlTable tool;
  if (!package.index_name.empty()) tool["index-name"] = package.index_name;
  if (package.is_project) tool["project"] = true;
  if (package.workspace_member) tool["workspace-member"] = true;
  if ((package.directory || package.vcs) && !package.version.empty()) {
    tool["version"] = package.version;
  }
  if (!tool.empty()) write_toml_section(out, {"packages", "tool", "wvlock"}, tool);
}

void line(std::string& out, std::string_view key, const TomlValue& value) {
  TomlTable single{{std::string(key), value}};
  write_toml_section(out, {}, single);
}

}  // namespace

std::string write_lockfile(const Lockfile& original) {
  Lockfile lockfile = original;
  canonicalize(lockfile);
  std::string out;
  line(out, "lock-version", lockfile.lock_version);
  line(out, "created-by", lockfile.created_by);
  if (!lockfile.requires_python.empty()) line(out, "requires-python", lockfile.requires_python);
  line(out, "environments", strings(lockfile.environments));
  line(out, "extras", strings(lockfile.extras));
  line(out, "dependency-groups", strings(lockfile.dependency_groups));
  line(out, "default-groups", strings(lockfile.default_groups));

  for (const LockedPackage& package : lockfile.packages) {
    out += "\n[[packages]]\n";
    line(out, "name", package.name.str());
    if (!package.directory && !package.vcs) line(out, "version", package.version);
    if (!package.marker.empty()) line(out, "marker", package.marker);
    if (!package.requires_python.empty()) line(out, "requires-python", package.requires_python);
    if (!package.index.empty()) line(out, "index", package.index);
    write_sources(out, package);
    if (package.variants) {
      // Keep the metadata of every label a listed wheel carries (PEP 825 allows dropping
      // the others).
      std::set<std::string> used;
      for (const LockedFile& wheel : package.wheels) {
        auto filename = pkg::parse_wheel_filename(wheel.name);
        if (filename && filename->variant_label) used.insert(*filename->variant_label);
      }
      write_toml_section(out, {"packages", "variants-json"},
                         variants_to_table(*package.variants, used));
    }
    write_package_tool(out, package);
    for (const auto& [target, use] : package.targets) {
      TomlTable table;
      table["wheels"] = strings(use.wheels);
      table["dependencies"] = strings(use.dependencies);
      if (!use.extra_dependencies.empty()) {
        TomlTable extras;
        for (const auto& [extra, edges] : use.extra_dependencies) extras[extra] = strings(edges);
        table["extra-dependencies"] = TomlValue(std::move(extras));
      }
      write_toml_section(out, {"packages", "tool", "wvlock", "targets", target}, table);
    }
  }

  // A plain lock (an export) has nothing of wvlock's own to say.
  if (lockfile.targets.empty() && lockfile.input_hash.empty()) return out;
  out += "\n[tool.wvlock]\n";
  line(out, "input-hash", lockfile.input_hash);
  if (!lockfile.input_files.empty()) {
    TomlTable files;
    for (const auto& [path, digest] : lockfile.input_files) files[path] = digest;
    line(out, "input-files", TomlValue(std::move(files)));
  }
  for (const LockedTarget& target : lockfile.targets) {
    out += "\n[[tool.wvlock.target]]\n";
    line(out, "name", target.name);
    // One Python of a target declared with several: the name `--target` also accepts.
    if (!target.declared.declared_name.empty()) {
      line(out, "declared-name", target.declared.declared_name);
    }
    line(out, "marker", target.marker);
    line(out, "roots", strings(target.roots));
    for (const auto& [key, roots] : {std::pair{"extra-roots", &target.extra_roots},
                                     std::pair{"group-roots", &target.group_roots}}) {
      if (roots->empty()) continue;
      TomlTable table;
      for (const auto& [name, edges] : *roots) table[name] = strings(edges);
      line(out, key, TomlValue(std::move(table)));
    }
    TomlTable facts;
    for (const auto& [key, value] : targets::declared_facts(target.declared)) facts[key] = value;
    write_toml_section(out, {"tool", "wvlock", "target", "facts"}, facts);
    for (const auto& [key, namespaces] :
         {std::pair{"properties", &target.declared.profile.properties},
          std::pair{"providers", &target.provider_output}}) {
      TomlTable table;
      for (const auto& [name, features] : *namespaces) {
        TomlTable feature_table;
        for (const auto& [feature, values] : features) feature_table[feature] = strings(values);
        table[name] = TomlValue(std::move(feature_table));
      }
      if (!table.empty()) write_toml_section(out, {"tool", "wvlock", "target", key}, table);
    }
  }
  return out;
}

}  // namespace wv::lock
