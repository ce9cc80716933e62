// The judge of wheels and targets (targets/match.h; rules in docs/targets.md).
#include "targets/match.h"

#include <algorithm>

#include "src/base/str.h"
#include "src/pkg/host_tag_ranks.h"

namespace wv::targets {

int compare_wheel_ranks(const WheelRank& a, const WheelRank& b) {
  if (int c = compare_variant_scores(a.variant, b.variant); c != 0) return c;
  if (a.tag_rank != b.tag_rank) return a.tag_rank < b.tag_rank ? -1 : 1;
  if (a.build != b.build) {
    // A higher build tag wins (PEP 427); no build tag sorts below any.
    if (!a.build) return 1;
    if (!b.build) return -1;
    return *a.build > *b.build ? -1 : 1;
  }
  return 0;
}

int compare_wheel_quality(const WheelRank& a, const WheelRank& b) {
  WheelRank a_unlabelled = a, b_unlabelled = b;
  a_unlabelled.variant.label.clear();
  b_unlabelled.variant.label.clear();
  return compare_wheel_ranks(a_unlabelled, b_unlabelled);
}

namespace {

// judge_wheel() once the wheel's best tag rank is known (nullopt: no tag fits).
WheelVerdict judge_ranked(const pkg::WheelFilename& wheel, std::optional<std::uint32_t> tag_rank,
                          const pkg::VariantsMetadata* variants,
                          const SupportedVariants* supported, std::string_view variants_problem) {
  WheelVerdict verdict;
  if (!tag_rank) {
    verdict.problem = WheelProblem::kTags;
    verdict.reason = "no tag of the wheel fits";
    return verdict;
  }
  if (!wheel.variant_label) {
    verdict.rank = WheelRank{non_variant_score(), *tag_rank, wheel.build};
    return verdict;
  }
  const std::string& label = *wheel.variant_label;
  if (variants == nullptr || supported == nullptr) {
    verdict.problem = WheelProblem::kNoVariantMetadata;
    verdict.reason =
        variants_problem.empty()
            ? str_cat("variant label ", in_backticks(label), " has no variant metadata")
            : str_cat("its variant metadata is unusable: ", variants_problem);
    return verdict;
  }
  VariantMatch match = match_variant(label, *variants, *supported);
  if (auto* score = std::get_if<VariantScore>(&match)) {
    verdict.rank = WheelRank{std::move(*score), *tag_rank, wheel.build};
    return verdict;
  }
  verdict.problem = WheelProblem::kVariant;
  verdict.variant = std::move(std::get<IncompatibleVariant>(match));
  verdict.reason = verdict.variant->reason;
  return verdict;
}

}  // namespace

WheelVerdict judge_wheel(const pkg::WheelFilename& wheel, const pkg::TagPriority& tags,
                         const pkg::VariantsMetadata* variants,
                         const SupportedVariants* supported, std::string_view variants_problem) {
  return judge_ranked(wheel, tags.best_rank(wheel.tags), variants, supported, variants_problem);
}

WheelVerdict judge_wheel(const pkg::WheelFilename& wheel, const pkg::HostTagRanks& tags,
                         const pkg::VariantsMetadata* variants,
                         const SupportedVariants* supported, std::string_view variants_problem) {
  return judge_ranked(wheel, tags.best_rank(wheel.tags), variants, supported, variants_problem);
}

int compare_closeness(const HardwareCloseness& a, const HardwareCloseness& b) {
  if (a.tier != b.tier) return a.tier < b.tier ? -1 : 1;
  if (a.distance != b.distance) return a.distance < b.distance ? -1 : 1;
  return 0;
}

std::string_view to_string(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kNvidia: return "NVIDIA";
    case GpuVendor::kAmd: return "AMD";
    case GpuVendor::kIntel: return "Intel";
  }
  return "NVIDIA";
}

std::string_view variant_namespace(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kNvidia: return "nvidia";
    case GpuVendor::kAmd: return "amd";
    case GpuVendor::kIntel: return "intel";
  }
  return "nvidia";
}

bool declares_gpu(const HostProfile& want, GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kNvidia:
      return want.cuda_driver_version.declared() || want.compute_capabilities.declared();
    case GpuVendor::kAmd: return want.rocm_version.declared() || want.gfx_archs.declared();
    case GpuVendor::kIntel: return want.intel_device_ips.declared();
  }
  return false;
}

bool has_gpu(const HostProfile& host, GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kNvidia:
      return host.cuda_driver_version.known() ||
             (host.compute_capabilities.known() && !host.compute_capabilities.value->empty());
    case GpuVendor::kAmd:
      // A GPU whose ROCm cannot be found is still a GPU (never a silent CPU build).
      return host.rocm_version.known() || (host.gfx_archs.known() && !host.gfx_archs.value->empty());
    case GpuVendor::kIntel:
      return host.intel_device_ips.known() && !host.intel_device_ips.value->empty();
  }
  return false;
}

