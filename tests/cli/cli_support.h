// What the CLI tests share: running the built wvlock binary in a project folder, and a copy of
// a fixture project in a temporary folder with `generated` beside it linking to the build's
// fixture ecosystem, so paths in the lockfile read as in the real project.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace wv::test {

struct Run {
  int status = 0;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Environment assignments that make the host GPU-less whatever the machine has (empty
/// overrides make a fact absent: docs/targets.md, "Overrides").
inline const std::string kNoGpu = "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= "
                                  "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= ";

/// Writes `text` to `path`, making the folders above it.
inline void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

/// Runs `command` with sh in `dir`; stdout and stderr are captured, in files named for this
/// process and call, so tests running at once in one folder (`/`) never read each other's.
inline Run shell(const std::string& dir, const std::string& command) {
  static std::atomic<unsigned> calls{0};
  const std::string stem = dir + "/.run-" + std::to_string(::getpid()) + "-" + std::to_string(calls++);
  std::string full = "cd '" + dir + "' && " + command + " > '" + stem + ".out' 2> '" + stem + ".err'";
  int status = std::system(full.c_str());
  Run run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(stem + ".out"), slurp(stem + ".err")};
  std::remove((stem + ".out").c_str());
  std::remove((stem + ".err").c_str());
  return run;
}

/// `M.m` of the test interpreter (WV_TEST_PYTHON), asked once per process.
inline std::string test_python_minor() {
  static const std::string minor = [] {
    Run run = shell("/", "'" WV_TEST_PYTHON "' -c \"import sys; print('%d.%d' % sys.version_info[:2])\"");
    return run.out.substr(0, run.out.find('\n'));
  }();
  return minor;
}

/// <tmp>/<name>/pyproject.toml: fixtures/<name>/pyproject.toml, or `pyproject` when given.
struct ProjectCopy {
  TempDir tmp;
  std::string dir;

  explicit ProjectCopy(const std::string& name, std::string pyproject = "") {
    dir = tmp.path() + "/" + name;
    std::filesystem::create_directories(dir);
    const char* build = std::getenv("WV_BUILD_DIR");
    REQUIRE(build);
    std::filesystem::create_directory_symlink(std::string(build) + "/fixtures/ecosystem",
                                              tmp.path() + "/generated");
    if (pyproject.empty()) pyproject = slurp(std::string(WV_FIXTURES_DIR "/") + name + "/pyproject.toml");
    std::ofstream(dir + "/pyproject.toml") << pyproject;
  }

  /// wvlock `arguments` in the project folder, with `environment` ("NAME=VALUE ...") added.
  /// The cache is the copy's own (`tmp/cache`): what one test downloads or unpacks never
  /// serves another; `environment` may name another WVLOCK_CACHE_DIR.
  Run wvlock(const std::string& environment, const std::string& arguments) const {
    return shell(dir, "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' " + environment + " '"
                      WVLOCK_BINARY "' " + arguments);
  }
  std::string lockfile() const { return slurp(dir + "/pylock.toml"); }

  /// What the environment's Python prints for `code`.
  std::string python(const std::string& venv, const std::string& code) const {
    std::ofstream(dir + "/probe.py") << code;
    Run run = shell(dir, "'" + venv + "/bin/python' probe.py");
    INFO(run.err);
    CHECK(run.status == 0);
    return run.out;
  }
};

}  // namespace wv::test
