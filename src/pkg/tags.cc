// Compatibility tags: parsing and the ordered tag list of a CPython host. The order follows
// packaging 26 (tags.py, _manylinux.py, _musllinux.py) step by step; see the comments for
// the few places where a host fact replaces one of packaging's live probes.
#include "src/pkg/tags.h"

#include "src/pkg/host_tag_ranks.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "src/base/str.h"

namespace wv::pkg {
namespace {

// packaging assumes glibc 2.x is followed by 3.x some day; for a major version below the
// host's it counts minors down from 50 (_LAST_GLIBC_MINOR's default).
constexpr int kLastGlibcMinor = 50;
// Bounds on host numbers so that a silly declared value ("glibc 2.999999999") cannot make the
// lists enormous; real values are far below them.
constexpr int kMaxMinor = 200;
constexpr int kMaxMajor = 100;

int clamp_number(int value, int max) { return value < 0 ? -1 : (value > max ? max : value); }

// make_parse_error with the house wording: "...: expected <what was expected>".
Error expected_error(std::string_view what, std::string_view input, std::size_t offset,
                     std::string_view expected) {
  return make_parse_error(what, input, offset, str_cat("expected ", expected));
}

bool is_tag_part_char(char c) { return is_ascii_alnum(c) || c == '_'; }

// Checks one dot-free component of a tag and returns it lower-cased.
Result<std::string> parse_tag_part(std::string_view whole, std::string_view part,
                                   std::size_t offset, std::string_view what) {
  if (part.empty()) {
    return expected_error("tag", whole, offset, str_cat("a non-empty ", what));
  }
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (!is_tag_part_char(part[i])) {
      return expected_error("tag", whole, offset + i,
                              str_cat("ASCII letters, digits or `_` in the ", what));
    }
  }
  return to_lower(part);
}

// The three dash-separated fields of a tag, with their offsets in `text`.
struct TagFields {
  std::string_view field[3];
  std::size_t offset[3] = {0, 0, 0};
};

Result<TagFields> split_tag_fields(std::string_view text) {
  TagFields fields;
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    std::size_t dash = i < 2 ? text.find('-', start) : std::string_view::npos;
    if (i < 2 && dash == std::string_view::npos) {
      return expected_error("tag", text, text.size(),
                              "three dash-separated fields `interpreter-abi-platform`");
    }
    std::size_t end = i < 2 ? dash : text.size();
    fields.field[i] = text.substr(start, end - start);
    fields.offset[i] = start;
    start = end + 1;
  }
  if (fields.field[2].find('-') != std::string_view::npos) {
    return expected_error("tag", text, fields.offset[2] + fields.field[2].find('-'),
                            "exactly three dash-separated fields `interpreter-abi-platform`");
  }
  return fields;
}

constexpr std::string_view kFieldNames[3] = {"interpreter tag", "ABI tag", "platform tag"};

std::string nodot(int major, int minor) { return str_cat(major, minor); }

// packaging's _manylinux.platform_tags(): manylinux_MAJOR_MINOR from the host glibc down to
// the oldest glibc the architecture ever had, each legacy alias right after its PEP 600 name.
void add_manylinux_platforms(const TagPlatform& platform, std::vector<std::string>& out) {
  const std::string& arch = platform.arch;
  // The oldest glibc is 2.17 (i.e. "too old" = 2.16), on x86 it is 2.5 (too old = 2.4).
  const int too_old_major = 2;
  const int too_old_minor = (arch == "x86_64" || arch == "i686") ? 4 : 16;
  std::vector<std::pair<int, int>> maxima = {{platform.libc_major, platform.libc_minor}};
  for (int major = platform.libc_major - 1; major > 1; --major) {
    maxima.emplace_back(major, kLastGlibcMinor);
  }
  for (const auto& [major, max_minor] : maxima) {
    const int min_minor = major == too_old_major ? too_old_minor : -1;
    for (int minor = max_minor; minor > min_minor; --minor) {
      out.push_back(str_cat("manylinux_", major, "_", minor, "_", arch));
      if (major == 2 && minor == 17) out.push_back(str_cat("manylinux2014_", arch));
      if (major == 2 && minor == 12) out.push_back(str_cat("manylinux2010_", arch));
      if (major == 2 && minor == 5) out.push_back(str_cat("manylinux1_", arch));
    }
  }
}

// packaging's _mac_binary_formats() for the 64-bit architectures a modern host can have;
// the 32-bit i386/ppc formats are kept for completeness of the macOS 10.x range. `fat3`
// (i386, ppc, x86_64) is distutils' name for the three-way build; packaging 23.0 wrote
// `fat32`, a format no build tool produces.
std::vector<std::string_view> mac_binary_formats(int major, int minor, std::string_view arch) {
  const bool before_10_4 = major == 10 && minor < 4;
  std::vector<std::string_view> formats = {arch};
  if (arch == "x86_64") {
    if (before_10_4) return {};
    formats.insert(formats.end(), {"intel", "fat64", "fat3"});
  } else if (arch == "i386") {
    if (before_10_4) return {};
    formats.insert(formats.end(), {"intel", "fat3", "fat"});
  } else if (arch == "ppc64") {
    if (major > 10 || (major == 10 && minor > 5) || before_10_4) return {};
    formats.push_back("fat64");
  } else if (arch == "ppc") {
    if (major > 10 || (major == 10 && minor > 6)) return {};
    formats.insert(formats.end(), {"fat3", "fat"});
  }
  if (arch == "arm64" || arch == "x86_64") formats.push_back("universal2");
  if (arch == "x86_64" || arch == "i386" || arch == "ppc64" || arch == "ppc" || arch == "intel") {
    formats.push_back("universal");
  }
  return formats;
}

