#include "src/pkg/pyproject_edit.h"

#include <optional>
#include <utility>

#include "src/base/str.h"
#include "src/pkg/name.h"
#include "src/pkg/toml_scan.h"

namespace wv::pkg {
namespace {

using toml_scan::Array;
using toml_scan::ArrayItem;
using toml_scan::Document;
using toml_scan::KeyValue;
using toml_scan::kNone;

std::vector<std::string> sources_path(std::string_view tool) {
  return {"tool", std::string(tool), "sources"};
}

// The table that holds `list`, and the list's key in it.
std::vector<std::string> parent_path(const DependencyList& list) {
  switch (list.kind) {
    case DependencyList::Kind::kProject: return {"project"};
    case DependencyList::Kind::kOptional: return {"project", "optional-dependencies"};
    case DependencyList::Kind::kGroup: return {"dependency-groups"};
  }
  return {};
}

std::string list_key(const DependencyList& list) {
  return list.kind == DependencyList::Kind::kProject ? "dependencies" : list.name;
}

bool starts_with_path(const std::vector<std::string>& path,
                      const std::vector<std::string>& prefix) {
  if (path.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (path[i] != prefix[i]) return false;
  }
  return true;
}

// The dependency list a key/value is, when it is one.
std::optional<DependencyList> list_of(const KeyValue& value) {
  const std::vector<std::string>& path = value.path;
  if (path.size() == 2 && path[0] == "project" && path[1] == "dependencies") {
    return DependencyList{};
  }
  if (path.size() == 3 && path[0] == "project" && path[1] == "optional-dependencies") {
    return DependencyList{DependencyList::Kind::kOptional, normalize_name(path[2])};
  }
  if (path.size() == 2 && path[0] == "dependency-groups") {
    return DependencyList{DependencyList::Kind::kGroup, normalize_name(path[1])};
  }
  return std::nullopt;
}

// The source entry of `package`: `[tool.TOOL.sources]` NAME, in any spelling.
bool is_source_of(const KeyValue& value, std::string_view package,
                  const std::vector<std::string>& sources) {
  return value.path.size() == 4 && starts_with_path(value.path, sources) &&
         normalize_name(value.path[3]) == package;
}

bool only_blanks(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

// What follows `position` on its line is at most blanks and a comment.
bool rest_of_line_is_free(std::string_view text, std::size_t position) {
  while (position < text.size() && (text[position] == ' ' || text[position] == '\t')) ++position;
  return position >= text.size() || text[position] == '#' || text[position] == '\n' ||
         text[position] == '\r';
}

// Whether `item` sits alone on its lines (nothing before it, only its comma, blanks and a
// comment after it).
std::size_t item_tail(std::string_view text, const ArrayItem& item) {
  const bool comma_on_line = item.comma != kNone &&
                             text.substr(item.end, item.comma - item.end).find('\n') == kNone;
  return comma_on_line ? item.comma + 1 : item.end;
}

bool alone_on_line(std::string_view text, const ArrayItem& item) {
  const std::size_t begin = toml_scan::line_begin(text, item.begin);
  return only_blanks(text.substr(begin, item.begin - begin)) &&
         rest_of_line_is_free(text, item_tail(text, item));
}

// A requirement as an array item, in the quotes of `like` when they can hold it.
std::string quoted(std::string_view requirement, std::string_view like = "") {
  if (!like.empty() && like[0] == '\'' && requirement.find('\'') == std::string_view::npos) {
    return str_cat("'", requirement, "'");
  }
  return toml_scan::format_string(requirement);
}

// The indentation of the array's items that start their lines; four spaces when none does.
std::string item_indent(std::string_view text, const Array& array) {
  for (const ArrayItem& item : array.items) {
    const std::size_t begin = toml_scan::line_begin(text, item.begin);
    if (begin > array.open && only_blanks(text.substr(begin, item.begin - begin))) {
      return std::string(text.substr(begin, item.begin - begin));
    }
  }
  return "    ";
}

std::string spliced(std::string_view text, std::size_t begin, std::size_t end,
                    std::string_view replacement) {
  return str_cat(text.substr(0, begin), replacement, text.substr(end));
}

// Where `requirement` goes among the items: before the first string item that sorts after it
// when the strings are sorted (by name, then text, case-insensitively), else after the last
// string item (include-group tables stay last).
std::size_t insertion_index(const Array& array, std::string_view requirement) {
  auto key = [](std::string_view text) {
    return std::make_pair(requirement_name(text), to_lower(text));
  };
  bool sorted = true;
  std::optional<std::pair<std::string, std::string>> last;
  std::size_t after_last_string = array.items.size();
  for (std::size_t i = 0; i < array.items.size(); ++i) {
    if (!array.items[i].string_value) continue;
    auto current = key(*array.items[i].string_value);
    if (last && current < *last) sorted = false;
    last = current;
    after_last_string = i + 1;
  }
  if (sorted) {
    const auto wanted = key(requirement);
    for (std::size_t i = 0; i < array.items.size(); ++i) {
      if (array.items[i].string_value && key(*array.items[i].string_value) > wanted) return i;
    }
  }
  return after_last_string;
}

// `text` with `item` (TOML text) inserted into `array` at `index`, in the array's style.
std::string insert_item(std::string_view text, const Document& document, const Array& array,
                        std::size_t index, std::string_view item, bool in_inline_table) {
  const std::string& eol = document.eol;
  const bool multi_line = text.substr(array.open, array.close - array.open).find('\n') != kNone;
  const std::string indent = item_indent(text, array);
  if (array.items.empty()) {
    if (multi_line) {
      const std::size_t close_line = toml_scan::line_begin(text, array.close);
      if (only_blanks(text.substr(close_line, array.close - close_line))) {
        return spliced(text, close_line, close_line, str_cat(indent, item, ",", eol));
      }
      return spliced(text, array.close, array.close, str_cat(eol, indent, item, ",", eol));
    }
    // `[]`: one item per line, as uv writes a new array; inline inside an inline table.
    if (in_inline_table) return spliced(text, array.open + 1, array.close, item);
    return spliced(text, array.open, array.close + 1,
                   str_cat("[", eol, indent, item, ",", eol, "]"));
  }
  if (index == 0) {
    const ArrayItem& first = array.items[0];
    if (multi_line && alone_on_line(text, first)) {
      const std::size_t begin = toml_scan::line_begin(text, first.begin);
      return spliced(text, begin, begin, str_cat(indent, item, ",", eol));
    }
    return spliced(text, first.begin, first.begin, str_cat(item, ", "));
  }
  const ArrayItem& previous = array.items[index - 1];
  const bool last = index == array.items.size();
  if (multi_line && alone_on_line(text, previous)) {
    // A new line after the previous item's; at the end, before `]`'s line so that comments
    // closing the array stay above the new item (uv's order).
    std::size_t at = toml_scan::line_end(text, item_tail(text, previous));
    const std::size_t close_line = toml_scan::line_begin(text, array.close);
    if (last && close_line >= at && only_blanks(text.substr(close_line, array.close - close_line))) {
      at = close_line;
    }
    std::string out = spliced(text, at, at, str_cat(indent, item, previous.comma == kNone ? "" : ",", eol));
    // No trailing comma before: the previous item gets one, the new item none (the style).
    if (previous.comma == kNone) out = spliced(out, previous.end, previous.end, ",");
    return out;
  }
  if (previous.comma != kNone) {
    return spliced(text, previous.comma + 1, previous.comma + 1,
                   str_cat(" ", item, ","));
  }
  return spliced(text, previous.end, previous.end, str_cat(", ", item));
}

// `text` without `array.items[index]`.
std::string remove_item(std::string_view text, const Document& document, const Array& array,
                        std::size_t index) {
  const ArrayItem& item = array.items[index];
  const bool multi_line = text.substr(array.open, array.close - array.open).find('\n') != kNone;
  const bool last = index + 1 == array.items.size();
  if (multi_line && alone_on_line(text, item)) {
    const std::size_t begin = toml_scan::line_begin(text, item.begin);
    const std::size_t tail = item_tail(text, item);
    const std::size_t end = toml_scan::line_end(text, tail);
    // Its end-of-line comment stays, on a line of its own.
    std::string_view rest = trim(text.substr(tail, end - tail));
    std::string keep =
        !rest.empty() && rest[0] == '#'
            ? str_cat(text.substr(begin, item.begin - begin), rest, document.eol)
            : std::string();
    std::string out = spliced(text, begin, end, keep);
    // The last item had no trailing comma: neither has the new last one.
    if (last && item.comma == kNone && index > 0 && array.items[index - 1].comma != kNone) {
      const std::size_t comma = array.items[index - 1].comma;
      out = spliced(out, comma, comma + 1, "");
    }
    return out;
  }
  if (item.comma != kNone) {
    std::size_t end = item.comma + 1;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    return spliced(text, item.begin, end, "");
  }
  if (index > 0) return spliced(text, array.items[index - 1].end, item.end, "");
  return spliced(text, item.begin, item.end, "");
}

// A line `key = value` (or `key = value` inside an inline table) added to the table at
// `parent`, created when absent: after the section of `anchor` when given, else at the end.
Result<std::string> insert_key(std::string_view text, const Document& document,
                               const std::vector<std::string>& parent, std::string_view key,
                               std::string_view line_value, std::string_view inline_value,
                               const std::vector<std::string>& anchor, std::string_view path) {
  const std::string& eol = document.eol;
  const std::string formatted_key = toml_scan::format_key(key);
  auto at_line = [&](std::size_t at, std::string_view line) {
    const bool needs_break = at > 0 && text[at - 1] != '\n';
    return spliced(text, at, at, str_cat(needs_break ? eol : std::string(), line, eol));
  };
  for (const toml_scan::Section& section : document.sections) {
    if (section.path == parent && !section.array_of_tables) {
      return at_line(section.content_end, str_cat(formatted_key, " = ", line_value));
    }
  }
  for (const KeyValue& value : document.values) {
    if (value.path != parent || text[value.value_begin] != '{') continue;
    WV_ASSIGN_OR_RETURN(toml_scan::InlineTable table,
                        toml_scan::scan_inline_table(text, value.value_begin, path));
    std::string entry = str_cat(formatted_key, " = ", inline_value);
    if (table.entries.empty()) return spliced(text, table.open + 1, table.close, str_cat(" ", entry, " "));
    const std::size_t end = table.entries.back().end;
    return spliced(text, end, end, str_cat(", ", entry));
  }
  // Dotted keys in a table above (`optional-dependencies.gpu = [...]` in `[project]`).
  const KeyValue* last_dotted = nullptr;
  for (const KeyValue& value : document.values) {
    if (!value.in_inline_table && value.path.size() > parent.size() &&
        starts_with_path(value.path, parent) && value.key_parts > value.path.size() - parent.size()) {
      last_dotted = &value;
    }
  }
  if (last_dotted) {
    std::string dotted;
    const std::size_t from = last_dotted->path.size() - last_dotted->key_parts;
    for (std::size_t i = from; i < parent.size(); ++i) {
      dotted += toml_scan::format_key(parent[i]) + ".";
    }
    return at_line(last_dotted->line_end, str_cat(dotted, formatted_key, " = ", line_value));
  }
  std::string header = "[";
  for (std::size_t i = 0; i < parent.size(); ++i) {
    header += (i ? "." : "") + toml_scan::format_key(parent[i]);
  }
  header += "]";
  std::string table = str_cat(eol, header, eol, formatted_key, " = ", line_value);
  if (!anchor.empty()) {
    for (const toml_scan::Section& section : document.sections) {
      if (section.path == anchor && !section.array_of_tables) {
        return at_line(section.content_end, table);
      }
    }
  }
  return at_line(text.size(), table);
}

// The first key/value of `list` whose value is an array, or nullptr.
Result<const KeyValue*> find_list(std::string_view text, const Document& document,
                                  const DependencyList& list, std::string_view path) {
  for (const KeyValue& value : document.values) {
    std::optional<DependencyList> found = list_of(value);
    if (!found || *found != list) continue;
    if (text[value.value_begin] != '[') {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(path), ": `", list.describe(),
                                "` is not an array of requirements"));
    }
    return &value;
  }
  return static_cast<const KeyValue*>(nullptr);
}

bool has_section(const Document& document, const std::vector<std::string>& wanted) {
  for (const toml_scan::Section& section : document.sections) {
    if (section.path == wanted) return true;
  }
  for (const KeyValue& value : document.values) {
    if (starts_with_path(value.path, wanted)) return true;
  }
  return false;
}

}  // namespace

