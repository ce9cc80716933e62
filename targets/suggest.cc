// Suggestions for a GPU host that no GPU target serves (targets/suggest.h).
#include "targets/suggest.h"

#include <algorithm>
#include <vector>

#include "src/base/str.h"

namespace wv::targets {
namespace {

std::string quoted(std::string_view text) { return str_cat("\"", text, "\""); }

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> parts;
  for (const std::string& item : items) parts.push_back(quoted(item));
  return str_cat("[", join(parts, ", "), "]");
}

// The live GPUs' capabilities, lowest first, each once.
std::vector<MajorMinor> live_capabilities(const HostProfile& live) {
  std::vector<MajorMinor> out;
  if (live.compute_capabilities.known()) out = *live.compute_capabilities.value;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string nvidia_table(MajorMinor driver, const std::vector<std::string>& capabilities) {
  const std::string cc = capabilities.size() == 1 ? quoted(capabilities.front())
                                                  : quoted_list(capabilities);
  return str_cat("nvidia = { cuda-driver = ", quoted(driver.to_string()),
                 ", compute-capability = ", cc, " }");
}

std::string amd_table(MajorMinor rocm, const std::vector<std::string>& gfx) {
  return str_cat("amd = { rocm = ", quoted(rocm.to_string()), ", gfx = ", quoted_list(gfx), " }");
}

}  // namespace

std::string suggested_target(const HostProfile& live, const Target& like, GpuVendor vendor) {
  const HostProfile& want = like.profile;
  std::string name;
  std::string hardware;
  switch (vendor) {
    case GpuVendor::kNvidia: {
      std::vector<std::string> ccs;
      for (const MajorMinor& cc : live_capabilities(live)) ccs.push_back(cc.to_string());
      if (ccs.empty() && want.compute_capabilities.known()) {
        for (const MajorMinor& cc : *want.compute_capabilities.value) ccs.push_back(cc.to_string());
      }
      const MajorMinor driver = live.cuda_driver_version.value.value_or(
          want.cuda_driver_version.value.value_or(MajorMinor{}));
      std::string sm = ccs.empty() ? std::string("gpu") : ccs.back();
      sm.erase(std::remove(sm.begin(), sm.end(), '.'), sm.end());
      name = str_cat("sm", sm, "-cuda", driver.major, driver.minor);
      hardware = nvidia_table(driver, ccs);
      break;
    }
    case GpuVendor::kAmd: {
      std::vector<std::string> gfx = live.gfx_archs.value.value_or(
          want.gfx_archs.value.value_or(std::vector<std::string>{}));
      const MajorMinor rocm =
          live.rocm_version.value.value_or(want.rocm_version.value.value_or(MajorMinor{}));
      name = gfx.empty() ? std::string("rocm") : gfx.front();
      hardware = amd_table(rocm, gfx);
      break;
    }
    case GpuVendor::kIntel: {
      std::vector<std::string> ips = live.intel_device_ips.value.value_or(
          want.intel_device_ips.value.value_or(std::vector<std::string>{}));
      name = "xpu";
      hardware = str_cat("intel = { device-ip = ", quoted_list(ips), " }");
      break;
    }
  }
  std::string out = str_cat("[[tool.wvlock.target]]\nname = ", quoted(name),
                            "\nplatform = ", quoted(like.platform), "\n");
  if (want.libc_version.declared()) {
    out += str_cat(want.libc.value == LibcKind::kMusl ? "musl" : "glibc", " = ",
                   quoted(want.libc_version.value->to_string()), "\n");
  }
  return out + hardware + "\n";
}

std::string widened_declaration(const Target& declared, const HostProfile& live, GpuVendor vendor) {
  const HostProfile& want = declared.profile;
  switch (vendor) {
    case GpuVendor::kNvidia: {
      // Only the capability can be widened: a driver older than the builds need stays so.
      if (!want.compute_capabilities.declared() || !want.cuda_driver_version.declared()) return "";
      if (!live.cuda_driver_version.known() ||
          *live.cuda_driver_version.value < *want.cuda_driver_version.value) {
        return "";
      }
      const std::vector<MajorMinor> gpus = live_capabilities(live);
      const MajorMinor lowest = *std::min_element(want.compute_capabilities.value->begin(),
                                                  want.compute_capabilities.value->end());
      if (gpus.empty() || gpus.front() < lowest) return "";  // an older GPU than every build
      return nvidia_table(*want.cuda_driver_version.value, {">=" + lowest.to_string()});
    }
    case GpuVendor::kAmd: {
      if (!want.rocm_version.declared() || !live.rocm_version.known() ||
          *live.rocm_version.value < *want.rocm_version.value) {
        return "";
      }
      std::vector<std::string> gfx = want.gfx_archs.value.value_or(std::vector<std::string>{});
      for (const std::string& arch : live.gfx_archs.value.value_or(std::vector<std::string>{})) {
        if (std::find(gfx.begin(), gfx.end(), arch) == gfx.end()) gfx.push_back(arch);
      }
      return amd_table(*want.rocm_version.value, gfx);
    }
    case GpuVendor::kIntel: {
      std::vector<std::string> ips = want.intel_device_ips.value.value_or(std::vector<std::string>{});
      for (const std::string& ip : live.intel_device_ips.value.value_or(std::vector<std::string>{})) {
        if (std::find(ips.begin(), ips.end(), ip) == ips.end()) ips.push_back(ip);
      }
      return str_cat("intel = { device-ip = ", quoted_list(ips), " }");
    }
  }
  return "";
}

}  // namespace wv::targets
