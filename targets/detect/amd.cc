// AMD detection (reference/anchors.md §4.3): gfx targets from the KFD topology in sysfs (no ROCm
// user space needed), the ROCm version from $ROCM_PATH/.info/version or /opt/rocm/.info/version.
#include <algorithm>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "targets/detect/detect.h"

namespace wv::detect {

std::string gfx_name(std::uint32_t version) {
  if (version == 0) return "";  // a CPU node
  const std::uint32_t major = version / 10000 % 100;
  const std::uint32_t minor = version / 100 % 100;
  const std::uint32_t step = version % 100;
  const char* hex = "0123456789abcdef";
  std::string name = str_cat("gfx", major, minor);
  if (step < 16) {
    name.push_back(hex[step]);
  } else {
    name += std::to_string(step);  // not produced by real hardware; keep it readable
  }
  return name;
}

AmdFacts probe_amd(const DetectOptions& options) {
  AmdFacts facts;
  RealFileSystem file_system;
  const std::string nodes_dir = options.root + "/sys/class/kfd/kfd/topology/nodes";
  Result<std::vector<DirectoryEntry>> nodes = file_system.list_directory(nodes_dir);
  if (!nodes) {
    facts.notes.push_back("amd: no KFD topology (amdgpu driver not loaded)");
  } else {
    for (const DirectoryEntry& node : *nodes) {
      Result<std::string> properties =
          file_system.read_file(path_join(path_join(nodes_dir, node.name), "properties"));
      if (!properties) continue;
      for (std::string_view line : split(*properties, '\n')) {
        const std::vector<std::string_view> words = split_whitespace(line);
        if (words.size() != 2 || words[0] != "gfx_target_version") continue;
        const std::optional<std::uint64_t> value = parse_uint64(words[1]);
        if (!value || *value > 0xffffffffu) continue;
        const std::string name = gfx_name(static_cast<std::uint32_t>(*value));
        if (!name.empty()) facts.gfx_archs.push_back(name);
      }
    }
    // Sorted and unique, as the AMD provider reports them.
    std::sort(facts.gfx_archs.begin(), facts.gfx_archs.end());
    facts.gfx_archs.erase(std::unique(facts.gfx_archs.begin(), facts.gfx_archs.end()),
                          facts.gfx_archs.end());
    if (!facts.gfx_archs.empty() && !file_system.exists(options.root + "/dev/kfd")) {
      facts.notes.push_back(str_cat("amd: GPUs ", join(facts.gfx_archs, ", "),
                                    " are in sysfs but /dev/kfd is missing (container without "
                                    "--device /dev/kfd?); ignored"));
      facts.gfx_archs.clear();
    }
    if (facts.gfx_archs.empty()) facts.notes.push_back("amd: no AMD GPU in the KFD topology");
  }

  std::vector<std::string> candidates;
  if (options.environment != nullptr) {
    if (std::optional<std::string> rocm_path = options.environment->get("ROCM_PATH");
        rocm_path && !rocm_path->empty()) {
      candidates.push_back(path_join(*rocm_path, ".info/version"));
    }
  }
  candidates.push_back(options.root + "/opt/rocm/.info/version");
  for (const std::string& path : candidates) {
    Result<std::string> text = file_system.read_file(path);
    if (!text) continue;
    // `6.4.1-120` -> 6.4
    std::string_view version = trim(*text);
    version = version.substr(0, version.find_first_of("-~+ \n"));
    Result<targets::MajorMinor> parsed =
        targets::parse_major_minor(version, "ROCm version", false, true);
    if (parsed) {
      facts.rocm_version = *parsed;
      break;
    }
    facts.notes.push_back(str_cat("amd: ", parsed.error().message, " in ", in_backticks(path)));
  }
  if (!facts.rocm_version) facts.notes.push_back("amd: no ROCm installation found");
  return facts;
}

}  // namespace wv::detect
