// PEP 440 versions: a hand-written parser equivalent to packaging 26's VERSION_PATTERN
// (matched with re.IGNORECASE, surrounded by \s*), the compact order key, and the ordering of
// packaging's _cmpkey.
#include "src/pkg/version.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "src/base/hash.h"
#include "src/base/str.h"
#include "src/pkg/version_text.h"

namespace wv::pkg {

// One dot-separated segment of a local label. Numeric segments compare as integers (kept as
// digit strings without leading zeros, so any length works) and sort after alphanumeric ones.
struct VersionLocalPart {
  std::string text;  // lower case; digits without leading zeros when numeric
  bool numeric = false;
};

using LocalPart = VersionLocalPart;

namespace {

// ---- the order key ---------------------------------------------------------------------------
// Every version has a 64-bit key that is monotone with the PEP 440 order (a < b implies
// key(a) <= key(b)); for most versions it is exact (key(a) == key(b) exactly when a == b), so
// comparing two of them is one integer comparison. Fields, most significant first:
//   epoch 1 bit | release[0] 16 | release[1] 12 | release[2] 12 | release[3] 7 |
//   phase 3 | pre number 4 | post 4 | dev 5
// The release is taken with trailing zeros removed and padded with zeros, as packaging
// compares it. Phase: 0 a dev release with neither pre nor post (before every pre-release),
// 1 a, 2 b, 3 rc, 4 none, 7 "the release has more than four numbers". Post: 0 none, else
// number + 1. Dev: the number, 31 none (sorts last).
// The largest value of each field means "this or more" (an epoch above 0, a number too large
// for the field): it is set and every later field is zeroed, which keeps the key monotone;
// such a key is inexact and ties fall back to the full comparison. A local label also makes
// the key inexact (the key is then its public version's).
constexpr int kReleaseBits[4] = {16, 12, 12, 7};
constexpr std::uint64_t kPhaseDevOnly = 0;
constexpr std::uint64_t kPhaseNone = 4;
constexpr std::uint64_t kPhaseLongRelease = 7;
constexpr std::uint64_t kDevNone = 31;

// Release numbers collected by the parser: up to four in place (no allocation), more on the heap.
struct ReleaseBuffer {
  std::array<std::uint64_t, 4> small;  // the first `count` are set (no zeroing: hot path)
  std::vector<std::uint64_t> large;
  std::size_t count = 0;

