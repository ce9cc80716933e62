// The workspace the CLI's workspace tests share: a virtual root with three members (core,
// trainer, service) over the generated fixture index, setuptools from Debian's wheels.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/cli/cli_support.h"

namespace wv::test {

inline std::string member_pyproject(const std::string& name, const std::string& deps,
                             const std::string& more = "") {
  return "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n"
         "[project]\nname = \"" + name + "\"\nversion = \"0.1.0\"\ndependencies = [" + deps + "]\n" + more;
}

// <tmp>/ws the root, <tmp>/ws/packages/{core,trainer,service}, <tmp>/wheels the build backend,
// <tmp>/generated the fixture index.
struct WorkspaceTree {
  TempDir tmp;
  std::string root = tmp.path() + "/ws";

  explicit WorkspaceTree(const std::string& workspace_table =
                             "[tool.wvlock.workspace]\nmembers = [\"packages/*\"]\n") {
    const char* build = std::getenv("WV_BUILD_DIR");
    REQUIRE(build);
    std::filesystem::create_directories(root);
    std::filesystem::create_directory_symlink(std::string(build) + "/fixtures/ecosystem", tmp.path() + "/generated");
    std::filesystem::create_directories(tmp.path() + "/wheels");
    for (const auto& entry : std::filesystem::directory_iterator("/usr/share/python-wheels")) {
      const std::string leaf = entry.path().filename().string();
      if (leaf.rfind("setuptools-", 0) == 0 || leaf.rfind("wheel-", 0) == 0) {
        std::filesystem::copy_file(entry.path(), tmp.path() + "/wheels/" + leaf);
      }
    }
    const std::string python = test_python_minor();
    write_text(root + "/pyproject.toml",
               workspace_table +
                   "[tool.wvlock]\npython = \"" + python + "\"\nfind-links = [\"../wheels\"]\n"
                   "index-url = \"../generated/simple\"\n\n"
                   "[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n\n"
                   "[[tool.wvlock.target]]\nname = \"h100\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
                   "nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }\nextras = [\"cuda\"]\n");
    member("core", "\"numpy>=2\"");
    member("trainer", "\"core\", \"torch>=2.8\"",
           "[project.optional-dependencies]\ncuda = [\"flash-attn>=2.7 ; sys_platform == 'linux'\"]\n"
           "[tool.wvlock.sources]\ncore = { workspace = true }\n");
    member("service", "\"core\", \"requests>=2.32\"", "[tool.uv.sources]\ncore = { workspace = true }\n");
  }
  void member(const std::string& name, const std::string& deps, const std::string& more = "") const {
    write_text(root + "/packages/" + name + "/pyproject.toml", member_pyproject(name, deps, more));
    write_text(root + "/packages/" + name + "/src/" + name + "/__init__.py", "VALUE = '" + name + " 1'\n");
  }
  Run wvlock(const std::string& arguments, const std::string& dir = "") const {
    return shell(dir.empty() ? root : dir,
                 kNoGpu + "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY
                                    "' --cache-dir '" + tmp.path() + "/cache' " + arguments);
  }
  Run python(const std::string& code) const {
    return shell(root, ".venv/bin/python -c \"" + code + "\"");
  }
};

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }


}  // namespace wv::test
