// The sync bench of the fault tests: the example project locked against the chaos server, a venv,
// and the two reference states it is synced between (a CPU box and an H100) with their tree
// digests. Header-only: the fault test files include it.
#pragma once

#include <catch2/catch.hpp>

#include "tests/fault/fault_harness.h"
#include "src/install/environment.h"
#include "src/install/sync_state.h"
#include "tests/support/temp_dir.h"

namespace wv::fault {

// Hosts by detection overrides (as tests/cli/sync_command_test.cc): a CPU box and an H100.
const std::vector<std::string> kCpu = {"WVLOCK_OVERRIDE_CUDA_DRIVER=", "WVLOCK_OVERRIDE_CUDA_ARCH=",
                                       "WVLOCK_OVERRIDE_ROCM=", "WVLOCK_OVERRIDE_GFX="};
const std::vector<std::string> kH100 = {"WVLOCK_OVERRIDE_ROCM=", "WVLOCK_OVERRIDE_GFX=",
                                        "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8",
                                        "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=9.0"};

struct State {
  const char* name;
  const std::vector<std::string>* host;
  const char* torch_variant;  ///< what `torch.__variant__` prints
  TreeDigest digest;
};

struct SyncBench {
  wv::test::TempDir tmp;
  std::string project, venv, clean_cache;
  ChaosServer server;
  State states[2] = {{"cpu", &kCpu, "null", {}}, {"h100", &kH100, "cuda12.8", {}}};

  SyncBench() : server(ecosystem_dir(), 2.0) {
    REQUIRE(!ecosystem_dir().empty());
    REQUIRE(server.ok());
    project = tmp.path() + "/project";
    venv = tmp.path() + "/venv";
    clean_cache = tmp.path() + "/cache-clean";
    write_example_project(project, server.base() + "/simple");
    REQUIRE(server.reseed("reference", 0));
    Child lock = run_child({WVLOCK_BINARY, "-q", "--project", project, "--cache-dir", clean_cache, "lock"},
                           {}, tmp.path(), std::chrono::seconds(120));
    INFO(lock.err);
    REQUIRE(lock.exit_code == 0);
    // The two reference states, and back: a clean round trip gives the same tree.
    for (int target : {0, 1, 0}) {
      Child run = sync(target, clean_cache, false);
      INFO(run.out << run.err);
      REQUIRE(run.exit_code == 0);
      TreeDigest now = digest_tree(venv);
      if (states[target].digest.digest.empty()) states[target].digest = now;
      INFO(listing_diff(states[target].digest, now));
      REQUIRE(now == states[target].digest);
    }
    REQUIRE_FALSE(states[0].digest == states[1].digest);
  }

  Child sync(int target, const std::string& cache, bool offline, const KillPlan& plan = {},
             std::optional<std::uint64_t> max_file_bytes = std::nullopt) {
    std::vector<std::string> argv = {WVLOCK_BINARY, "-q", "--project", project, "--cache-dir", cache};
    if (offline) argv.push_back("--offline");
    for (const char* item : {"sync", "--venv"}) argv.push_back(item);
    argv.push_back(venv);
    std::vector<std::string> environment = *states[target].host;
    environment.push_back("WVLOCK_HTTP_TIMEOUT=1");
    return run_child(argv, environment, tmp.path(), std::chrono::seconds(120), plan, max_file_bytes);
  }

  /// Which reference state the environment is in: 0, 1, or -1 (neither).
  int state_now(TreeDigest* digest = nullptr) const {
    TreeDigest now = digest_tree(venv);
    if (digest) *digest = now;
    for (int i : {0, 1}) {
      if (now == states[i].digest) return i;
    }
    return -1;
  }

  bool leftovers() const {
    std::error_code ec;
    for (fs::directory_iterator it(venv, ec), end; !ec && it != end; it.increment(ec)) {
      std::string leaf = it->path().filename().string();
      // The sync lock, the interpreter's facts and the no-op state record stay by design;
      // staging, trash and journal must not.
      if (leaf.rfind(".wvlock", 0) == 0 && leaf != wv::install::kLockName &&
          leaf != wv::install::kFactsCacheName && leaf != wv::install::kStateName) {
        return true;
      }
    }
    return false;
  }

  /// The environment's Python imports torch and reports the state's build.
  bool imports(int state, std::string* said) const {
    Child run = run_child({venv + "/bin/python", "-c", "import torch; print(torch.__variant__)"}, {},
                          tmp.path(), std::chrono::seconds(30));
    *said = run.out + run.err;
    return run.exit_code == 0 && std::string(wv::trim(run.out)) == states[state].torch_variant;
  }
};

}  // namespace wv::fault