void add_mac_version(int major, int minor, std::string_view arch, std::vector<std::string>& out) {
  for (std::string_view format : mac_binary_formats(major, minor, arch)) {
    out.push_back(str_cat("macosx_", major, "_", minor, "_", format));
  }
}

// packaging's mac_platforms(version, arch).
void add_mac_platforms(const TagPlatform& platform, std::vector<std::string>& out) {
  const int major = platform.libc_major;
  const int minor = platform.libc_minor;
  const std::string& arch = platform.arch;
  if (major == 10) {
    // Before macOS 11 every yearly release bumped the minor version.
    for (int m = minor; m >= 0; --m) add_mac_version(10, m, arch, out);
  }
  if (major >= 11) {
    // From macOS 11 on the yearly release bumps the major version; minor 0 stands for all.
    for (int m = major; m > 10; --m) add_mac_version(m, 0, arch, out);
    if (arch == "x86_64") {
      for (int m = 16; m > 3; --m) add_mac_version(10, m, arch, out);
    } else {
      // arm64 did not exist before 11.0, but a universal2 binary may name an older macOS.
      for (int m = 16; m > 3; --m) out.push_back(str_cat("macosx_10_", m, "_universal2"));
    }
  }
}

std::string windows_platform(std::string_view arch) {
  const std::string lower = to_lower(arch);
  if (lower == "amd64" || lower == "x86_64") return "win_amd64";
  if (lower == "arm64" || lower == "aarch64") return "win_arm64";
  if (lower == "x86" || lower == "i386" || lower == "i686" || lower == "win32") return "win32";
  return str_cat("win_", lower);
}

// The best (lowest) rank any of `tags` has under `rank`; nullopt when none ranks. Both the
// factored HostTagRanks and the listed TagPriority answer a wheel's tags this way.
template <typename Rank>
std::optional<std::uint32_t> lowest_rank(std::span<const Tag> tags, const Rank& rank) {
  std::optional<std::uint32_t> best;
  for (const Tag& tag : tags) {
    std::optional<std::uint32_t> r = rank(tag);
    if (r && (!best || *r < *best)) best = r;
  }
  return best;
}

}  // namespace

std::string Tag::to_string() const { return str_cat(interpreter, "-", abi, "-", platform); }

std::size_t TagHash::operator()(const Tag& tag) const {
  std::hash<std::string> h;
  std::size_t seed = h(tag.interpreter);
  seed ^= h(tag.abi) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  seed ^= h(tag.platform) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  return seed;
}

Result<Tag> parse_tag(std::string_view text) {
  WV_ASSIGN_OR_RETURN(TagFields fields, split_tag_fields(text));
  Tag tag;
  std::string* out[3] = {&tag.interpreter, &tag.abi, &tag.platform};
  for (int i = 0; i < 3; ++i) {
    WV_ASSIGN_OR_RETURN(*out[i],
                        parse_tag_part(text, fields.field[i], fields.offset[i], kFieldNames[i]));
  }
  return tag;
}

Result<std::vector<Tag>> parse_tag_set(std::string_view text) {
  WV_ASSIGN_OR_RETURN(TagFields fields, split_tag_fields(text));
  std::vector<std::string> parts[3];
  for (int i = 0; i < 3; ++i) {
    std::size_t offset = fields.offset[i];
    for (std::string_view piece : split(fields.field[i], '.')) {
      WV_ASSIGN_OR_RETURN(std::string part,
                          parse_tag_part(text, piece, offset, kFieldNames[i]));
      if (std::find(parts[i].begin(), parts[i].end(), part) == parts[i].end()) {
        parts[i].push_back(std::move(part));
      }
      offset += piece.size() + 1;
    }
  }
  std::vector<Tag> tags;
  tags.reserve(parts[0].size() * parts[1].size() * parts[2].size());
  for (const std::string& interpreter : parts[0]) {
    for (const std::string& abi : parts[1]) {
      for (const std::string& platform : parts[2]) tags.push_back(Tag{interpreter, abi, platform});
    }
  }
  return tags;
}

