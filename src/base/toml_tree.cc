// The light TOML tree (base/toml_tree.h): an arena of nodes, lookup by binary search.
#include "src/base/toml_tree.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "src/base/str.h"

namespace wv {

const TomlNode* TomlNode::get(std::string_view key) const {
  if (kind != TomlKind::kTable) return nullptr;
  auto found = std::lower_bound(members.begin(), members.end(), key,
                                [](const auto& member, std::string_view k) { return member.first < k; });
  return found != members.end() && found->first == key ? found->second : nullptr;
}

const TomlNode* TomlNode::get_path(std::initializer_list<std::string_view> keys) const {
  const TomlNode* node = this;
  for (std::string_view key : keys) {
    node = node->get(key);
    if (!node) return nullptr;
  }
  return node;
}

TomlTree::TomlTree() { root_ = &add(TomlKind::kTable, 1); }
TomlTree::TomlTree(TomlTree&&) noexcept = default;
TomlTree& TomlTree::operator=(TomlTree&&) noexcept = default;
TomlTree::~TomlTree() = default;

TomlNode& TomlTree::add(TomlKind kind, int line) {
  if (used_ == kChunk) {
    chunks_.push_back(std::make_unique<TomlNode[]>(kChunk));
    used_ = 0;
  }
  TomlNode& node = chunks_.back()[used_++];
  node.kind = kind;
  node.line = line;
  return node;
}

std::string_view TomlTree::keep(std::string text) {
  strings_.push_back(std::make_unique<std::string>(std::move(text)));
  return *strings_.back();
}

void TomlTree::finish() {
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    const std::size_t count = c + 1 == chunks_.size() ? used_ : kChunk;
    for (std::size_t i = 0; i < count; ++i) {
      auto& members = chunks_[c][i].members;
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
    }
  }
}

std::string toml_offset_date_time(int year, int month, int day, int hour, int minute, int second,
                                  unsigned nanosecond, int offset_minutes) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%09u%c%02d:%02d", year,
                month, day, hour, minute, second, nanosecond, offset_minutes < 0 ? '-' : '+',
                std::abs(offset_minutes) / 60, std::abs(offset_minutes) % 60);
  return buffer;
}

namespace {

const char* kind_name(TomlKind kind) {
  switch (kind) {
    case TomlKind::kString: return "string";
    case TomlKind::kInteger: return "integer";
    case TomlKind::kBoolean: return "boolean";
    case TomlKind::kOffsetDateTime: return "date-time";
    case TomlKind::kArray: return "array";
    case TomlKind::kTable: return "table";
    case TomlKind::kOther: return "other";
  }
  return "?";
}

void dump(const TomlNode& node, std::string_view name, int depth, std::string& out) {
  out.append(std::size_t(depth) * 2, ' ');
  out += str_cat(name, ": ", kind_name(node.kind), " @", node.line);
  if (node.kind == TomlKind::kInteger) out += str_cat(" ", node.integer);
  if (node.kind == TomlKind::kBoolean) out += node.boolean ? " true" : " false";
  if (!node.text.empty() || node.kind == TomlKind::kString) {
    out += " \"";
    out += node.text;
    out += '"';
  }
  out += '\n';
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    dump(*node.items[i], str_cat("[", i, "]"), depth + 1, out);
  }
  for (const auto& [key, member] : node.members) dump(*member, key, depth + 1, out);
}

}  // namespace

std::string toml_tree_dump(const TomlNode& node) {
  std::string out;
  dump(node, "(root)", 0, out);
  return out;
}

}  // namespace wv
