// Platform compatibility tags (PEP 425, PEP 600 manylinux_x_y with the PEP 513/571/599 legacy
// aliases, PEP 656 musllinux, macOS and Windows platform tags) and the ordered list of tags a
// CPython host accepts, most preferred first, in the exact order of Python's
// `packaging.tags.sys_tags()` (packaging 26: cpython_tags() then compatible_tags()).
// See docs/tags-and-filenames.md.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/base/result.h"

namespace wv::pkg {

/// One compatibility tag `interpreter-abi-platform`, e.g. `cp312-cp312-manylinux_2_28_x86_64`.
/// Fields are stored lower case (tags are case-insensitive; packaging lower-cases them).
struct Tag {
  std::string interpreter;
  std::string abi;
  std::string platform;

  /// "interpreter-abi-platform".
  std::string to_string() const;

  friend bool operator==(const Tag&, const Tag&) = default;
  friend std::strong_ordering operator<=>(const Tag&, const Tag&) = default;
};

/// A hash for Tag (unordered containers).
struct TagHash {
  std::size_t operator()(const Tag& tag) const;
};

/// Parses one tag `interpreter-abi-platform` (no dots: a compressed set is refused).
Result<Tag> parse_tag(std::string_view text);

/// Parses a (possibly compressed) tag set `py2.py3-none-any` into the cross product of its
/// dot-separated parts, in written order (interpreter outermost, platform innermost),
/// duplicates removed. Each part must be non-empty ASCII letters, digits or `_`.
Result<std::vector<Tag>> parse_tag_set(std::string_view text);

/// The operating-system families whose platform tags wvlock knows how to order.
enum class OperatingSystem { kManylinux, kMusllinux, kMacos, kWindows };

/// What decides the compatible tags of a CPython host.
struct TagPlatform {
  OperatingSystem os = OperatingSystem::kManylinux;
  /// Machine name as the platform tag spells it: x86_64, aarch64, i686, armv7l, ppc64le,
  /// s390x (Linux); x86_64, arm64 (macOS); amd64, arm64, x86/win32 (Windows).
  std::string arch;
  /// glibc 2.28 / musl 1.2 / macOS 14.0 as (major, minor); unused on Windows.
  int libc_major = 0;
  int libc_minor = 0;
  int python_major = 3;
  int python_minor = 12;
  /// A free-threaded build (`cp313t`): its ABI tag gets a `t` and abi3 does not apply.
  bool free_threaded = false;
};

/// The platform tags of `platform`, most preferred first (packaging's platform_tags()):
/// manylinux_2_Y down to the architecture's oldest glibc with manylinux2014/2010/1 after
/// their 2_17/2_12/2_5 equivalents, then linux_ARCH; musllinux_1_Y down to 1_0, then
/// linux_ARCH; macOS versions down to 10.4 (11+ by major) with their binary formats
/// (universal2, intel, fat*, universal); win_amd64 / win32 / win_arm64.
std::vector<std::string> platform_tags(const TagPlatform& platform);

/// Every tag a CPython host described by `platform` accepts, most preferred first, exactly as
/// packaging's sys_tags() lists them (CPython ABI, abi3 down to cp32, none, then pyXY-none
/// with the platform tags, then the `-none-any` tags).
std::vector<Tag> compatible_tags(const TagPlatform& platform);

/// Tag -> rank lookup built from an ordered tag list (rank 0 = most preferred). The rank of a
/// wheel is the best rank among its tags; nullopt means incompatible.
class TagPriority {
 public:
  TagPriority() = default;
  /// `ordered` is most preferred first; a repeated tag keeps its first (best) rank.
  explicit TagPriority(std::vector<Tag> ordered);

  /// The rank of one tag, nullopt when the host does not accept it.
  std::optional<std::uint32_t> rank(const Tag& tag) const;
  /// The best rank among `tags` (a wheel's expanded tag set); nullopt when none is accepted.
  std::optional<std::uint32_t> best_rank(std::span<const Tag> tags) const;
  /// True when at least one of `tags` is accepted.
  bool is_compatible(std::span<const Tag> tags) const { return best_rank(tags).has_value(); }

  /// The ordered list this priority was built from.
  const std::vector<Tag>& tags() const { return tags_; }
  std::size_t size() const { return tags_.size(); }

 private:
  std::vector<Tag> tags_;
  std::unordered_map<Tag, std::uint32_t, TagHash> ranks_;
};

}  // namespace wv::pkg