std::vector<std::string> platform_tags(const TagPlatform& host) {
  TagPlatform platform = host;
  platform.libc_major = clamp_number(platform.libc_major, kMaxMajor);
  platform.libc_minor = clamp_number(platform.libc_minor, kMaxMinor);
  std::vector<std::string> out;
  switch (platform.os) {
    case OperatingSystem::kManylinux:
      // An unknown glibc (major below 2) gets no manylinux tags, as in packaging.
      if (platform.libc_major >= 2) add_manylinux_platforms(platform, out);
      out.push_back(str_cat("linux_", platform.arch));
      break;
    case OperatingSystem::kMusllinux:
      for (int minor = platform.libc_major >= 1 ? platform.libc_minor : -1; minor >= 0; --minor) {
        out.push_back(str_cat("musllinux_", platform.libc_major, "_", minor, "_", platform.arch));
      }
      out.push_back(str_cat("linux_", platform.arch));
      break;
    case OperatingSystem::kMacos:
      add_mac_platforms(platform, out);
      break;
    case OperatingSystem::kWindows:
      out.push_back(windows_platform(platform.arch));
      break;
  }
  return out;
}

HostTagRanks::HostTagRanks(const TagPlatform& platform) : platforms_(platform_tags(platform)) {
  const int major = clamp_number(platform.python_major, kMaxMajor);
  const int minor = clamp_number(platform.python_minor, kMaxMinor);
  const std::string interpreter = str_cat("cp", nodot(major, minor));
  // packaging's _cpython_abis() for a release (non-debug) build: pymalloc's `m` before 3.8.
  std::string abi = interpreter;
  if (major == 3 && minor < 8) abi += "m";
  if (platform.free_threaded) abi += "t";
  // abi3 (PEP 384) exists from 3.2; a free-threaded build cannot load abi3 extensions.
  const bool abi3 = (major > 3 || (major == 3 && minor >= 2)) && !platform.free_threaded;

  auto add_pair = [&](std::string interp, std::string abi_tag) {
    pairs_.push_back(Pair{std::move(interp), std::move(abi_tag)});
  };
  // cpython_tags(): the interpreter's own ABI, abi3, none, then older abi3 down to cp32.
  add_pair(interpreter, abi);
  if (abi3) add_pair(interpreter, "abi3");
  add_pair(interpreter, "none");
  if (abi3) {
    for (int m = minor - 1; m > 1; --m) add_pair(str_cat("cp", nodot(major, m)), "abi3");
  }
  // compatible_tags(): pyXY-none-PLATFORM for pyXY, pyX, then older minors; then -none-any.
  std::vector<std::string> py_range = {str_cat("py", nodot(major, minor)), str_cat("py", major)};
  for (int m = minor - 1; m >= 0; --m) py_range.push_back(str_cat("py", nodot(major, m)));
  for (const std::string& py : py_range) add_pair(py, "none");
  any_interpreters_.push_back(interpreter);
  any_interpreters_.insert(any_interpreters_.end(), py_range.begin(), py_range.end());
}

std::optional<std::uint32_t> HostTagRanks::rank(const Tag& tag) const {
  // The first matching pair and platform give the first place of the tag in expand().
  auto platform = std::find(platforms_.begin(), platforms_.end(), tag.platform);
  if (platform != platforms_.end()) {
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      if (pairs_[i].interpreter == tag.interpreter && pairs_[i].abi == tag.abi) {
        return static_cast<std::uint32_t>(i * platforms_.size() + (platform - platforms_.begin()));
      }
    }
  }
  if (tag.platform != "any" || tag.abi != "none") return std::nullopt;
  auto any = std::find(any_interpreters_.begin(), any_interpreters_.end(), tag.interpreter);
  if (any == any_interpreters_.end()) return std::nullopt;
  return static_cast<std::uint32_t>(pairs_.size() * platforms_.size() +
                                    (any - any_interpreters_.begin()));
}

std::optional<std::uint32_t> HostTagRanks::best_rank(std::span<const Tag> tags) const {
  return lowest_rank(tags, [this](const Tag& tag) { return rank(tag); });
}

std::vector<Tag> HostTagRanks::expand() const {
  std::vector<Tag> tags;
  tags.reserve(pairs_.size() * platforms_.size() + any_interpreters_.size());
  for (const Pair& pair : pairs_) {
    for (const std::string& p : platforms_) tags.push_back(Tag{pair.interpreter, pair.abi, p});
  }
  for (const std::string& interp : any_interpreters_) tags.push_back(Tag{interp, "none", "any"});
  return tags;
}

std::vector<Tag> compatible_tags(const TagPlatform& platform) {
  return HostTagRanks(platform).expand();
}

TagPriority::TagPriority(std::vector<Tag> ordered) : tags_(std::move(ordered)) {
  ranks_.reserve(tags_.size());
  for (std::size_t i = 0; i < tags_.size(); ++i) {
    ranks_.emplace(tags_[i], static_cast<std::uint32_t>(i));  // emplace keeps the first rank
  }
}

std::optional<std::uint32_t> TagPriority::rank(const Tag& tag) const {
  auto it = ranks_.find(tag);
  if (it == ranks_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::uint32_t> TagPriority::best_rank(std::span<const Tag> tags) const {
  return lowest_rank(tags, [this](const Tag& tag) { return rank(tag); });
}

}  // namespace wv::pkg
