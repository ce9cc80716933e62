// pylock.toml writer: fixed key order for the PEP 751 keys a reader looks at first (name,
// version, ...), sorted keys everywhere else, no timestamps, no absolute paths added here.
#include "lock/lockfile.h"
#include "lock/toml_value.h"
#include "lock/variants_table.h"
#include "pkg/wheel_filename.h"

namespace wv::lock {
namespace {

TomlValue strings(const std::vector<std::string>& items) {
  TomlArray array;
  for (const std::string& item : items) array.emplace_back(item);
  return TomlValue(std::move(array));
}

// Inline tables keep TOML's key order sorted; PEP 751 readers do not care, and name-first
// reads better, so files are written by hand in the order name, url|path, size, hashes.
std::string file_inline(const LockedFile& file) {
  std::string out = "{ name = " + toml_quote(file.name);
  if (!file.url.empty()) out += ", url = " + toml_quote(file.url);
  if (!file.path.empty()) out += ", path = " + toml_quote(file.path);
  if (file.size) out += ", size = " + std::to_string(*file.size);
  out += ", hashes = { sha256 = " + toml_quote(file.sha256) + " } }";
  return out;
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
    line(out, "name", package.name);
    line(out, "version", package.version);
    if (!package.marker.empty()) line(out, "marker", package.marker);
    if (!package.requires_python.empty()) line(out, "requires-python", package.requires_python);
    if (!package.index.empty()) line(out, "index", package.index);
    if (package.sdist) out += "sdist = " + file_inline(*package.sdist) + "\n";
    if (!package.wheels.empty()) {
      out += "wheels = [\n";
      for (const LockedFile& wheel : package.wheels) out += "  " + file_inline(wheel) + ",\n";
      out += "]\n";
    }
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
    if (!package.index_name.empty()) {
      TomlTable tool;
      tool["index-name"] = package.index_name;
      write_toml_section(out, {"packages", "tool", "wvlock"}, tool);
    }
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

  out += "\n[tool.wvlock]\n";
  line(out, "input-hash", lockfile.input_hash);
  for (const LockedTarget& target : lockfile.targets) {
    out += "\n[[tool.wvlock.target]]\n";
    line(out, "name", target.name);
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