namespace {

bool declares_nvidia(const HostProfile& want) { return declares_gpu(want, GpuVendor::kNvidia); }
bool declares_amd(const HostProfile& want) { return declares_gpu(want, GpuVendor::kAmd); }

// How far a declared capability list (and range) is from serving `gpu`: nullopt when it does
// not (CUDA binary compatibility: same major, minor at least the declared; a range serves
// everything at or above its bound, since the lock author says its builds run there).
std::optional<int> capability_distance(const HostProfile& want, MajorMinor gpu) {
  std::optional<int> best;
  for (const MajorMinor& built : *want.compute_capabilities.value) {
    const bool in_range = want.compute_capability_from.known() &&
                          built == *want.compute_capability_from.value && built <= gpu;
    if ((built.major == gpu.major && built.minor <= gpu.minor) || in_range) {
      const int d = (gpu.major - built.major) * 100 + (gpu.minor - built.minor);
      if (!best || d < *best) best = d;
    }
  }
  return best;
}

// Minor steps between two `major.minor` versions of one major line (or across majors, with a
// major worth 100 minors: only an order is needed).
int steps(MajorMinor from, MajorMinor to) {
  return (to.major - from.major) * 100 + (to.minor - from.minor);
}

/// The platform: OS, architecture, libc and its version, macOS version, Python.
std::string platform_mismatch(const Target& target, const HostProfile& host) {
  const HostProfile& want = target.profile;
  if (!want.os.known() || !want.arch.known()) return "the lock declares no platform for it";
  if (!host.os.known()) return "this host's operating system is unknown";
  if (*host.os.value != *want.os.value) {
    return str_cat("this host runs ", to_string(*host.os.value), ", the target is for ",
                   to_string(*want.os.value));
  }
  if (!host.arch.known() || *host.arch.value != *want.arch.value) {
    return str_cat("this host is ", host.arch.known() ? *host.arch.value : std::string("unknown"),
                   ", the target is for ", *want.arch.value);
  }
  if (*want.os.value == OsKind::kLinux) {
    const LibcKind libc = want.libc.value.value_or(LibcKind::kGlibc);
    const std::string_view libc_name = to_string(libc);
    if (!host.libc.known() || *host.libc.value != libc) {
      return str_cat("this host has no ", libc_name, ", the target needs it");
    }
    const MajorMinor needed = want.libc_version.value.value_or(MajorMinor{});
    if (!host.libc_version.known()) {
      return str_cat("this host's ", libc_name, " version is unknown, the target needs ",
                     needed.to_string());
    }
    if (*host.libc_version.value < needed) {
      return str_cat(libc_name, " ", host.libc_version.value->to_string(), ", the target needs ",
                     libc_name, " ", needed.to_string(), " or newer");
    }
  }
  if (*want.os.value == OsKind::kMacos) {
    const MajorMinor needed = want.macos_version.value.value_or(MajorMinor{});
    if (!host.macos_version.known() || *host.macos_version.value < needed) {
      return str_cat("macOS ",
                     host.macos_version.known() ? host.macos_version.value->to_string()
                                                : std::string("unknown"),
                     ", the target needs macOS ", needed.to_string(), " or newer");
    }
  }
  if (want.python_version.known()) {
    if (!host.python_version.known()) return "the environment's Python version is unknown";
    if (*want.python_version.value != *host.python_version.value) {
      return str_cat("the environment has Python ", host.python_version.value->to_string(),
                     ", the target is for Python ", want.python_version.value->to_string());
    }
  }
  return "";
}

/// NVIDIA: a driver at least the declared one; every live GPU served by a declared compute
/// capability (a cubin for sm_XY runs on sm_XZ, Z >= Y: CUDA's binary compatibility).
std::string nvidia_mismatch(const HostProfile& want, const HostProfile& host,
                            HardwareCloseness& closeness) {
  const bool has_driver = host.cuda_driver_version.known();
  const bool has_gpu = host.compute_capabilities.known() && !host.compute_capabilities.value->empty();
  if (!has_driver && !has_gpu) return "no NVIDIA GPU, the target declares one";
  if (want.compute_capabilities.declared()) {
    if (!has_gpu) return "no NVIDIA GPU compute capability was detected, the target declares one";
    int worst = 0;
    for (const MajorMinor& gpu : *host.compute_capabilities.value) {
      std::optional<int> best = capability_distance(want, gpu);
      if (!best) {
        std::vector<std::string> declared_list;
        for (const MajorMinor& c : *want.compute_capabilities.value) {
          const bool range = want.compute_capability_from.known() && *want.compute_capability_from.value == c;
          declared_list.push_back(str_cat(range ? ">=" : "", c.to_string()));
        }
        return str_cat("GPU compute capability ", gpu.to_string(), ", the target is built for ",
                       join(declared_list, ", "), " (runs on the same major, equal or newer minor)");
      }
      worst = std::max(worst, *best);
    }
    closeness.distance[0] = worst;
  }
  if (want.cuda_driver_version.declared()) {
    const MajorMinor needed = *want.cuda_driver_version.value;
    if (!has_driver) {
      return str_cat("this host's CUDA driver version is unknown, the target needs ",
                     needed.to_string(), " or newer");
    }
    const MajorMinor live = *host.cuda_driver_version.value;
    if (live < needed) {
      return str_cat("CUDA driver ", live.to_string(), ", the target needs ", needed.to_string(),
                     " or newer");
    }
    closeness.distance[1] = steps(needed, live);
  }
  return "";
}

/// AMD: every live GPU's gfx architecture declared; ROCm at least the declared one.
std::string amd_mismatch(const HostProfile& want, const HostProfile& host,
                         HardwareCloseness& closeness) {
  const bool has_gpu = host.gfx_archs.known() && !host.gfx_archs.value->empty();
  if (!has_gpu && !host.rocm_version.known()) return "no AMD GPU, the target declares one";
  if (want.gfx_archs.declared()) {
    if (!has_gpu) return "no AMD GPU architecture was detected, the target declares one";
    for (const std::string& gfx : *host.gfx_archs.value) {
      const auto& list = *want.gfx_archs.value;
      if (std::find(list.begin(), list.end(), gfx) == list.end()) {
        return str_cat("GPU ", gfx, ", the target is built for ", join(list, ", "));
      }
    }
  }
  if (want.rocm_version.declared()) {
    const MajorMinor needed = *want.rocm_version.value;
    if (!host.rocm_version.known()) {
      return str_cat("no ROCm was detected, the target needs ROCm ", needed.to_string(),
                     " or newer");
    }
    const MajorMinor live = *host.rocm_version.value;
    if (live < needed) {
      return str_cat("ROCm ", live.to_string(), ", the target needs ROCm ", needed.to_string(),
                     " or newer");
    }
    closeness.distance[2] = steps(needed, live);
  }
  return "";
}

/// Intel: every live device IP declared.
std::string intel_mismatch(const HostProfile& want, const HostProfile& host) {
  if (!host.intel_device_ips.known() || host.intel_device_ips.value->empty()) {
    return "no Intel GPU, the target declares one";
  }
  const auto& list = *want.intel_device_ips.value;
  for (const std::string& ip : *host.intel_device_ips.value) {
    if (std::find(list.begin(), list.end(), ip) == list.end()) {
      return str_cat("Intel device IP ", ip, ", the target is built for ", join(list, ", "));
    }
  }
  return "";
}

}  // namespace

