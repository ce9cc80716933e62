// PEP 440 versions (packaging.version.Version of packaging 23.0): parsing with the full grammar
// and normalisation (PEP 440 "Version scheme" and "Normalization"), and the exact ordering
// ("Summary of permitted suffixes and relative ordering"). See docs/pep440.md.
//
// Representation: most real versions (epoch 0, at most 4 release parts with small values,
// small pre/post/dev numbers, no local label) are held inline and carry a 64-bit order key,
// so comparing two of them is one integer compare and copying them allocates nothing. The rest
// keep their parts in a shared immutable block (copying is a reference count increment).
#pragma once

#include <array>
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

#include "base/result.h"

namespace wv::pkg {

/// A valid PEP 440 version, normalised. Immutable; cheap to copy. Default: version "0".
class Version {
 public:
  /// Pre-release phase; `c`, `pre` and `preview` normalise to kRc, `alpha` to kAlpha, ...
  enum class PreKind : std::uint8_t { kAlpha, kBeta, kRc };

  /// The version "0".
  Version();

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
  bool has_local() const;

  /// A dev or pre-release (packaging's is_prerelease).
  bool is_prerelease() const;
  bool is_postrelease() const;
  bool is_devrelease() const;

  /// The version without its local label.
  Version public_version() const;
  /// Epoch and release only ("1!2.0rc1.post1+x" -> "1!2.0").
  Version base_version() const;

  /// The normalised form, e.g. "1!2.0rc1.post2.dev3+abc.1".
  std::string to_string() const;

  /// The PEP 440 total order; local labels order after their public version.
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  /// Equality under the ordering: "1.0" == "1.0.0", "1.0+01" == "1.0+1".
  friend bool operator==(const Version& a, const Version& b);

  /// A final release from its numbers (an empty list means "0").
  static Version from_release(std::vector<std::uint64_t> parts);

  /// A version from parts already validated (used by the parser and by derived versions).
  /// `local_parts` are the dot-separated local segments, already lower case.
  static Version from_parts(std::uint64_t epoch, std::vector<std::uint64_t> release,
                            std::optional<std::pair<PreKind, std::uint64_t>> pre,
                            std::optional<std::uint64_t> post, std::optional<std::uint64_t> dev,
                            std::vector<std::string> local_parts = {});

  /// True when this version carries a 64-bit order key (the fast comparison path).
  bool has_compact_key() const { return has_key_; }
  /// The 64-bit order key; only meaningful when has_compact_key().
  std::uint64_t compact_key() const { return key_; }

  /// A hash consistent with ==.
  std::size_t hash() const;

 private:
  struct Full;
  std::strong_ordering compare_slow(const Version& other) const;

  std::uint64_t key_ = 0;              // order key when has_key_
  std::shared_ptr<const Full> full_;   // parts of a version that does not fit inline
  std::array<std::uint64_t, 4> inline_release_{};  // release of an inline version
  std::uint8_t inline_count_ = 1;                  // its length
  bool has_key_ = false;
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
