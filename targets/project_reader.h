// Internal to the project file reader (targets/project_file.h), shared by its .cc files
// (project_file.cc, project_targets.cc, project_indexes.cc, project_sources.cc) and by nothing
// else: the Reader that turns a toml++ node into a positioned error, the small helpers every
// table uses, and the steps one file calls in another. Includes toml++; never include it from a
// public header.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <toml++/toml.h>

#include "src/base/result.h"
#include "src/base/str.h"
#include "src/pkg/name.h"
#include "targets/default_targets.h"
#include "targets/project_file.h"

namespace wv::targets::project_reader {

inline std::string quoted_list(std::span<const std::string_view> names) {
  std::vector<std::string> quoted;
  for (std::string_view name : names) quoted.push_back(in_backticks(name));
  return join(quoted, ", ");
}

// Reads one file; every error carries `path:line:column` and the dotted key.
class Reader {
 public:
  /// `table` names the table read (`tool.wvlock`, or `tool.uv` whose keys wvlock does not act
  /// on are warnings collected in `warnings`).
  explicit Reader(std::string path, std::string table = "tool.wvlock",
                  std::vector<std::string>* warnings = nullptr)
      : path_(std::move(path)), table_(std::move(table)), warnings_(warnings) {}

  const std::string& table() const { return table_; }
  /// `tool.wvlock.NAME` (or `tool.uv.NAME`).
  std::string key(std::string_view name) const { return str_cat(table_, ".", name); }
  bool is_uv() const { return table_ == "tool.uv"; }

  void warn(const toml::source_region& where, std::string_view message) const {
    if (warnings_ == nullptr) return;
    warnings_->push_back(str_cat(in_backticks(path_), ":", where.begin.line, ":",
                                 where.begin.column, ": ", message));
  }

  Error error(const toml::source_region& where, std::string_view message) const {
    return error_at(static_cast<int>(where.begin.line), static_cast<int>(where.begin.column),
                    message);
  }

  Error error_at(int line, int column, std::string_view message) const {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(path_), ":", line, ":", column, ": ", message));
  }

  Result<bool> boolean(const toml::node& node, std::string_view key) const {
    if (const auto* value = node.as_boolean()) return value->get();
    return error(node.source(), str_cat("`", key, "` must be true or false"));
  }

  Result<std::string> string(const toml::node& node, std::string_view key) const {
    if (const auto* value = node.as_string()) return value->get();
    return error(node.source(), str_cat("`", key, "` must be a string"));
  }

  // A string or an array of strings (when `allow_single`).
  Result<std::vector<std::string>> strings(const toml::node& node, std::string_view key,
                                           bool allow_single) const {
    std::vector<std::string> out;
    if (allow_single && node.is_string()) {
      out.push_back(node.as_string()->get());
      return out;
    }
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      return error(node.source(), str_cat("`", key, "` must be ",
                                          allow_single ? "a string or " : "",
                                          "an array of strings"));
    }
    for (const toml::node& item : *array) {
      WV_ASSIGN_OR_RETURN(std::string value, string(item, key));
      out.push_back(std::move(value));
    }
    return out;
  }

  // Keys outside `allowed` are errors; in `[tool.uv]` they are uv's own settings, which wvlock
  // reads past with a warning.
  Result<void> check_keys(const toml::table& table, std::span<const std::string_view> allowed,
                          std::string_view where) const {
    for (const auto& [key, value] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
        if (is_uv()) {
          warn(key.source(), str_cat("wvlock does not act on ", in_backticks(key.str()), " in ",
                                     where, ": ignored"));
          continue;
        }
        return error(key.source(), str_cat("unknown key ", in_backticks(key.str()), " in ",
                                           where, ": expected one of ", quoted_list(allowed)));
      }
    }
    return {};
  }

  Result<MajorMinor> version(const toml::node& node, std::string_view key,
                             std::string_view what) const {
    WV_ASSIGN_OR_RETURN(std::string text, string(node, key));
    Result<MajorMinor> parsed = parse_major_minor(text, what);
    if (!parsed) return error(node.source(), str_cat("`", key, "`: ", parsed.error().message));
    return parsed;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string table_;
  std::vector<std::string>* warnings_;
};

inline bool contains(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

inline bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A table's entries in the order they were written (toml++ keeps them sorted by key), so the
// first error reported is the first in the file.
inline std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(
    const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [key, value] : table) entries.emplace_back(&key, &value);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position& x = a.first->source().begin;
    const toml::source_position& y = b.first->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return entries;
}

// Where `key` is written in `table` (the table's own position when it is not there).
inline toml::source_region key_region(const toml::table& table, std::string_view key) {
  for (const auto& [name, value] : table) {
    if (name.str() == key) return name.source();
  }
  return table.source();
}

// The PEP 503 / 685 normalised keys of `names` (extras, dependency groups).
template <class Map>
std::vector<std::string> normalized_keys(const Map& names) {
  std::vector<std::string> keys;
  for (const auto& [name, value] : names) keys.push_back(pkg::normalize_name(name));
  return keys;
}

// The Pythons of targets that declare none, asked of the caller once per file.
class LazyDefaultPythons {
 public:
  LazyDefaultPythons(const DefaultPythons& ask, const ProjectConfig& config)
      : ask_(ask), config_(config) {}
  Result<std::vector<MajorMinor>> get() {
    if (!answer_) {
      answer_ = ask_ ? ask_(config_) : Result<std::vector<MajorMinor>>(std::vector<MajorMinor>{});
    }
    return *answer_;
  }

 private:
  const DefaultPythons& ask_;
  const ProjectConfig& config_;
  std::optional<Result<std::vector<MajorMinor>>> answer_;
};

// One marker of uv's `environments` or `required-environments`, and where it is written.
struct EnvironmentMarker {
  std::string marker;
  toml::source_region where;
};

// ---- Steps one file of the reader calls in another ----

// project_targets.cc: `python`, `[[tool.wvlock.target]]`, and the targets of a project that
// declares none.
Result<std::vector<MajorMinor>> read_pythons(const Reader& reader, const toml::node& node,
                                             std::string_view key);
Result<void> read_declared_targets(const Reader& reader, const toml::node& targets,
                                   ProjectConfig& config, LazyDefaultPythons& lazy_defaults);
Result<void> check_declared_conflicts(const Reader& reader, const toml::node& conflicts,
                                      const ProjectConfig& config);
Result<void> add_default_targets(const Reader& reader,
                                 const std::vector<EnvironmentMarker>& environments,
                                 ProjectConfig& config, LazyDefaultPythons& default_pythons,
                                 const DefaultTarget& default_target);

// project_indexes.cc: the indexes and `index-strategy`.
Result<void> read_indexes(const Reader& reader, const toml::table& wvlock, ProjectConfig& config);
Result<void> read_index_strategy(const Reader& reader, const toml::table& wvlock,
                                 ProjectConfig& config);

// project_sources.cc: `[tool.wvlock.sources]`.
Result<void> read_sources(const Reader& reader, const toml::table& wvlock, ProjectConfig& config);

}  // namespace wv::targets::project_reader
