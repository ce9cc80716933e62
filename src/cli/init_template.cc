#include "src/cli/init_template.h"

#include "src/base/str.h"

namespace wv::cli {
namespace {

std::string platform_of(const targets::HostProfile& host) {
  const std::string arch = host.arch.value.value_or("x86_64");
  switch (host.os.value.value_or(targets::OsKind::kLinux)) {
    case targets::OsKind::kMacos:
      return arch == "aarch64" ? "macos-arm64" : "macos-x86_64";
    case targets::OsKind::kWindows:
      return arch == "aarch64" ? "windows-arm64" : "windows-amd64";
    case targets::OsKind::kLinux:
      break;
  }
  if (host.libc.value == targets::LibcKind::kMusl) return "linux-musl-" + arch;
  return "linux-" + arch;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += str_cat(i ? ", " : "", "\"", items[i], "\"");
  return out + "]";
}

// Examples to copy (docs/targets.md has every key).
constexpr const char* kExampleTargets =
    "# More machines to lock for (docs/targets.md): uncomment and adjust.\n"
    "# [[tool.wvlock.target]]\n"
    "# name = \"cuda-a100\"                     # NVIDIA A100: CUDA builds for sm_80\n"
    "# platform = \"linux-x86_64\"\n"
    "# glibc = \"2.28\"\n"
    "# nvidia = { cuda-driver = \"12.8\", compute-capability = \"8.0\" }\n"
    "#\n"
    "# [[tool.wvlock.target]]\n"
    "# name = \"cuda-h100\"                     # NVIDIA H100: CUDA builds for sm_90\n"
    "# platform = \"linux-x86_64\"\n"
    "# glibc = \"2.28\"\n"
    "# nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }\n"
    "#\n"
    "# [[tool.wvlock.target]]\n"
    "# name = \"rocm-mi300\"                    # AMD MI300: ROCm builds for gfx942\n"
    "# platform = \"linux-x86_64\"\n"
    "# glibc = \"2.28\"\n"
    "# amd = { rocm = \"6.4\", gfx = [\"gfx942\"] }\n"
    "#\n"
    "# [[tool.wvlock.target]]\n"
    "# name = \"cpu\"                           # any x86-64 Linux machine, no GPU\n"
    "# platform = \"linux-x86_64\"\n"
    "# glibc = \"2.28\"\n";

}  // namespace

std::string module_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '-' || c == '.') c = '_';
  }
  return out;
}

std::string host_target_table(const targets::HostProfile& host, std::string_view name) {
  std::string out = str_cat("[[tool.wvlock.target]]\nname = \"", name, "\"\nplatform = \"",
                            platform_of(host), "\"\n");
  const bool linux_host = host.os.value.value_or(targets::OsKind::kLinux) == targets::OsKind::kLinux;
  if (linux_host && host.libc_version.known()) {
    const bool musl = host.libc.value == targets::LibcKind::kMusl;
    out += str_cat(musl ? "musl" : "glibc", " = \"", host.libc_version.value->to_string(), "\"\n");
  }
  if (host.os.value == targets::OsKind::kMacos && host.macos_version.known()) {
    out += str_cat("macos = \"", host.macos_version.value->to_string(), "\"\n");
  }
  std::optional<targets::MajorMinor> capability = host.highest_compute_capability();
  if (host.cuda_driver_version.known() && capability) {
    out += str_cat("nvidia = { cuda-driver = \"", host.cuda_driver_version.value->to_string(),
                   "\", compute-capability = \"", capability->to_string(), "\" }\n");
  }
  if (linux_host && host.rocm_version.known()) {
    out += str_cat("amd = { rocm = \"", host.rocm_version.value->to_string(), "\"");
    if (host.gfx_archs.known() && !host.gfx_archs.value->empty()) {
      out += str_cat(", gfx = ", quoted_list(*host.gfx_archs.value));
    }
    out += " }\n";
  }
  return out;
}

std::string init_pyproject(const InitChoices& choices) {
  std::string out = str_cat("[project]\nname = \"", choices.name,
                            "\"\nversion = \"0.1.0\"\nrequires-python = \">=",
                            choices.python.to_string(), "\"\ndependencies = []\n");
  if (choices.package && !choices.library) {
    out += str_cat("\n[project.scripts]\n", choices.name, " = \"", module_name(choices.name),
                   ":main\"\n");
  }
  if (choices.package || choices.library) {
    out += "\n[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n";
  }
  if (choices.bare) return out;
  out += str_cat(
      "\n[tool.wvlock]\n"
      "# index-url = \"https://pypi.org/simple\"  # where packages come from "
      "([[tool.wvlock.index]] for several)\n\n",
      host_target_table(choices.host, "host"), "\n", kExampleTargets);
  return out;
}

}  // namespace wv::cli
