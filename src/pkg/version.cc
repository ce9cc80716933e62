// PEP 440 versions: a hand-written parser equivalent to packaging 23.0's VERSION_PATTERN
// (matched with re.IGNORECASE, surrounded by \s*), the compact order key, and the ordering of
// packaging's _cmpkey.
#include "pkg/version.h"

#include <algorithm>
#include <cstring>

#include "base/str.h"
#include "pkg/version_text.h"

namespace wv::pkg {

namespace {

// One dot-separated segment of a local label. Numeric segments compare as integers (kept as
// digit strings without leading zeros, so any length works) and sort after alphanumeric ones.
struct LocalPart {
  std::string text;  // lower case; digits without leading zeros when numeric
  bool numeric = false;
};

}  // namespace

struct Version::Full {
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> release;
  bool has_pre = false;
  PreKind pre_kind = PreKind::kAlpha;
  std::uint64_t pre_number = 0;
  std::optional<std::uint64_t> post;
  std::optional<std::uint64_t> dev;
  std::vector<LocalPart> local;
};

namespace {

// ---- the compact key -------------------------------------------------------------------------
// Most significant first: release[0] 16 bits, release[1] 12, release[2] 12, release[3] 8 (the
// release with trailing zeros removed, then padded with zeros, as packaging compares it), the
// pre-release phase 3 bits (0: a dev release with neither pre nor post, which sorts before
// every pre-release; 1 a; 2 b; 3 rc; 4 none), the pre-release number 4 bits, the post number
// 4 bits (0: none, else number + 1) and the dev number 5 bits (31: none, which sorts last).
constexpr int kReleaseBits[4] = {16, 12, 12, 8};
constexpr std::uint64_t kMaxPreNumber = 15;
constexpr std::uint64_t kMaxPost = 14;
constexpr std::uint64_t kMaxDev = 30;
constexpr std::uint64_t kPhaseDevOnly = 0;
constexpr std::uint64_t kPhaseNone = 4;
constexpr std::uint64_t kDevNone = 31;

struct Parts {
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> release;
  bool has_pre = false;
  Version::PreKind pre_kind = Version::PreKind::kAlpha;
  std::uint64_t pre_number = 0;
  std::optional<std::uint64_t> post;
  std::optional<std::uint64_t> dev;
  std::vector<LocalPart> local;
};

// Number of release parts once trailing zeros are removed (at least 0).
template <class Range>
std::size_t significant_length(const Range& release) {
  std::size_t n = release.size();
  while (n > 0 && release[n - 1] == 0) --n;
  return n;
}

// The compact key of a version, or nullopt when it does not fit.
std::optional<std::uint64_t> compact_key_of(std::uint64_t epoch,
                                            std::span<const std::uint64_t> release, bool has_pre,
                                            Version::PreKind pre_kind, std::uint64_t pre_number,
                                            const std::optional<std::uint64_t>& post,
                                            const std::optional<std::uint64_t>& dev,
                                            bool has_local) {
  if (epoch != 0 || has_local) return std::nullopt;
  const std::size_t n = significant_length(release);
  if (n > 4) return std::nullopt;
  std::uint64_t key = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t part = i < n ? release[i] : 0;
    if (part >= (std::uint64_t{1} << kReleaseBits[i])) return std::nullopt;
    key = (key << kReleaseBits[i]) | part;
  }
  std::uint64_t phase = kPhaseNone;
  std::uint64_t pre = 0;
  if (has_pre) {
    if (pre_number > kMaxPreNumber) return std::nullopt;
    phase = 1 + static_cast<std::uint64_t>(pre_kind);
    pre = pre_number;
  } else if (!post && dev) {
    phase = kPhaseDevOnly;
  }
  std::uint64_t post_field = 0;
  if (post) {
    if (*post > kMaxPost) return std::nullopt;
    post_field = *post + 1;
  }
  std::uint64_t dev_field = kDevNone;
  if (dev) {
    if (*dev > kMaxDev) return std::nullopt;
    dev_field = *dev;
  }
  key = (key << 3) | phase;
  key = (key << 4) | pre;
  key = (key << 4) | post_field;
  key = (key << 5) | dev_field;
  return key;
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

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64-style combining: cheap and good enough for hash tables.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  return h;
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

std::uint64_t hash_text(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// ---- the parser ------------------------------------------------------------------------------

enum class ParseFailure { kNone, kSyntax, kTooLarge };

// A cursor over the version text, mirroring VERSION_PATTERN. On failure it records the offset
// and what was expected there.
class VersionParser {
 public:
  explicit VersionParser(std::string_view text) : text_(text) {}

  bool parse(Parts& out) {
    std::size_t begin = 0;
    while (std::size_t n = detail::python_space_length(text_, begin)) begin += n;
    std::size_t end = text_.size();
    while (end > begin) {
      const std::size_t n = detail::python_space_length_before(text_, end);
      if (n == 0 || end - n < begin) break;
      end -= n;
    }
    pos_ = begin;
    end_ = end;
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

  ParseFailure failure() const { return failure_; }
  std::size_t error_offset() const { return error_offset_; }
  const char* expected() const { return expected_; }

 private:
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
    for (const auto& [word, kind] : kWords) {
      if (word_at(at, word)) {
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
    for (std::string_view word : {std::string_view("post"), std::string_view("rev"),
                                  std::string_view("r")}) {
      if (word_at(at, word)) {
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

Version::Version() : key_(0), inline_release_{0, 0, 0, 0}, inline_count_(1), has_key_(true) {
  key_ = *compact_key_of(0, std::span<const std::uint64_t>(inline_release_.data(), 1), false,
                         PreKind::kAlpha, 0, std::nullopt, std::nullopt, false);
}

Version Version::from_release(std::vector<std::uint64_t> parts) {
  if (parts.empty()) parts.push_back(0);
  return from_parts(0, std::move(parts), std::nullopt, std::nullopt, std::nullopt);
}

Version Version::from_parts(std::uint64_t epoch, std::vector<std::uint64_t> release,
                            std::optional<std::pair<PreKind, std::uint64_t>> pre,
                            std::optional<std::uint64_t> post, std::optional<std::uint64_t> dev,
                            std::vector<std::string> local_parts) {
  if (release.empty()) release.push_back(0);
  const bool has_local = !local_parts.empty();
  const std::optional<std::uint64_t> key =
      compact_key_of(epoch, release, pre.has_value(), pre ? pre->first : PreKind::kAlpha,
                     pre ? pre->second : 0, post, dev, has_local);
  Version v;
  if (key && release.size() <= 4) {
    v.key_ = *key;
    v.has_key_ = true;
    v.inline_release_ = {0, 0, 0, 0};
    std::copy(release.begin(), release.end(), v.inline_release_.begin());
    v.inline_count_ = static_cast<std::uint8_t>(release.size());
    return v;
  }
  auto full = std::make_shared<Full>();
  full->epoch = epoch;
  full->release = std::move(release);
  if (pre) {
    full->has_pre = true;
    full->pre_kind = pre->first;
    full->pre_number = pre->second;
  }
  full->post = post;
  full->dev = dev;
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
    full->local.push_back(std::move(part));
  }
  v.has_key_ = key.has_value();
  v.key_ = key.value_or(0);
  v.inline_count_ = 0;
  v.full_ = std::move(full);
  return v;
}

namespace {

Version make_version_from(Parts&& parts) {
  std::vector<std::string> local;
  local.reserve(parts.local.size());
  for (LocalPart& part : parts.local) local.push_back(std::move(part.text));
  std::optional<std::pair<Version::PreKind, std::uint64_t>> pre;
  if (parts.has_pre) pre = std::make_pair(parts.pre_kind, parts.pre_number);
  return Version::from_parts(parts.epoch, std::move(parts.release), pre, parts.post, parts.dev,
                             std::move(local));
}

}  // namespace

Result<Version> parse_version(std::string_view text) {
  Parts parts;
  VersionParser parser(text);
  if (!parser.parse(parts)) {
    Error error = make_parse_error("version", text, parser.error_offset(), parser.expected());
    if (parser.failure() == ParseFailure::kTooLarge) error.code = ErrorCode::kUnsupported;
    return error;
  }
  return make_version_from(std::move(parts));
}

bool is_valid_version(std::string_view text) {
  Parts parts;
  VersionParser parser(text);
  return parser.parse(parts);
}

// ---- accessors ---------------------------------------------------------------------------------

std::uint64_t Version::epoch() const { return full_ ? full_->epoch : 0; }

std::span<const std::uint64_t> Version::release() const {
  if (full_) return full_->release;
  return std::span<const std::uint64_t>(inline_release_.data(), inline_count_);
}

std::optional<std::pair<Version::PreKind, std::uint64_t>> Version::pre() const {
  if (full_) {
    if (!full_->has_pre) return std::nullopt;
    return std::make_pair(full_->pre_kind, full_->pre_number);
  }
  const std::uint64_t phase = key_phase(key_);
  if (phase == kPhaseDevOnly || phase == kPhaseNone) return std::nullopt;
  return std::make_pair(static_cast<PreKind>(phase - 1), key_pre_number(key_));
}

std::optional<std::uint64_t> Version::post() const {
  if (full_) return full_->post;
  const std::uint64_t post = key_post(key_);
  if (post == 0) return std::nullopt;
  return post - 1;
}

std::optional<std::uint64_t> Version::dev() const {
  if (full_) return full_->dev;
  const std::uint64_t dev = key_dev(key_);
  if (dev == kDevNone) return std::nullopt;
  return dev;
}

bool Version::has_local() const { return full_ && !full_->local.empty(); }

std::string Version::local() const {
  std::string out;
  if (!full_) return out;
  for (const LocalPart& part : full_->local) {
    if (!out.empty()) out.push_back('.');
    out.append(part.text);
  }
  return out;
}

bool Version::is_prerelease() const {
  if (!full_) {
    const std::uint64_t phase = key_phase(key_);
    return phase != kPhaseNone || key_dev(key_) != kDevNone;
  }
  return full_->has_pre || full_->dev.has_value();
}

bool Version::is_postrelease() const { return post().has_value(); }
bool Version::is_devrelease() const { return dev().has_value(); }

Version Version::public_version() const {
  if (!has_local()) return *this;
  std::vector<std::uint64_t> release(full_->release.begin(), full_->release.end());
  return from_parts(full_->epoch, std::move(release), pre(), full_->post, full_->dev);
}

Version Version::base_version() const {
  const std::span<const std::uint64_t> parts = release();
  return from_parts(epoch(), std::vector<std::uint64_t>(parts.begin(), parts.end()),
                    std::nullopt, std::nullopt, std::nullopt);
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

std::strong_ordering Version::compare_slow(const Version& other) const {
  if (auto c = epoch() <=> other.epoch(); c != 0) return c;
  const std::span<const std::uint64_t> ra = release();
  const std::span<const std::uint64_t> rb = other.release();
  const std::size_t na = significant_length(ra);
  const std::size_t nb = significant_length(rb);
  for (std::size_t i = 0; i < std::min(na, nb); ++i) {
    if (auto c = ra[i] <=> rb[i]; c != 0) return c;
  }
  if (auto c = na <=> nb; c != 0) return c;
  // Pre-release: (rank, number) with rank 0 for a dev-only release, 1..3 for a/b/rc, 4 none.
  const auto pre_rank = [](const Version& v) -> std::pair<int, std::uint64_t> {
    const auto p = v.pre();
    if (p) return {1 + static_cast<int>(p->first), p->second};
    if (!v.post() && v.dev()) return {0, 0};
    return {4, 0};
  };
  if (auto c = pre_rank(*this) <=> pre_rank(other); c != 0) return c;
  const auto pa = post(), pb = other.post();
  if (pa.has_value() != pb.has_value()) return pa.has_value() <=> pb.has_value();
  if (pa) {
    if (auto c = *pa <=> *pb; c != 0) return c;
  }
  const auto da = dev(), db = other.dev();
  if (da.has_value() != db.has_value()) return db.has_value() <=> da.has_value();  // none last
  if (da) {
    if (auto c = *da <=> *db; c != 0) return c;
  }
  // Local: none sorts first; then segment by segment, numbers after words.
  static const std::vector<LocalPart> kNoLocal;
  const std::vector<LocalPart>& la = full_ ? full_->local : kNoLocal;
  const std::vector<LocalPart>& lb = other.full_ ? other.full_->local : kNoLocal;
  for (std::size_t i = 0; i < std::min(la.size(), lb.size()); ++i) {
    if (la[i].numeric != lb[i].numeric) return la[i].numeric <=> lb[i].numeric;
    const auto c = la[i].numeric ? compare_digits(la[i].text, lb[i].text)
                                 : compare_text(la[i].text, lb[i].text);
    if (c != 0) return c;
  }
  return la.size() <=> lb.size();
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (a.has_key_ && b.has_key_) return a.key_ <=> b.key_;
  return a.compare_slow(b);
}

bool operator==(const Version& a, const Version& b) {
  if (a.has_key_ && b.has_key_) return a.key_ == b.key_;
  if (a.has_key_ != b.has_key_) return false;  // key eligibility depends only on the order
  return a.compare_slow(b) == 0;
}

std::size_t Version::hash() const {
  if (has_key_) return static_cast<std::size_t>(mix(0x51ed2701f3a5c7b9ULL, key_));
  // Hash what the ordering looks at: trailing zeros and spelling of local numbers ignored.
  std::uint64_t h = mix(0, epoch());
  const std::span<const std::uint64_t> parts = release();
  const std::size_t n = significant_length(parts);
  for (std::size_t i = 0; i < n; ++i) h = mix(h, parts[i]);
  h = mix(h, 0xffffffffffffffffULL);
  if (const auto p = pre()) h = mix(mix(h, 1 + static_cast<std::uint64_t>(p->first)), p->second);
  if (const auto p = post()) h = mix(mix(h, 7), *p);
  if (const auto d = dev()) h = mix(mix(h, 11), *d);
  if (full_) {
    for (const LocalPart& part : full_->local) h = mix(mix(h, part.numeric), hash_text(part.text));
  }
  return static_cast<std::size_t>(h);
}

}  // namespace wv::pkg