TargetFit fit_target(const Target& target, const HostProfile& host) {
  TargetFit fit;
  fit.reason = platform_mismatch(target, host);
  if (!fit.reason.empty()) return fit;
  const HostProfile& want = target.profile;
  const bool wants_nvidia = declares_nvidia(want);
  const bool wants_amd = declares_amd(want);
  const bool wants_intel = want.intel_device_ips.declared();
  // A mismatch of a vendor whose GPU the host has is recorded: variant wheels may overrule it.
  auto gpu_check = [&](GpuVendor vendor, std::string reason) {
    if (!reason.empty() && has_gpu(host, vendor)) fit.gpu_mismatch = vendor;
    fit.reason = std::move(reason);
  };
  if (wants_nvidia) gpu_check(GpuVendor::kNvidia, nvidia_mismatch(want, host, fit.closeness));
  if (fit.reason.empty() && wants_amd) gpu_check(GpuVendor::kAmd, amd_mismatch(want, host, fit.closeness));
  if (fit.reason.empty() && wants_intel) gpu_check(GpuVendor::kIntel, intel_mismatch(want, host));
  if (fit.reason.empty() && want.x86_64_level.declared()) {
    const int needed = *want.x86_64_level.value;
    if (!host.x86_64_level.known()) {
      fit.reason = str_cat("this host's x86-64 level is unknown, the target needs v", needed);
    } else if (*host.x86_64_level.value < needed) {
      fit.reason = str_cat("x86-64 level v", *host.x86_64_level.value, ", the target needs v",
                           needed, " or higher");
    } else {
      fit.closeness.distance[3] = *host.x86_64_level.value - needed;
    }
  }
  if (!fit.reason.empty()) return fit;
  fit.fits = true;
  fit.closeness.tier = wants_nvidia || wants_amd || wants_intel ? 0 : 2;
  return fit;
}

HostProfile host_for_target(HostProfile live, const Target& declared_target) {
  const HostProfile& want = declared_target.profile;
  if (!declares_nvidia(want)) {
    live.cuda_driver_version.clear(FactSource::kDeclared);
    live.compute_capabilities.clear(FactSource::kDeclared);
  }
  if (!declares_amd(want)) {
    live.rocm_version.clear(FactSource::kDeclared);
    live.gfx_archs.clear(FactSource::kDeclared);
  }
  if (!want.intel_device_ips.declared()) live.intel_device_ips.clear(FactSource::kDeclared);
  for (const auto& [ns, values] : want.properties) live.properties[ns] = values;
  return live;
}

}  // namespace wv::targets