std::string DependencyList::describe() const {
  switch (kind) {
    case Kind::kProject: return "project.dependencies";
    case Kind::kOptional: return "project.optional-dependencies." + name;
    case Kind::kGroup: return "dependency-groups." + name;
  }
  return "";
}

std::string requirement_name(std::string_view requirement) {
  std::string_view text = trim(requirement);
  std::size_t end = 0;
  while (end < text.size() &&
         (is_ascii_alnum(text[end]) || text[end] == '-' || text[end] == '_' || text[end] == '.')) {
    ++end;
  }
  return normalize_name(text.substr(0, end));
}

Result<std::string> add_dependency(std::string_view text, std::string_view path,
                                   const DependencyList& list, std::string_view requirement) {
  requirement = trim(requirement);
  const std::string name = requirement_name(requirement);
  if (name.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(requirement), " does not start with a package name"));
  }
  WV_ASSIGN_OR_RETURN(Document document, toml_scan::scan(text, path));
  WV_ASSIGN_OR_RETURN(const KeyValue* found, find_list(text, document, list, path));
  if (!found) {
    if (list.kind != DependencyList::Kind::kGroup && !has_section(document, {"project"})) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(path), " has no `[project]` table"));
    }
    const std::string& eol = document.eol;
    const std::string item = quoted(requirement);
    return insert_key(text, document, parent_path(list), list_key(list),
                      str_cat("[", eol, "    ", item, ",", eol, "]"), str_cat("[", item, "]"),
                      list.kind == DependencyList::Kind::kOptional
                          ? std::vector<std::string>{"project"}
                          : std::vector<std::string>{},
                      path);
  }
  WV_ASSIGN_OR_RETURN(Array array, toml_scan::scan_array(text, found->value_begin, path));
  for (const ArrayItem& item : array.items) {
    if (!item.string_value || requirement_name(*item.string_value) != name) continue;
    // A bare name keeps what is written; anything more replaces it, in its quotes.
    if (requirement.size() == name.size() && normalize_name(requirement) == name) {
      return std::string(text);
    }
    return spliced(text, item.begin, item.end,
                   quoted(requirement, text.substr(item.begin, item.end - item.begin)));
  }
  return insert_item(text, document, array, insertion_index(array, requirement),
                     quoted(requirement), found->in_inline_table);
}