  void push_back(std::uint64_t value) {
    if (count < small.size()) small[count++] = value;
    else push_back_large(value);
  }
  // Out of line: the rare fifth and later numbers.
  [[gnu::noinline]] void push_back_large(std::uint64_t value) {
    if (count == small.size()) large.assign(small.begin(), small.end());
    large.push_back(value);
    ++count;
  }
  std::span<const std::uint64_t> view() const {
    if (count <= small.size()) return std::span<const std::uint64_t>(small.data(), count);
    return large;
  }
  // The first three numbers, zero beyond `count`.
  std::array<std::uint64_t, 3> small_three() const {
    return {small[0], count > 1 ? small[1] : 0, count > 2 ? small[2] : 0};
  }
};

}  // namespace

// Everything a version is made of; the parser and from_parts() fill one, build() turns it into
// a Version (inline when it fits, else with a shared Full block).
struct VersionParts {
  std::uint64_t epoch = 0;
  ReleaseBuffer release;
  bool has_pre = false;
  Version::PreKind pre_kind = Version::PreKind::kAlpha;
  std::uint64_t pre_number = 0;
  std::optional<std::uint64_t> post;
  std::optional<std::uint64_t> dev;
  std::vector<LocalPart> local;
};

// The parts of a version that does not fit inline, shared by its copies.
struct Version::Full {
  explicit Full(VersionParts&& from) : parts(std::move(from)) {}
  mutable std::atomic<std::uint32_t> references{1};  // copies of the Version sharing it
  VersionParts parts;
};

namespace {

using Parts = VersionParts;

// Number of release parts once trailing zeros are removed (at least 0).
template <class Range>
std::size_t significant_length(const Range& release) {
  std::size_t n = release.size();
  while (n > 0 && release[n - 1] == 0) --n;
  return n;
}

struct OrderKey {
  std::uint64_t key = 0;
  bool exact = true;
  bool public_exact = true;  // exact but for the local label (the label never changes the key)
};

// The key when every field fits (the common case): the fields side by side, no truncation.
bool exact_order_key(std::uint64_t epoch, std::span<const std::uint64_t> release, bool has_pre,
                     Version::PreKind pre_kind, std::uint64_t pre_number,
                     const std::optional<std::uint64_t>& post,
                     const std::optional<std::uint64_t>& dev, std::uint64_t& key) {
  const std::size_t n = significant_length(release);
  if (epoch != 0 || n > 4 || pre_number > 14 || (post && *post > 13) || (dev && *dev > 29)) {
    return false;
  }
  key = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t value = i < n ? release[i] : 0;
    if (value > (std::uint64_t{1} << kReleaseBits[i]) - 2) return false;
    key = (key << kReleaseBits[i]) | value;
  }
  std::uint64_t phase = kPhaseNone;
  if (has_pre) phase = 1 + static_cast<std::uint64_t>(pre_kind);
  else if (!post && dev) phase = kPhaseDevOnly;
  key = (key << 3) | phase;
  key = (key << 4) | (has_pre ? pre_number : 0);
  key = (key << 4) | (post ? *post + 1 : 0);
  key = (key << 5) | (dev ? *dev : kDevNone);
  return true;
}

OrderKey order_key_of(std::uint64_t epoch, std::span<const std::uint64_t> release, bool has_pre,
                      Version::PreKind pre_kind, std::uint64_t pre_number,
                      const std::optional<std::uint64_t>& post,
                      const std::optional<std::uint64_t>& dev, bool has_local) {
  OrderKey out;
  if (exact_order_key(epoch, release, has_pre, pre_kind, pre_number, post, dev, out.key)) {
    out.exact = !has_local;
    return out;
  }
  bool truncated = false;
  // Appends a field of `width` bits: `value` when it is at most `exact_max`, else the
  // field's "this or more" value, after which every field is zero.
  const auto put = [&](int width, std::uint64_t value, std::uint64_t exact_max) {
    out.key <<= width;
    if (truncated) return;
    if (value > exact_max) {
      out.key |= (std::uint64_t{1} << width) - 1;
      truncated = true;
      out.exact = false;
      return;
    }
    out.key |= value;
  };
  put(1, epoch, 0);
  const std::size_t n = significant_length(release);
  for (std::size_t i = 0; i < 4; ++i) {
    const int width = kReleaseBits[i];
    put(width, i < n ? release[i] : 0, (std::uint64_t{1} << width) - 2);
  }
  std::uint64_t phase = kPhaseNone;
  if (n > 4) phase = kPhaseLongRelease;  // longer releases sort after any suffix
  else if (has_pre) phase = 1 + static_cast<std::uint64_t>(pre_kind);
  else if (!post && dev) phase = kPhaseDevOnly;
  put(3, phase, kPhaseNone);
  put(4, has_pre ? pre_number : 0, 14);
  put(4, post ? (*post <= 13 ? *post + 1 : 15) : 0, 14);
  // Dev: 30 means "30 or more", below 31 (none); nothing follows, so no zeroing is needed.
  out.key <<= 5;
  if (!truncated) {
    out.key |= dev ? std::min<std::uint64_t>(*dev, 30) : kDevNone;
    if (dev && *dev >= 30) out.exact = false;
  }
  out.public_exact = out.exact;
  if (has_local) out.exact = false;
  return out;
}

constexpr std::uint64_t key_phase(std::uint64_t key) { return (key >> 13) & 0x7; }
constexpr std::uint64_t key_pre_number(std::uint64_t key) { return (key >> 9) & 0xf; }
constexpr std::uint64_t key_post(std::uint64_t key) { return (key >> 5) & 0xf; }
constexpr std::uint64_t key_dev(std::uint64_t key) { return key & 0x1f; }

// Three-way comparison of numeric local segments held as digit strings without leading zeros.
std::strong_ordering compare_digits(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() <=> b.size();
  const int c = a.compare(b);
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

std::strong_ordering compare_text(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

// Appends the decimal digits of `value` (std::to_string without the temporary).
void append_number(std::string& out, std::uint64_t value) {
  char buffer[20];
  std::size_t n = 0;
  do {
    buffer[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) out.push_back(buffer[--n]);
}

// Appends the bytes of `value` (hash input only).
void append_bytes(std::string& out, std::uint64_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

// The release numbers that open a version, as the parser reads them (`N(.N)*`, at most three
// here): the fast path's input and, when it declines, the parser's start, so that no text is
// read twice.
struct ReleaseScan {
  std::uint64_t numbers[3] = {0, 0, 0};  // the first `count`; the rest are zero
  std::size_t count = 0;
  std::size_t end = 0;  // where the scan stopped: the end, a suffix, or a fourth number's dot
};

// False when the text does not start with a digit, or when the parser must read the start
// itself: an epoch (`1!`) or a number of 19 digits or more (it checks for overflow).
bool scan_release(std::string_view text, ReleaseScan& scan) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  while (true) {
    const char* const start = p;
    std::uint64_t value = 0;
    while (p != end && is_ascii_digit(*p)) {
      value = value * 10 + static_cast<std::uint64_t>(*p - '0');
      ++p;
    }
    if (p == start || p - start > 18) return false;  // at most 18 digits: no overflow
    scan.numbers[scan.count++] = value;
    if (p == end) break;
    if (*p != '.' || end - p < 2 || !is_ascii_digit(p[1]) || scan.count == 3) break;
    ++p;
  }
  if (p != end && *p == '!') return false;
  scan.end = static_cast<std::size_t>(p - begin);
  return true;
}

// ---- the parser ------------------------------------------------------------------------------

enum class ParseFailure { kNone, kSyntax, kTooLarge };

// A cursor over the version text, mirroring VERSION_PATTERN. On failure it records the offset
// and what was expected there.
class VersionParser {
 public:
  explicit VersionParser(std::string_view text) : text_(text) {}

  bool parse(Parts& out) {
    trim();
    if (pos_ < end_ && (text_[pos_] == 'v' || text_[pos_] == 'V')) ++pos_;
    if (!at_digit()) return fail(ParseFailure::kSyntax, "expected a release number");
    // Epoch or first release number.
    std::uint64_t first = 0;
    if (!number(first)) return false;
    if (pos_ < end_ && text_[pos_] == '!') {
      ++pos_;
      out.epoch = first;
      if (!at_digit()) return fail(ParseFailure::kSyntax, "expected a release number after `!`");
      if (!number(first)) return false;
    }
    out.release.push_back(first);
    return after_first_number(out);
  }

  // The same, resuming after the release numbers `scan` read (the text starts with a digit, so
  // no leading space or `v`, and no epoch: scan_release refuses one).
  bool parse_from(Parts& out, const ReleaseScan& scan) {
    trim();
    pos_ = scan.end;
    for (std::size_t i = 0; i < scan.count; ++i) out.release.push_back(scan.numbers[i]);
    return after_first_number(out);
  }

  ParseFailure failure() const { return failure_; }
  std::size_t error_offset() const { return error_offset_; }
  const char* expected() const { return expected_; }

 private:
  // The rest of the release, the suffixes, the local label and the end.
  bool after_first_number(Parts& out) {
    while (pos_ + 1 < end_ && text_[pos_] == '.' && is_ascii_digit(text_[pos_ + 1])) {
      ++pos_;
      std::uint64_t part = 0;
      if (!number(part)) return false;
      out.release.push_back(part);
    }
    if (!pre_release(out)) return false;
    if (!post_release(out)) return false;
    if (!dev_release(out)) return false;
    if (pos_ < end_ && text_[pos_] == '+') {
      ++pos_;
      if (!local_label(out)) return false;
    }
    if (pos_ != end_) {
      return fail(ParseFailure::kSyntax,
                  "expected a pre-, post- or dev-release suffix, a local label after `+`, or "
                  "the end of the version");
    }
    return true;
  }

  // A printable ASCII byte other than space: no Python whitespace starts or ends with it.
  static bool plain_ascii(char c) { return static_cast<unsigned char>(c) - 0x21u < 0x5fu; }

  // Python's strip() of the text into [pos_, end_); the Unicode checks only run when an end
  // is not a plain ASCII byte (almost never).
  void trim() {
    std::size_t begin = 0;
    std::size_t end = text_.size();
    if (end != 0 && !plain_ascii(text_[0])) {
      while (std::size_t n = detail::python_space_length(text_, begin)) begin += n;
    }
    if (end > begin && !plain_ascii(text_[end - 1])) {
      while (end > begin) {
        const std::size_t n = detail::python_space_length_before(text_, end);
        if (n == 0 || end - n < begin) break;
        end -= n;
      }
    }
    pos_ = begin;
    end_ = end;
  }

  bool at_digit() const { return pos_ < end_ && is_ascii_digit(text_[pos_]); }
  bool is_separator(std::size_t at) const {
    return at < end_ && (text_[at] == '.' || text_[at] == '-' || text_[at] == '_');
  }

  bool fail(ParseFailure failure, const char* expected) {
    if (failure_ == ParseFailure::kNone) {
      failure_ = failure;
      error_offset_ = pos_;
      expected_ = expected;
    }
    return false;
  }

  // Digits at pos_ (at least one) into `value`; refuses values above 2^64-1.
  bool number(std::uint64_t& value) {
    const std::size_t start = pos_;
    value = 0;
    // Up to 19 digits cannot exceed 2^64-1; longer runs take the checked loop.
    const std::size_t fast_end = std::min(end_, start + 19);
    while (pos_ < fast_end && is_ascii_digit(text_[pos_])) {
      value = value * 10 + static_cast<std::uint64_t>(text_[pos_] - '0');
      ++pos_;
    }
    bool overflow = false;
    while (at_digit()) {
      const std::uint64_t digit = static_cast<std::uint64_t>(text_[pos_] - '0');
      if (value > (UINT64_MAX - digit) / 10) overflow = true;
      value = value * 10 + digit;
      ++pos_;
    }
    if (overflow) {
      pos_ = start;
      return fail(ParseFailure::kTooLarge, "expected a number below 2^64 (larger numbers are "
                                           "not supported)");
    }
    return true;
  }

  // Case-insensitive match of an ASCII lower-case word at `at`.
  bool word_at(std::size_t at, std::string_view word) const {
    if (at + word.size() > end_) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (to_ascii_lower(text_[at + i]) != word[i]) return false;
    }
    return true;
  }

  // Optional `[-_.]? N` after a suffix word: the number, 0 when absent.
  bool optional_number(std::uint64_t& value) {
    if (is_separator(pos_) && pos_ + 1 < end_ && is_ascii_digit(text_[pos_ + 1])) ++pos_;
    else if (is_separator(pos_)) {
      // A separator with no number after it is still part of the suffix (`1.0a.`), as the
      // pattern `[-_\.]?(?P<pre_n>[0-9]+)?` allows; but only when nothing needs it next.
      // The post-release `-N` form needs a '-': `1.0a-1` is a1 (greedy), handled above.
      ++pos_;
      value = 0;
      return true;
    }
    value = 0;
    if (at_digit()) return number(value);
    return true;
  }

  bool pre_release(Parts& out) {
    std::size_t at = pos_;
    if (is_separator(at)) ++at;
    // Longest spelling first; a shorter one could never complete the match (see docs).
    static constexpr std::pair<std::string_view, Version::PreKind> kWords[] = {
        {"preview", Version::PreKind::kRc}, {"alpha", Version::PreKind::kAlpha},
        {"beta", Version::PreKind::kBeta},  {"pre", Version::PreKind::kRc},
        {"rc", Version::PreKind::kRc},      {"a", Version::PreKind::kAlpha},
        {"b", Version::PreKind::kBeta},     {"c", Version::PreKind::kRc},
    };
    const char first = at < end_ ? to_ascii_lower(text_[at]) : '\0';
    for (const auto& [word, kind] : kWords) {
      if (word[0] == first && word_at(at, word)) {
        pos_ = at + word.size();
        out.has_pre = true;
        out.pre_kind = kind;
        return optional_number(out.pre_number);
      }
    }
    return true;
  }

  bool post_release(Parts& out) {
    // `-N` (implicit post release) is tried first, as in the pattern.
    if (pos_ + 1 < end_ && text_[pos_] == '-' && is_ascii_digit(text_[pos_ + 1])) {
      ++pos_;
      std::uint64_t value = 0;
      if (!number(value)) return false;
      out.post = value;
      return true;
    }
    std::size_t at = pos_;
    if (is_separator(at)) ++at;
    const char first = at < end_ ? to_ascii_lower(text_[at]) : '\0';
    for (std::string_view word : {std::string_view("post"), std::string_view("rev"),
                                  std::string_view("r")}) {
      if (word[0] == first && word_at(at, word)) {
        pos_ = at + word.size();
        std::uint64_t value = 0;
        if (!optional_number(value)) return false;
        out.post = value;
        return true;
      }
    }
    return true;
  }

  bool dev_release(Parts& out) {
    std::size_t at = pos_;
    if (is_separator(at)) ++at;
    if (!word_at(at, "dev")) return true;
    pos_ = at + 3;
    std::uint64_t value = 0;
    if (!optional_number(value)) return false;
    out.dev = value;
    return true;
  }

  bool local_label(Parts& out) {
    while (true) {
      const std::size_t start = pos_;
      bool numeric = true;
      while (pos_ < end_ && is_ascii_alnum(text_[pos_])) {
        numeric = numeric && is_ascii_digit(text_[pos_]);
        ++pos_;
      }
      if (pos_ == start) {
        return fail(ParseFailure::kSyntax,
                    "expected letters or digits in the local label");
      }
      LocalPart part;
      part.numeric = numeric;
      std::string_view piece = text_.substr(start, pos_ - start);
      if (numeric) {
        while (piece.size() > 1 && piece.front() == '0') piece.remove_prefix(1);
        part.text.assign(piece);
      } else {
        part.text.reserve(piece.size());
        for (char c : piece) part.text.push_back(to_ascii_lower(c));
      }
      out.local.push_back(std::move(part));
      if (is_separator(pos_) && pos_ + 1 < end_ && is_ascii_alnum(text_[pos_ + 1])) {
        ++pos_;
        continue;
      }
      return true;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  ParseFailure failure_ = ParseFailure::kNone;
  std::size_t error_offset_ = 0;
  const char* expected_ = "";
};

}  // namespace

// ---- construction ------------------------------------------------------------------------------

void Version::retain() const {
  full()->references.fetch_add(1, std::memory_order_relaxed);
}

void Version::release_full() const {
  const Full* block = full();
  if (block->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete block;
}

Version Version::from_release(std::vector<std::uint64_t> parts) {
  if (parts.empty()) parts.push_back(0);
  return from_parts(0, std::move(parts), std::nullopt, std::nullopt, std::nullopt);
}

Version Version::build(VersionParts&& parts) {
  const std::span<const std::uint64_t> release = parts.release.view();
  const bool has_local = !parts.local.empty();
  const OrderKey key = order_key_of(parts.epoch, release, parts.has_pre, parts.pre_kind,
                                    parts.pre_number, parts.post, parts.dev, has_local);
  Version v;
  v.key_ = key.key;
  if (key.exact && release.size() <= 3) {
    // Inline: pre, post and dev are read back from the key, and so are the flags.
    v.slots_ = parts.release.small_three();
    if (release.size() < 3) v.slots_[2] = kTagBit | release.size();
    return v;
  }
  std::uint8_t flags = 0;
  if (key.exact) flags |= kFlagExact;
  if (parts.has_pre || parts.dev) flags |= kFlagPre;
  if (parts.post) flags |= kFlagPost;
  if (parts.dev) flags |= kFlagDev;
  if (has_local) flags |= kFlagLocal;
  // The key ignores the local label except for exactness: the public version's key is exact
  // when this one's is, or when only the label made it inexact.
  if (key.public_exact) flags |= kFlagPublicExact;
  const Full* block = new Full(std::move(parts));
  v.slots_ = {std::bit_cast<std::uint64_t>(block), flags, kTagFull};
  return v;
}

Version Version::from_parts(std::uint64_t epoch, std::vector<std::uint64_t> release,
                            std::optional<std::pair<PreKind, std::uint64_t>> pre,
                            std::optional<std::uint64_t> post, std::optional<std::uint64_t> dev,
                            std::vector<std::string> local_parts) {
  VersionParts parts;
  parts.epoch = epoch;
  if (release.empty()) release.push_back(0);
  for (std::uint64_t part : release) parts.release.push_back(part);
  if (pre) {
    parts.has_pre = true;
    parts.pre_kind = pre->first;
    parts.pre_number = pre->second;
  }
  parts.post = post;
  parts.dev = dev;
  for (std::string& text : local_parts) {
    LocalPart part;
    part.numeric = !text.empty() && std::all_of(text.begin(), text.end(), is_ascii_digit);
    if (part.numeric) {
      std::size_t zeros = 0;
      while (zeros + 1 < text.size() && text[zeros] == '0') ++zeros;
      part.text = text.substr(zeros);
    } else {
      part.text = to_lower(text);
    }
    parts.local.push_back(std::move(part));
  }
  return build(std::move(parts));
}

namespace {

// Up to five digits at `p` into `value`; false when there are none. A longer run stops early
// and is then refused by the caller's next check (no field of the exact key needs more).
bool small_number(const char*& p, const char* end, std::uint64_t& value) {
  const char* const start = p;
  value = 0;
  while (p != end && is_ascii_digit(*p) && p - start < 5) {
    value = value * 10 + static_cast<std::uint64_t>(*p - '0');
    ++p;
  }
  return p != start;
}

// True when [p, end) starts with `word` followed by a digit; then p is moved past the word.
bool suffix_word(const char*& p, const char* end, std::string_view word) {
  if (static_cast<std::size_t>(end - p) <= word.size()) return false;
  if (std::memcmp(p, word.data(), word.size()) != 0 || !is_ascii_digit(p[word.size()])) {
    return false;
  }
  p += word.size();
  return true;
}

// The pre-release field of the key for `aN`, `bN` or `rcN` in normal spelling at p (p moves
// past it; 0 and p unchanged when there is none). False when the number does not fit the key.
bool normal_pre(const char*& p, const char* end, std::uint64_t& field) {
  field = 0;
  Version::PreKind kind = Version::PreKind::kAlpha;
  if (suffix_word(p, end, "a")) kind = Version::PreKind::kAlpha;
  else if (suffix_word(p, end, "b")) kind = Version::PreKind::kBeta;
  else if (suffix_word(p, end, "rc")) kind = Version::PreKind::kRc;
  else return true;
  std::uint64_t number = 0;
  small_number(p, end, number);  // suffix_word saw a digit
  if (number > 14) return false;
  const std::uint64_t phase = 1 + static_cast<std::uint64_t>(kind);
  field = (phase << 13) | (number << 9);
  return true;
}

// A version in normal form with numbers small enough for an exact key: `N`, `N.N` or `N.N.N`
// (already read into `scan`), then optionally `aN`/`bN`/`rcN`, `.postN`, `.devN` in that
// order, with nothing around it. Its inline release and exact key are computed here without
// the general parser (which gives the same version for it). False for anything else, which
// the parser then reads; so the spellings this refuses (other case, separators, implicit
// numbers) need no care here.
bool normal_form(std::string_view text, const ReleaseScan& scan,
                 std::array<std::uint64_t, 3>& release, std::uint64_t& key) {
  // Largest exact value and position of the first three release fields (see the key layout).
  constexpr std::uint64_t kLimit[3] = {(1 << 16) - 2, (1 << 12) - 2, (1 << 12) - 2};
  constexpr int kShift[3] = {47, 35, 23};
  const std::uint64_t* const numbers = scan.numbers;
  if (numbers[0] > kLimit[0] || numbers[1] > kLimit[1] || numbers[2] > kLimit[2]) return false;
  release = {numbers[0], numbers[1], numbers[2]};
  key = (numbers[0] << kShift[0]) | (numbers[1] << kShift[1]) | (numbers[2] << kShift[2]);
  const char* p = text.data() + scan.end;
  const char* const end = text.data() + text.size();
  if (p == end) {
    key |= (kPhaseNone << 13) | kDevNone;  // the plain release, by far the most common
    return true;
  }
  std::uint64_t pre = 0;
  if (!normal_pre(p, end, pre)) return false;
  std::uint64_t post = 0;  // the key's post field: number + 1, 0 for none
  if (suffix_word(p, end, ".post")) {
    if (!small_number(p, end, post) || post > 13) return false;
    ++post;
  }
  std::uint64_t dev = kDevNone;
  if (suffix_word(p, end, ".dev")) {
    if (!small_number(p, end, dev) || dev > 29) return false;
  }
  if (p != end) return false;
  // Phase: the pre-release's, else dev-only (0) or none (4), as in exact_order_key.
  if (pre == 0 && (post != 0 || dev == kDevNone)) pre = kPhaseNone << 13;
  key |= pre | (post << 5) | dev;
  return true;
}

}  // namespace

Result<Version> parse_version(std::string_view text) {
  ReleaseScan scan;
  const bool scanned = scan_release(text, scan);
  if (scanned) {
    Version v;
    if (normal_form(text, scan, v.slots_, v.key_)) {
      if (scan.count < 3) v.slots_[2] = Version::kTagBit | scan.count;
      return v;
    }
  }
  Parts parts;
  VersionParser parser(text);
  if (!(scanned ? parser.parse_from(parts, scan) : parser.parse(parts))) {
    Error error = make_parse_error("version", text, parser.error_offset(), parser.expected());
    if (parser.failure() == ParseFailure::kTooLarge) error.code = ErrorCode::kUnsupported;
    return error;
  }
  return Version::build(std::move(parts));
}

bool is_valid_version(std::string_view text) {
  ReleaseScan scan;
  const bool scanned = scan_release(text, scan);
  std::array<std::uint64_t, 3> release;
  std::uint64_t key = 0;
  if (scanned && normal_form(text, scan, release, key)) return true;
  Parts parts;
  VersionParser parser(text);
  return scanned ? parser.parse_from(parts, scan) : parser.parse(parts);
}

// ---- accessors ---------------------------------------------------------------------------------

std::uint64_t Version::epoch() const { return is_full() ? full()->parts.epoch : 0; }

std::span<const std::uint64_t> Version::release() const {
  if (is_full()) return full()->parts.release.view();
  const std::size_t count = slots_[2] < kTagBit ? 3 : slots_[2] & 0x3;
  return std::span<const std::uint64_t>(slots_.data(), count);
}

std::optional<std::pair<Version::PreKind, std::uint64_t>> Version::pre() const {
  if (const Full* block = full()) {
    if (!block->parts.has_pre) return std::nullopt;
    return std::make_pair(block->parts.pre_kind, block->parts.pre_number);
  }
  const std::uint64_t phase = key_phase(key_);
  if (phase == kPhaseDevOnly || phase == kPhaseNone) return std::nullopt;
  return std::make_pair(static_cast<PreKind>(phase - 1), key_pre_number(key_));
}

std::optional<std::uint64_t> Version::post() const {
  if (const Full* block = full()) return block->parts.post;
  const std::uint64_t post = key_post(key_);
  if (post == 0) return std::nullopt;
  return post - 1;
}

std::optional<std::uint64_t> Version::dev() const {
  if (const Full* block = full()) return block->parts.dev;
  const std::uint64_t dev = key_dev(key_);
  if (dev == kDevNone) return std::nullopt;
  return dev;
}

const std::vector<VersionLocalPart>& Version::local_parts() const {
  static const std::vector<LocalPart> kNone;
  const Full* block = full();
  return block ? block->parts.local : kNone;
}

std::string Version::local() const {
  std::string out;
  for (const LocalPart& part : local_parts()) {
    if (!out.empty()) out.push_back('.');
    out.append(part.text);
  }
  return out;
}

Version Version::public_version() const {
  if (!has_local()) return *this;
  const VersionParts& from = full()->parts;
  VersionParts parts;
  parts.epoch = from.epoch;
  for (std::uint64_t part : from.release.view()) parts.release.push_back(part);
  parts.has_pre = from.has_pre;
  parts.pre_kind = from.pre_kind;
  parts.pre_number = from.pre_number;
  parts.post = from.post;
  parts.dev = from.dev;
  return build(std::move(parts));
}

Version Version::base_version() const {
  VersionParts parts;
  parts.epoch = epoch();
  for (std::uint64_t part : release()) parts.release.push_back(part);
  return build(std::move(parts));
}

std::string_view pre_kind_name(Version::PreKind kind) {
  switch (kind) {
    case Version::PreKind::kAlpha: return "a";
    case Version::PreKind::kBeta: return "b";
    case Version::PreKind::kRc: return "rc";
  }
  return "a";
}

std::string Version::to_string() const {
  std::string out;
  out.reserve(16);
  const std::uint64_t e = epoch();
  if (e != 0) {
    append_number(out, e);
    out.push_back('!');
  }
  bool first = true;
  for (std::uint64_t part : release()) {
    if (!first) out.push_back('.');
    first = false;
    append_number(out, part);
  }
  if (const auto p = pre()) {
    out.append(pre_kind_name(p->first));
    append_number(out, p->second);
  }
  if (const auto p = post()) {
    out.append(".post");
    append_number(out, *p);
  }
  if (const auto d = dev()) {
    out.append(".dev");
    append_number(out, *d);
  }
  if (has_local()) {
    out.push_back('+');
    out.append(local());
  }
  return out;
}

// ---- ordering ----------------------------------------------------------------------------------

std::strong_ordering Version::compare_full(const Version& a, const Version& b) {
  return a.compare_slow(b);
}

namespace {

// What the ordering looks at, read once per comparison (packaging's _cmpkey).
struct OrderView {
  std::uint64_t epoch = 0;
  std::span<const std::uint64_t> release;  // trailing zeros removed
  int pre_rank = 4;                        // 0 dev-only, 1..3 a/b/rc, 4 none
  std::uint64_t pre_number = 0;
  bool has_post = false;
  std::uint64_t post = 0;
  bool has_dev = false;
  std::uint64_t dev = 0;
};

}  // namespace

namespace {

// Local labels in packaging's order: none first; segment by segment, numbers after words.
std::strong_ordering compare_local(const std::vector<LocalPart>& la,
                                   const std::vector<LocalPart>& lb) {
  for (std::size_t i = 0; i < std::min(la.size(), lb.size()); ++i) {
    if (la[i].numeric != lb[i].numeric) return la[i].numeric <=> lb[i].numeric;
    const auto c = la[i].numeric ? compare_digits(la[i].text, lb[i].text)
                                 : compare_text(la[i].text, lb[i].text);
    if (c != 0) return c;
  }
  return la.size() <=> lb.size();
}

}  // namespace

std::strong_ordering Version::compare_tie(const Version& other) const {
  // Equal keys whose public versions are exact have equal public versions (the common tie:
  // "2.8.0+cu128" against "2.8.0+cpu"), so only the labels remain.
  if ((flags() & kFlagPublicExact) != 0 && (other.flags() & kFlagPublicExact) != 0) {
    return compare_local(local_parts(), other.local_parts());
  }
  return compare_slow(other);
}

std::strong_ordering Version::compare_slow(const Version& other) const {
  const auto view_of = [](const Version& v) {
    OrderView view;
    view.epoch = v.epoch();
    const std::span<const std::uint64_t> release = v.release();
    view.release = release.first(significant_length(release));
    if (const auto p = v.pre()) {
      view.pre_rank = 1 + static_cast<int>(p->first);
      view.pre_number = p->second;
    }
    if (const auto p = v.post()) {
      view.has_post = true;
      view.post = *p;
    }
    if (const auto d = v.dev()) {
      view.has_dev = true;
      view.dev = *d;
    }
    if (view.pre_rank == 4 && !view.has_post && view.has_dev) view.pre_rank = 0;
    return view;
  };
  const OrderView a = view_of(*this);
  const OrderView b = view_of(other);
  if (auto c = a.epoch <=> b.epoch; c != 0) return c;
  const std::size_t n = std::min(a.release.size(), b.release.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (auto c = a.release[i] <=> b.release[i]; c != 0) return c;
  }
  if (auto c = a.release.size() <=> b.release.size(); c != 0) return c;
  if (auto c = a.pre_rank <=> b.pre_rank; c != 0) return c;
  if (auto c = a.pre_number <=> b.pre_number; c != 0) return c;
  if (auto c = a.has_post <=> b.has_post; c != 0) return c;  // none first
  if (auto c = a.post <=> b.post; c != 0) return c;
  if (auto c = b.has_dev <=> a.has_dev; c != 0) return c;  // none last
  if (auto c = a.dev <=> b.dev; c != 0) return c;
  return compare_local(local_parts(), other.local_parts());
}

std::size_t Version::hash() const {
  std::string bytes;
  if (is_exact()) {
    append_bytes(bytes, key_);
    return static_cast<std::size_t>(hash64(bytes));
  }
  // Hash what the ordering looks at: trailing zeros and spelling of local numbers ignored.
  bytes.push_back('!');
  append_bytes(bytes, epoch());
  const std::span<const std::uint64_t> parts = release();
  const std::size_t n = significant_length(parts);
  for (std::size_t i = 0; i < n; ++i) append_bytes(bytes, parts[i]);
  if (const auto p = pre()) {
    bytes.push_back(static_cast<char>('a' + static_cast<int>(p->first)));
    append_bytes(bytes, p->second);
  }
  if (const auto p = post()) {
    bytes.push_back('p');
    append_bytes(bytes, *p);
  }
  if (const auto d = dev()) {
    bytes.push_back('d');
    append_bytes(bytes, *d);
  }
  for (const LocalPart& part : local_parts()) {
    bytes.push_back(part.numeric ? '#' : '+');
    bytes.append(part.text);
  }
  return static_cast<std::size_t>(hash64(bytes));
}

}  // namespace wv::pkg
