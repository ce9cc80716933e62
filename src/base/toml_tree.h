// A TOML document as a light tree: what the lock reader walks, whichever parser made it.
// Two parsers make it:
//  - parse_toml_subset() (base/toml_subset.h) reads the plain TOML that wvlock writes, and most
//    TOML people write, in one pass, without toml++'s DOM (per-node allocations and std::map
//    nodes were a third of a fast command's start-up). On anything outside that subset it
//    answers "not mine" rather than guess.
//  - the full parser (toml++, lock/toml_full_tree.h) reads every valid document; its DOM is
//    converted into this tree.
// fuzz/lock_toml_fuzz.cc checks that the two trees are equal whenever the subset parser answers,
// so one reader, written once against this tree, gives one answer whichever parser read.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wv {

enum class TomlKind : std::uint8_t {
  kString,
  kInteger,
  kBoolean,
  kOffsetDateTime,  ///< text: "YYYY-MM-DDTHH:MM:SS.NNNNNNNNN+HH:MM", one spelling per instant
  kArray,
  kTable,
  kOther,  ///< a float, a local date or time: text says which (the lock uses none of them)
};

struct TomlNode {
  TomlKind kind = TomlKind::kTable;
  int line = 0;            ///< where the value starts (a section: its header's line)
  std::string_view text;   ///< a string's value, a date-time's spelling, kOther's kind
  std::int64_t integer = 0;
  bool boolean = false;
  std::uint8_t origin = 0;  ///< the subset parser's bookkeeping: how a table or array was made
  std::vector<const TomlNode*> items;                                ///< an array's
  std::vector<std::pair<std::string_view, const TomlNode*>> members;  ///< a table's, by key

  bool is_string() const { return kind == TomlKind::kString; }
  bool is_integer() const { return kind == TomlKind::kInteger; }
  bool is_boolean() const { return kind == TomlKind::kBoolean; }
  bool is_array() const { return kind == TomlKind::kArray; }
  bool is_table() const { return kind == TomlKind::kTable; }

  /// A table's member, or null (also when this is not a table).
  const TomlNode* get(std::string_view key) const;
  /// get() along a path of keys, through tables only: get_path({"tool", "wvlock"}).
  const TomlNode* get_path(std::initializer_list<std::string_view> keys) const;
};

/// The nodes of one document. Strings and keys may point into the parsed text (the subset
/// parser's, where no escape needs decoding): keep that text alive while the tree is used.
class TomlTree {
 public:
  TomlTree();
  TomlTree(TomlTree&&) noexcept;
  TomlTree& operator=(TomlTree&&) noexcept;
  ~TomlTree();

  const TomlNode& root() const { return *root_; }
  TomlNode& mutable_root() { return *root_; }

  /// A new node, owned by the tree; its address never changes.
  TomlNode& add(TomlKind kind, int line);
  /// `text` kept for the tree's lifetime.
  std::string_view keep(std::string text);
  /// Sorts every table's members by key (what get() needs), once the document is complete.
  void finish();

 private:
  static constexpr std::size_t kChunk = 128;
  std::vector<std::unique_ptr<TomlNode[]>> chunks_;
  std::size_t used_ = kChunk;  // nodes used in the last chunk
  std::vector<std::unique_ptr<std::string>> strings_;
  TomlNode* root_ = nullptr;
};

/// The one spelling of an offset date-time that both parsers give (TomlKind::kOffsetDateTime):
/// every field zero-padded, nine fraction digits, the offset as +HH:MM (Z is +00:00).
std::string toml_offset_date_time(int year, int month, int day, int hour, int minute, int second,
                                  unsigned nanosecond, int offset_minutes);

/// The tree as text, one node per line with its kind, line and value, members in key order:
/// what the differential fuzz target and tests compare, and print when they differ.
std::string toml_tree_dump(const TomlNode& node);

}  // namespace wv
