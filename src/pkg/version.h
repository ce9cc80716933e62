// PEP 440 versions (packaging.version.Version of packaging 26): parsing with the full grammar
// and normalisation (PEP 440 "Version scheme" and "Normalization"), and the exact ordering
// ("Summary of permitted suffixes and relative ordering"). See docs/pep440.md.
//
// Representation (32 bytes): every version carries a 64-bit order key that is monotone with the
// order; for most real versions (epoch 0, at most 4 release parts with small values, small
// pre/post/dev numbers, no local label) it is exact, so comparing two of them is one integer
// comparison. Those with at most three release numbers hold them inline (copying allocates
// nothing; pre, post and dev are read back from the key). The rest keep their parts in a
// shared immutable block (copying is a reference count increment); their key still decides
// most comparisons, ties go to the full comparison.
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/result.h"

namespace wv::pkg {

struct VersionParts;
struct VersionLocalPart;

/// A valid PEP 440 version, normalised. Immutable; cheap to copy. Default: version "0".
class Version {
 public:
  /// Pre-release phase; `c`, `pre` and `preview` normalise to kRc, `alpha` to kAlpha, ...
  enum class PreKind : std::uint8_t { kAlpha, kBeta, kRc };

  /// The version "0".
  Version() = default;
  Version(const Version& other) noexcept : key_(other.key_), slots_(other.slots_) {
    if (is_full()) retain();
  }
  Version(Version&& other) noexcept : key_(other.key_), slots_(other.slots_) {
    other.become_zero();
  }
  Version& operator=(const Version& other) noexcept {
    if (this != &other) {
      if (other.is_full()) other.retain();
      if (is_full()) release_full();
      key_ = other.key_;
      slots_ = other.slots_;
    }
    return *this;
  }
  Version& operator=(Version&& other) noexcept {
    if (this != &other) {
      if (is_full()) release_full();
      key_ = other.key_;
      slots_ = other.slots_;
      other.become_zero();
    }
    return *this;
  }
  ~Version() {
    if (is_full()) release_full();
  }

  /// The epoch (0 unless written `N!`).
  std::uint64_t epoch() const;
  /// The release numbers as written (trailing zeros kept: "1.0.0" has three).
  std::span<const std::uint64_t> release() const;
  /// The pre-release phase and number, if any ("1.0rc1" -> {kRc, 1}).
  std::optional<std::pair<PreKind, std::uint64_t>> pre() const;
  /// The post-release number, if any ("1.0-3" and "1.0.post3" -> 3).
  std::optional<std::uint64_t> post() const;
  /// The development release number, if any.
  std::optional<std::uint64_t> dev() const;
  /// The local label, normalised ("Ubuntu-01" -> "ubuntu.1"); "" when there is none.
  std::string local() const;
  /// True when the version has a local label.
  bool has_local() const { return (flags() & kFlagLocal) != 0; }

  /// A dev or pre-release (packaging's is_prerelease).
  bool is_prerelease() const { return (flags() & kFlagPre) != 0; }
  bool is_postrelease() const { return (flags() & kFlagPost) != 0; }
  bool is_devrelease() const { return (flags() & kFlagDev) != 0; }

  /// The version without its local label.
  Version public_version() const;
  /// Epoch and release only ("1!2.0rc1.post1+x" -> "1!2.0").
  Version base_version() const;

  /// The normalised form, e.g. "1!2.0rc1.post2.dev3+abc.1".
  std::string to_string() const;

  /// The PEP 440 total order; local labels order after their public version. Two versions
  /// with a compact key compare with one integer comparison (inline here).
  friend std::strong_ordering operator<=>(const Version& a, const Version& b) {
    if (a.key_ != b.key_) return a.key_ <=> b.key_;  // the key is monotone with the order
    if (a.is_exact() && b.is_exact()) return std::strong_ordering::equal;
    return a.compare_tie(b);
  }
  /// This version without its local label compared with `other` (which has none), as the
  /// specifier operators need; cheap (no copy) when the key decides.
  std::strong_ordering compare_public(const Version& other) const {
    if (key_ != other.key_) return key_ <=> other.key_;  // a local label never changes the key
    if ((flags() & kFlagPublicExact) != 0 && other.is_exact()) return std::strong_ordering::equal;
    return public_version().compare_slow(other);
  }

  /// Equality under the ordering: "1.0" == "1.0.0", "1.0+01" == "1.0+1".
  friend bool operator==(const Version& a, const Version& b) {
    if (a.key_ != b.key_) return false;
    const bool exact = a.is_exact();
    if (exact && b.is_exact()) return true;
    if (exact != b.is_exact()) return false;  // exactness depends only on what is compared
    return a.compare_tie(b) == 0;
  }

  /// A final release from its numbers (an empty list means "0").
  static Version from_release(std::vector<std::uint64_t> parts);

