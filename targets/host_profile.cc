// Host profile values (DESIGN.md §1).
#include "targets/host_profile.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::targets {

std::string_view to_string(FactSource source) {
  switch (source) {
    case FactSource::kUnknown: return "unknown";
    case FactSource::kDeclared: return "declared";
    case FactSource::kDefault: return "default";
    case FactSource::kOverride: return "override";
    case FactSource::kNvml: return "nvml";
    case FactSource::kLibcuda: return "libcuda";
    case FactSource::kNvidiaSmi: return "nvidia-smi";
    case FactSource::kSysfs: return "sysfs";
    case FactSource::kFile: return "file";
    case FactSource::kCpuid: return "cpuid";
    case FactSource::kAuxv: return "auxv";
    case FactSource::kProcfs: return "procfs";
    case FactSource::kLibc: return "libc";
    case FactSource::kUname: return "uname";
    case FactSource::kSysctl: return "sysctl";
  }
  return "unknown";
}

std::string_view to_string(OsKind os) {
  switch (os) {
    case OsKind::kLinux: return "linux";
    case OsKind::kMacos: return "macos";
    case OsKind::kWindows: return "windows";
  }
  return "linux";
}

std::string_view to_string(LibcKind libc) {
  return libc == LibcKind::kMusl ? "musl" : "glibc";
}

std::string MajorMinor::to_string() const { return str_cat(major, ".", minor); }

Result<MajorMinor> parse_major_minor(std::string_view text, std::string_view what,
                                     bool allow_major_only, bool allow_patch) {
  const std::string_view trimmed = trim(text);
  const std::vector<std::string_view> parts = split(trimmed, '.');
  const std::size_t most = allow_patch ? 3 : 2;
  const std::size_t least = allow_major_only ? 1 : 2;
  auto fail = [&]() -> Error {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("invalid ", what, " ", in_backticks(text), ": expected ",
                              allow_major_only ? "`MAJOR` or " : "",
                              allow_patch ? "`MAJOR.MINOR[.PATCH]`" : "`MAJOR.MINOR`",
                              " with decimal numbers"));
  };
  if (parts.size() < least || parts.size() > most) return fail();
  int numbers[3] = {0, 0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::optional<std::uint64_t> n = parse_uint64(parts[i]);
    if (!n || *n > 100000) return fail();
    numbers[i] = static_cast<int>(*n);
  }
  return MajorMinor{numbers[0], numbers[1]};
}

std::optional<MajorMinor> HostProfile::highest_compute_capability() const {
  if (!compute_capabilities.known() || compute_capabilities.value->empty()) return std::nullopt;
  return *std::max_element(compute_capabilities.value->begin(), compute_capabilities.value->end());
}

}  // namespace wv::targets