Result<Removal> remove_dependency(std::string_view text, std::string_view path,
                                  const DependencyList& list, std::string_view name) {
  const std::string wanted = normalize_name(name);
  Removal removal{std::string(text), 0};
  // One item at a time, scanning again after each: offsets stay true.
  while (true) {
    WV_ASSIGN_OR_RETURN(Document document, toml_scan::scan(removal.text, path));
    WV_ASSIGN_OR_RETURN(const KeyValue* found, find_list(removal.text, document, list, path));
    if (!found) return removal;
    WV_ASSIGN_OR_RETURN(Array array, toml_scan::scan_array(removal.text, found->value_begin, path));
    std::size_t index = kNone;
    for (std::size_t i = 0; i < array.items.size(); ++i) {
      if (array.items[i].string_value && requirement_name(*array.items[i].string_value) == wanted) {
        index = i;
        break;
      }
    }
    if (index == kNone) return removal;
    removal.text = remove_item(removal.text, document, array, index);
    ++removal.removed;
  }
}

Result<std::vector<DependencyList>> lists_naming(std::string_view text, std::string_view path,
                                                 std::string_view name) {
  const std::string wanted = normalize_name(name);
  WV_ASSIGN_OR_RETURN(Document document, toml_scan::scan(text, path));
  std::vector<DependencyList> lists;
  for (const KeyValue& value : document.values) {
    std::optional<DependencyList> list = list_of(value);
    if (!list || text[value.value_begin] != '[') continue;
    WV_ASSIGN_OR_RETURN(Array array, toml_scan::scan_array(text, value.value_begin, path));
    for (const ArrayItem& item : array.items) {
      if (item.string_value && requirement_name(*item.string_value) == wanted) {
        lists.push_back(*list);
        break;
      }
    }
  }
  return lists;
}