  /// A version from its parts (for bridges and tests; the parser builds versions directly).
  /// An empty `release` means "0". `local_parts` are the local label's segments, ASCII
  /// letters and digits; case and leading zeros are normalised here, nothing is validated.
  static Version from_parts(std::uint64_t epoch, std::vector<std::uint64_t> release,
                            std::optional<std::pair<PreKind, std::uint64_t>> pre,
                            std::optional<std::uint64_t> post, std::optional<std::uint64_t> dev,
                            std::vector<std::string> local_parts = {});

  /// True when the 64-bit order key identifies this version exactly (epoch 0, at most four
  /// significant release numbers that fit the key, small pre/post/dev numbers, no local label).
  bool has_compact_key() const { return is_exact(); }
  /// The 64-bit order key: a < b implies compact_key(a) <= compact_key(b); for two versions
  /// with has_compact_key() the keys are equal exactly when the versions are.
  std::uint64_t compact_key() const { return key_; }
  /// The ordering computed from the parts alone, without the key (tests check one against
  /// the other).
  static std::strong_ordering compare_full(const Version& a, const Version& b);

  /// A hash consistent with ==.
  std::size_t hash() const;

 private:
  friend Result<Version> parse_version(std::string_view text);
  // Builds a version from collected parts: inline when its key is exact and it has at most
  // four release numbers, else with a shared Full block.
  static Version build(VersionParts&& parts);

  struct Full;
  std::strong_ordering compare_slow(const Version& other) const;
  std::strong_ordering compare_tie(const Version& other) const;  // equal keys, one inexact

  // Facts read on hot paths (specifier matching).
  static constexpr std::uint8_t kFlagPre = 1;          // is_prerelease
  static constexpr std::uint8_t kFlagPost = 2;         // is_postrelease
  static constexpr std::uint8_t kFlagDev = 4;          // is_devrelease
  static constexpr std::uint8_t kFlagLocal = 8;        // has a local label
  static constexpr std::uint8_t kFlagPublicExact = 16;  // the public version's key is exact
  static constexpr std::uint8_t kFlagExact = 32;        // this version's key is exact

  // slots_[2] tells the two forms apart: below kTagBit it is the third release number of an
  // inline version of three (an exact key bounds it), kTagBit | n an inline version of n < 3
  // numbers, kTagFull a version whose parts are in the Full block at slots_[0] (then
  // slots_[1] holds its flags). An inline version's flags follow from its exact key.
  static constexpr std::uint64_t kTagBit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kTagFull = kTagBit | 0xff;
  // The key of "0" (see the key layout in version.cc: phase "none", dev "none").
  static constexpr std::uint64_t kZeroKey = (std::uint64_t{4} << 13) | 31;

  bool is_full() const { return slots_[2] == kTagFull; }
  const Full* full() const {
    return is_full() ? std::bit_cast<const Full*>(slots_[0]) : nullptr;
  }
  bool is_exact() const { return !is_full() || (slots_[1] & kFlagExact) != 0; }
  std::uint8_t flags() const {
    return is_full() ? static_cast<std::uint8_t>(slots_[1]) : inline_flags(key_);
  }
  static constexpr std::uint8_t inline_flags(std::uint64_t key) {
    const std::uint64_t phase = (key >> 13) & 0x7, post = (key >> 5) & 0xf, dev = key & 0x1f;
    std::uint8_t out = kFlagPublicExact | kFlagExact;
    if (phase < 4 || dev != 31) out |= kFlagPre;  // a, b, rc, or a dev release
    if (post != 0) out |= kFlagPost;
    if (dev != 31) out |= kFlagDev;
    return out;
  }
  void become_zero() {
    key_ = kZeroKey;
    slots_ = {0, 0, kTagBit | 1};
  }
  const std::vector<VersionLocalPart>& local_parts() const;  // empty without a label
  void retain() const;        // one more reference to the Full block
  void release_full() const;  // one fewer; the last frees it

  std::uint64_t key_ = kZeroKey;  // monotone order key (exact when is_exact())
  std::array<std::uint64_t, 3> slots_{0, 0, kTagBit | 1};  // inline release or Full block
};

/// Parses a version: the full PEP 440 grammar (epochs, every pre/post/dev spelling, implicit
/// post "1.0-1", local labels, a leading "v", any case and separators, surrounding
/// whitespace). Numbers above 2^64-1 are refused (kUnsupported); packaging accepts them.
Result<Version> parse_version(std::string_view text);

/// True when `text` is a valid version (no allocation of an error message on failure).
bool is_valid_version(std::string_view text);

/// A hash consistent with ==.
inline std::size_t hash_value(const Version& version) { return version.hash(); }

/// The name of a pre-release phase in normal form: "a", "b", "rc".
std::string_view pre_kind_name(Version::PreKind kind);

}  // namespace wv::pkg

template <>
struct std::hash<wv::pkg::Version> {
  std::size_t operator()(const wv::pkg::Version& version) const { return version.hash(); }
};
