// toml++'s DOM into the light tree (lock/toml_full_tree.h): the one file of lock/ that includes
// toml++. Values keep toml++'s source lines, so errors read the same whichever parser was used.
#include "lock/toml_full_tree.h"

#include <toml++/toml.h>

#include "src/base/str.h"

namespace wv::lock {
namespace {

const char* other_kind(const toml::node& node) {
  if (node.is_floating_point()) return "float";
  if (node.is_date()) return "local date";
  if (node.is_time()) return "local time";
  return "local date-time";
}

TomlNode& convert(const toml::node& node, TomlTree& tree, TomlNode* into = nullptr) {
  const int line = int(node.source().begin.line);
  if (const auto* table = node.as_table()) {
    TomlNode& out = into ? *into : tree.add(TomlKind::kTable, line);
    out.line = line;
    for (const auto& [key, item] : *table) {
      out.members.emplace_back(tree.keep(std::string(key.str())), &convert(item, tree));
    }
    return out;
  }
  if (const auto* array = node.as_array()) {
    TomlNode& out = tree.add(TomlKind::kArray, line);
    for (const toml::node& item : *array) out.items.push_back(&convert(item, tree));
    return out;
  }
  if (const auto* text = node.as_string()) {
    TomlNode& out = tree.add(TomlKind::kString, line);
    out.text = tree.keep(text->get());
    return out;
  }
  if (const auto* number = node.as_integer()) {
    TomlNode& out = tree.add(TomlKind::kInteger, line);
    out.integer = number->get();
    return out;
  }
  if (const auto* flag = node.as_boolean()) {
    TomlNode& out = tree.add(TomlKind::kBoolean, line);
    out.boolean = flag->get();
    return out;
  }
  const auto* when = node.as_date_time();
  if (when && when->get().offset) {
    const toml::date_time& value = when->get();
    TomlNode& out = tree.add(TomlKind::kOffsetDateTime, line);
    out.text = tree.keep(toml_offset_date_time(
        int(value.date.year), int(value.date.month), int(value.date.day), int(value.time.hour),
        int(value.time.minute), int(value.time.second), unsigned(value.time.nanosecond),
        int(value.offset->minutes)));
    return out;
  }
  TomlNode& out = tree.add(TomlKind::kOther, line);
  out.text = other_kind(node);
  return out;
}

}  // namespace

Result<TomlTree> parse_toml_full(std::string_view text, std::string_view path) {
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& failure) {
    return make_error(ErrorCode::kParse,
                      str_cat(path, ":", failure.source().begin.line, ":",
                              failure.source().begin.column, ": ", failure.description()));
  }
  TomlTree tree;
  convert(document, tree, &tree.mutable_root());
  tree.finish();  // toml++ iterates in key order already; finish() keeps get()'s contract explicit
  return tree;
}

}  // namespace wv::lock
