// `wvlock detect` report rendering.
#include "targets/detect_report.h"

#include <functional>

#include "base/str.h"
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

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte < 0x20) {
          const char* hex = "0123456789abcdef";
          out += "\\u00";
          out.push_back(hex[byte >> 4]);
          out.push_back(hex[byte & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

std::string render_detect_report(const HostProfile& host, bool json) {
  const std::vector<Row> facts = rows(host);
  std::vector<std::pair<std::string, std::vector<SupportedFeature>>> outputs;
  for (std::string_view name : kBuiltinProviders) {
    outputs.emplace_back(std::string(name), *run_provider(name, host));
  }
  std::string out;
  if (json) {
    out += "{\n  \"facts\": {\n";
    for (std::size_t i = 0; i < facts.size(); ++i) {
      out += str_cat("    ", json_quote(facts[i].name), ": {\"value\": ",
                     facts[i].json.value_or("null"), ", \"source\": ",
                     json_quote(to_string(facts[i].source)), "}",
                     i + 1 < facts.size() ? "," : "", "\n");
    }
    out += "  },\n  \"providers\": {\n";
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      out += str_cat("    ", json_quote(outputs[i].first), ": [");
      const auto& features = outputs[i].second;
      for (std::size_t j = 0; j < features.size(); ++j) {
        out += str_cat(j == 0 ? "\n" : ",\n", "      {\"feature\": ", json_quote(features[j].name),
                       ", \"values\": ", json_list(features[j].values), ", \"multi_value\": ",
                       features[j].multi_value ? "true" : "false", "}");
      }
      out += str_cat(features.empty() ? "]" : "\n    ]", i + 1 < outputs.size() ? "," : "", "\n");
    }
    out += "  },\n  \"properties\": {";
    std::size_t n = 0;
    for (const auto& [ns, features] : host.properties) {
      out += str_cat(n++ == 0 ? "\n" : ",\n", "    ", json_quote(ns), ": {");
      std::size_t m = 0;
      for (const auto& [feature, values] : features) {
        out += str_cat(m++ == 0 ? "" : ", ", json_quote(feature), ": ", json_list(values));
      }
      out += "}";
    }
    out += host.properties.empty() ? "},\n" : "\n  },\n";
    out += str_cat("  \"notes\": ", json_list(host.notes), "\n}\n");
    return out;
  }

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
