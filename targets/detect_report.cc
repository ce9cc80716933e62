// `wvlock detect` report rendering.
#include "targets/detect_report.h"

#include <functional>

#include "src/base/json_writer.h"
#include "src/base/str.h"
#include "targets/providers.h"
#include "targets/target.h"

namespace wv::targets {
namespace {

// One fact as (name, printable value or nullopt, source).
struct Row {
  std::string name;
  std::optional<std::string> text;  // for the text report
  std::optional<std::string> json;  // the JSON value
  FactSource source;
};

std::string json_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& item : items) quoted.push_back(json_quote(item));
  return str_cat("[", join(quoted, ", "), "]");
}

template <class T>
Row row(std::string name, const Fact<T>& fact,
        const std::function<std::string(const T&)>& text,
        const std::function<std::string(const T&)>& json) {
  Row r{std::move(name), std::nullopt, std::nullopt, fact.source};
  if (fact.value) {
    r.text = text(*fact.value);
    r.json = json(*fact.value);
  }
  return r;
}

Row version_row(std::string name, const Fact<MajorMinor>& fact) {
  return row<MajorMinor>(
      std::move(name), fact, [](const MajorMinor& v) { return v.to_string(); },
      [](const MajorMinor& v) { return json_quote(v.to_string()); });
}

Row list_row(std::string name, const Fact<std::vector<std::string>>& fact) {
  return row<std::vector<std::string>>(
      std::move(name), fact,
      [](const std::vector<std::string>& v) { return v.empty() ? "(none)" : join(v, ", "); },
      json_list);
}

std::vector<Row> rows(const HostProfile& host) {
  std::vector<Row> out;
  out.push_back(row<OsKind>(
      "os", host.os, [](const OsKind& v) { return std::string(to_string(v)); },
      [](const OsKind& v) { return json_quote(to_string(v)); }));
  out.push_back(row<std::string>(
      "arch", host.arch, [](const std::string& v) { return v; }, json_quote));
  out.push_back(row<LibcKind>(
      "libc", host.libc, [](const LibcKind& v) { return std::string(to_string(v)); },
      [](const LibcKind& v) { return json_quote(to_string(v)); }));
  out.push_back(version_row("libc_version", host.libc_version));
  out.push_back(version_row("macos_version", host.macos_version));
  out.push_back(version_row("python_version", host.python_version));
  out.push_back(row<int>(
      "x86_64_level", host.x86_64_level, [](const int& v) { return str_cat("v", v); },
      [](const int& v) { return std::to_string(v); }));
  out.push_back(list_row("x86_64_features", host.x86_64_features));
  out.push_back(row<std::string>(
      "aarch64_version", host.aarch64_version, [](const std::string& v) { return v; },
      json_quote));
  out.push_back(list_row("aarch64_features", host.aarch64_features));
  out.push_back(version_row("cuda_driver_version", host.cuda_driver_version));
  out.push_back(row<std::string>(
      "nvidia_kernel_driver", host.nvidia_kernel_driver, [](const std::string& v) { return v; },
      json_quote));
  auto capabilities = [](const std::vector<MajorMinor>& v) {
    std::vector<std::string> items;
    for (const MajorMinor& cc : v) items.push_back(cc.to_string());
    return items;
  };
  out.push_back(row<std::vector<MajorMinor>>(
      "compute_capabilities", host.compute_capabilities,
      [&](const std::vector<MajorMinor>& v) {
        return v.empty() ? std::string("(no GPU)") : join(capabilities(v), ", ");
      },
      [&](const std::vector<MajorMinor>& v) { return json_list(capabilities(v)); }));
  out.push_back(version_row("rocm_version", host.rocm_version));
  out.push_back(list_row("gfx_archs", host.gfx_archs));
  out.push_back(list_row("intel_device_ips", host.intel_device_ips));
  return out;
}

}  // namespace

namespace {

void write_facts(JsonWriter& json, const std::vector<Row>& facts) {
  json.begin_object();
  for (const Row& fact : facts) {
    json.key(fact.name).begin_object().key("value").raw(fact.json.value_or("null"));
    json.field("source", to_string(fact.source)).end();
  }
  json.end();
}

// The JSON shape of docs/json.md ("detect"): each fact's value is already JSON text.
std::string render_json(const std::vector<Row>& facts,
                        const std::vector<std::pair<std::string, std::vector<SupportedFeature>>>& outputs,
                        const HostProfile& host) {
  JsonWriter json;
  json.begin_object().field("version", 1).key("facts");
  write_facts(json, facts);
  json.key("providers").begin_object();
  for (const auto& [name, features] : outputs) {
    json.key(name).begin_array();
    for (const SupportedFeature& feature : features) {
      json.begin_object().field("feature", feature.name).key("values").strings(feature.values);
      json.field("multi_value", feature.multi_value).end();
    }
    json.end();
  }
  json.end().key("properties").begin_object();
  for (const auto& [ns, features] : host.properties) {
    json.key(ns).begin_object();
    for (const auto& [feature, values] : features) json.key(feature).strings(values);
    json.end();
  }
  json.end().key("notes").strings(host.notes).end();
  return json.text();
}

}  // namespace

void write_facts_json(JsonWriter& json, const HostProfile& host) { write_facts(json, rows(host)); }

std::string render_detect_report(const HostProfile& host, bool json) {
  const std::vector<Row> facts = rows(host);
  std::vector<std::pair<std::string, std::vector<SupportedFeature>>> outputs;
  for (std::string_view name : kBuiltinProviders) {
    outputs.emplace_back(std::string(name), *run_provider(name, host));
  }
  if (json) return render_json(facts, outputs, host);
  std::string out;
  out += str_cat("host: ", describe(host), "\n\nfacts:\n");
  std::size_t width = 0;
  for (const Row& r : facts) width = std::max(width, r.name.size());
  for (const Row& r : facts) {
    out += str_cat("  ", r.name, std::string(width - r.name.size() + 2, ' '),
                   r.text.value_or("-"));
    if (r.text || r.source != FactSource::kUnknown) {
      out += str_cat("  (", to_string(r.source), ")");
    }
    out += "\n";
  }
  out += "\nproviders:\n";
  for (const auto& [name, features] : outputs) {
    if (features.empty()) {
      out += str_cat("  ", name, ": nothing supported\n");
      continue;
    }
    out += str_cat("  ", name, ":\n");
    for (const SupportedFeature& feature : features) {
      out += str_cat("    ", name, " :: ", feature.name, " :: ", join(feature.values, ", "), "\n");
    }
  }
  if (!host.properties.empty()) {
    out += "\ndeclared properties:\n";
    for (const auto& [ns, features] : host.properties) {
      for (const auto& [feature, values] : features) {
        out += str_cat("    ", ns, " :: ", feature, " :: ", join(values, ", "), "\n");
      }
    }
  }
  if (!host.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& note : host.notes) out += str_cat("  ", note, "\n");
  }
  return out;
}

}  // namespace wv::targets