Result<std::string> set_source(std::string_view text, std::string_view path,
                               std::string_view package, std::string_view value,
                               std::string_view tool) {
  const std::string wanted = normalize_name(package);
  const std::vector<std::string> sources_table = sources_path(tool);
  WV_ASSIGN_OR_RETURN(Document document, toml_scan::scan(text, path));
  for (const toml_scan::Section& section : document.sections) {
    if (section.path.size() == 4 && starts_with_path(section.path, sources_table) &&
        normalize_name(section.path[3]) == wanted) {
      return make_error(ErrorCode::kUnsupported,
                        str_cat(in_backticks(path), ": the source of ", in_backticks(package),
                                " is a table of its own; edit it by hand"));
    }
  }
  for (const KeyValue& entry : document.values) {
    if (is_source_of(entry, wanted, sources_table)) {
      return spliced(text, entry.value_begin, entry.value_end, value);
    }
  }
  return insert_key(text, document, sources_table, package, value, value,
                    {"tool", std::string(tool)}, path);
}

Result<Removal> remove_source(std::string_view text, std::string_view path,
                              std::string_view package, std::string_view tool) {
  const std::string wanted = normalize_name(package);
  const std::vector<std::string> sources_table = sources_path(tool);
  WV_ASSIGN_OR_RETURN(Document document, toml_scan::scan(text, path));
  for (const KeyValue& entry : document.values) {
    if (!is_source_of(entry, wanted, sources_table)) continue;
    if (!entry.in_inline_table) {
      return Removal{spliced(text, entry.line_begin, entry.line_end, ""), 1};
    }
    // `sources = { torch = {...}, ... }`: the entry and its comma.
    for (const KeyValue& table : document.values) {
      if (table.path != sources_table || text[table.value_begin] != '{') continue;
      WV_ASSIGN_OR_RETURN(toml_scan::InlineTable inline_table,
                          toml_scan::scan_inline_table(text, table.value_begin, path));
      for (std::size_t i = 0; i < inline_table.entries.size(); ++i) {
        const toml_scan::InlineEntry& item = inline_table.entries[i];
        if (item.begin != entry.key_begin) continue;
        if (item.comma != kNone) {
          std::size_t end = item.comma + 1;
          while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
          return Removal{spliced(text, item.begin, end, ""), 1};
        }
        const std::size_t begin = i > 0 ? inline_table.entries[i - 1].end : item.begin;
        return Removal{spliced(text, begin, item.end, ""), 1};
      }
    }
  }
  return Removal{std::string(text), 0};
}

Result<bool> has_sources_table(std::string_view text, std::string_view path,
                               std::string_view tool) {
  const std::vector<std::string> sources = sources_path(tool);
  WV_ASSIGN_OR_RETURN(Document document, toml_scan::scan(text, path));
  for (const toml_scan::Section& section : document.sections) {
    if (starts_with_path(section.path, sources)) return true;
  }
  for (const KeyValue& value : document.values) {
    if (starts_with_path(value.path, sources)) return true;
  }
  return false;
}

}  // namespace wv::pkg
