// The token rules of PEP 508 dependency specifiers, as packaging 26's _tokenizer.py states
// them with regular expressions (DEFAULT_RULES), written as hand-made matchers. Shared by the
// marker and requirement parsers; internal to src/pkg. Cheap to include.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv::pkg::detail {

/// Python's `\w` for the bytes we see: ASCII letters, digits, `_`, and (an approximation of
/// Unicode letters) every non-ASCII byte.
bool is_word_byte(char c);

/// A position in the text being tokenised. Every matcher returns the length of the token at
/// `position` (0: no match) and never reads past the end.
class Cursor {
 public:
  explicit Cursor(std::string_view source, std::size_t position = 0)
      : source_(source), position_(position) {}

  std::string_view source() const { return source_; }
  std::size_t position() const { return position_; }
  void advance(std::size_t length) { position_ += length; }
  /// The text of the next `length` bytes, then advances past them.
  std::string_view take(std::size_t length) {
    std::string_view text = source_.substr(position_, length);
    position_ += length;
    return text;
  }

  /// Regex `$`: the end, or a single trailing newline before it.
  bool at_end() const;
  /// `[ \t]+`
  std::size_t match_whitespace() const;
  /// Skips `[ \t]*` (the reference's consume("WS")).
  void skip_whitespace() { position_ += match_whitespace(); }
  /// One literal character (parentheses, brackets, `;`, `,`, `@`).
  bool match_char(char c) const { return position_ < source_.size() && source_[position_] == c; }
  /// `\bword\b` for keywords `and`, `or`, `in`, `not`.
  std::size_t match_keyword(std::string_view word) const;
  /// `\b(or|and)\b`
  std::size_t match_boolean_operator() const;
  /// `(===|==|~=|!=|<=|>=|<|>)`
  std::size_t match_comparison_operator() const;
  /// `'[^']*'|"[^"]*"`
  std::size_t match_quoted_string() const;
  /// The VARIABLE rule (the PEP 508 names, dotted legacy spellings, `extra`) plus our extra
  /// names (`extras`, `dependency_groups`, `variant_*`), each with `\b` on both sides.
  std::size_t match_variable() const;
  /// `\b[a-zA-Z0-9][a-zA-Z0-9._-]*\b`
  std::size_t match_identifier() const;
  /// `[^ \t]+`
  std::size_t match_url() const;
  /// The SPECIFIER rule: packaging's Specifier operator and version regexes, unanchored,
  /// case-insensitive (`>= 1.0`, `==1.*`, `===anything`, ...).
  std::size_t match_specifier() const;

  /// A kParse error quoting the source with a caret at `offset`.
  Error error(std::string_view what, std::size_t offset, std::string_view expected) const;

 private:
  bool boundary_before(std::size_t at) const;  // `\b` at `at` when source_[at] is a word byte
  bool boundary_after(std::size_t end) const;  // `\b` at `end` when source_[end-1] is one

  std::string_view source_;
  std::size_t position_ = 0;
};

/// The value of a Python string literal `token` (quotes included) as ast.literal_eval gives
/// it: escapes `\\ \' \" \a \b \f \n \r \t \v \ooo \xhh \uXXXX \UXXXXXXXX` and line
/// continuations; unknown escapes kept. Fails (with the reason) where Python raises: a
/// backslash escaping the closing quote, a raw newline, a NUL byte, a bad `\x`/`\u`/`\U`, and
/// `\N{...}` (unsupported here).
Result<std::string> python_string_value(std::string_view token);

}  // namespace wv::pkg::detail
