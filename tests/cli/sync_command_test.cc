// End to end on the fixture ecosystem: lock the example once, then `wvlock sync` as different
// hosts (detection overrides) into real venvs, and check what Python imports.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;

using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

// No GPU unless a host sets one: detection on a CI machine must not leak in.
using wv::test::kNoGpu;
const std::string kH100 = "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= "
                          "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "
                          "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=9.0 ";

// The example locked once per test run, in <tmp>/example with <tmp>/generated beside it.
struct LockedExample : wv::test::ProjectCopy {
  LockedExample() : ProjectCopy("example") {
    Run lock = wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
  }
  // A digest of every file under `venv` (path and content), to prove it did not change.
  std::string digest(const std::string& venv) const {
    Run run = shell(dir, "(cd '" + venv + "' && find . -type f -not -name '*.pyc' | LC_ALL=C sort "
                         "| xargs sha256sum | sha256sum)");
    return run.out;
  }
};

const char* kVariants =
    "import importlib\n"
    "for name in ('torch', 'flash_attn', 'numpy'):\n"
    "    try:\n"
    "        print(name, importlib.import_module(name).__variant__)\n"
    "    except ImportError:\n"
    "        print(name, 'absent')\n";

}  // namespace

TEST_CASE("cli sync: each host gets its target and the build that fits it", "[cli][sync]") {
  LockedExample example;
  struct Host {
    const char* name;
    std::string environment;
    const char* target;
    const char* torch;
    const char* flash_attn;
  };
  const Host hosts[] = {
      {"H100", kH100, "h100", "cuda12.8", "cu12_sm90"},
      {"A100-like SM 8.6", "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= "
                           "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "
                           "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=8.6 ",
       "a100", "cuda12.8", "cu12_sm80"},
      // A GPU no target names: the best kept CUDA builds that run on it (a100 keeps sm_80).
      {"SM 8.9", "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= "
                 "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "
                 "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=8.9 ",
       "a100", "cuda12.8", "cu12_sm80"},
      {"MI300", "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= "
                "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH=gfx942 "
                "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION=6.4 ",
       "mi300", "rocm6.4", "absent"},
      {"no GPU", kNoGpu, "cpu", "null", "absent"},
  };
  for (const Host& host : hosts) {
    SECTION(host.name) {
      std::string venv = example.tmp.path() + "/venv";
      Run sync = example.wvlock(host.environment, "sync --venv '" + venv + "'");
      INFO(host.name << "\n" << sync.out << sync.err);
      REQUIRE(sync.status == 0);
      CHECK(sync.out.find(std::string("to target ") + host.target) != std::string::npos);
      std::string variants = example.python(venv, kVariants);
      CHECK(variants.find(std::string("torch ") + host.torch + "\n") != std::string::npos);
      CHECK(variants.find(std::string("flash_attn ") + host.flash_attn + "\n") != std::string::npos);
    }
  }
}

TEST_CASE("cli sync: a T4 that no declaration names gets the variant build that runs on it",
          "[cli][sync][variants]") {
  // The example's variant ecosystem with targets b200 (10.0, driver 13.0), h100 (9.0, 12.8)
  // and an A10-class a10 (8.6, 12.4), no flash-attn: every GPU build is a variant wheel, so the
  // wheels judge the T4 (7.5, driver 12.2) themselves (docs/targets.md §6).
  std::string pyproject = slurp(WV_FIXTURES_DIR "/example/pyproject.toml");
  pyproject = pyproject.substr(0, pyproject.find("[[tool.wvlock.target]]"));
  for (const char* target : {"cpu", "b200", "h100", "a10"}) {
    pyproject += std::string("[[tool.wvlock.target]]\nname = \"") + target +
                 "\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
    if (std::string(target) == "b200") pyproject += "nvidia = { cuda-driver = \"13.0\", compute-capability = \"10.0\" }\n";
    if (std::string(target) == "h100") pyproject += "nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }\n";
    if (std::string(target) == "a10") pyproject += "nvidia = { cuda-driver = \"12.4\", compute-capability = \"8.6\" }\n";
  }
  wv::test::ProjectCopy project("example", pyproject);
  Run lock = project.wvlock("", "lock");
  INFO(lock.out << lock.err);
  REQUIRE(lock.status == 0);
  const std::string t4 = "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= "
                         "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.2 "
                         "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=7.5 ";
  Run targets = project.wvlock(t4, "targets");
  INFO(targets.out << targets.err);
  CHECK(targets.status == 0);
  CHECK(targets.out.find("its variant wheels fit this GPU (declared: GPU compute capability 7.5")
        != std::string::npos);
  std::string venv = project.tmp.path() + "/venv";
  Run sync = project.wvlock(t4, "sync --venv '" + venv + "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.out.find("to target h100") != std::string::npos);
  // torch 2.9.0's cuda12.8 build lists 75_real and a 12.0 driver floor.
  CHECK(project.python(venv, kVariants).find("torch cuda12.8\n") != std::string::npos);
}

TEST_CASE("cli sync: a ROCm 6.2 host is refused, or falls back to cpu when allowed, saying why "
          "mi300 does not fit", "[cli][sync]") {
  LockedExample example;
  std::string environment = "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= "
                            "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH=gfx942 "
                            "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION=6.2 ";
  // A GPU host is never silently given the CPU target (docs/targets.md §6).
  Run refused = example.wvlock(environment, "targets");
  INFO(refused.out << refused.err);
  CHECK(refused.status == 1);
  CHECK(refused.err.find("refusing to install the CPU target `cpu`") != std::string::npos);
  Run targets = example.wvlock("WVLOCK_ALLOW_CPU_FALLBACK=1 " + environment, "targets");
  INFO(targets.out << targets.err);
  CHECK(targets.status == 0);
  std::smatch row;
  REQUIRE(std::regex_search(targets.out, row, std::regex("\\* cpu .*selected")));
  REQUIRE(std::regex_search(targets.out, row, std::regex("  mi300 [^\n]*")));
  // mi300's ROCm builds are variant wheels: the first that does not run here says why.
  CHECK(row.str().find("ROCm 6.2") != std::string::npos);
}

TEST_CASE("cli sync: the environment holds exactly the target's closure; re-sync upgrades and "
          "removes, and a second sync does nothing", "[cli][sync]") {
  LockedExample example;
  std::string venv = example.tmp.path() + "/venv";
  REQUIRE(example.wvlock(kNoGpu, "sync --venv '" + venv + "'").status == 0);
  const char* listing =
      "import importlib.metadata as m\n"
      "print('\\n'.join(sorted(d.metadata['Name'].lower().replace('_', '-') + '==' + d.version "
      "for d in m.distributions())))\n";
  std::string cpu = example.python(venv, listing);
  // the locked closure of cpu with the default group (dev): the export lists exactly it
  Run exported = example.wvlock("", "export --target cpu --format requirements --group dev");
  REQUIRE(exported.status == 0);
  std::vector<std::string> locked;
  const std::regex requirement("\n([a-z0-9-]+==[^ \n]+)");
  for (std::sregex_iterator it(exported.out.begin(), exported.out.end(), requirement), end;
       it != end; ++it) {
    locked.push_back((*it)[1]);
  }
  std::sort(locked.begin(), locked.end());
  std::string expected;
  for (const std::string& line : locked) expected += line + "\n";
  CHECK(cpu == expected);
  CHECK(cpu.find("nvidia-") == std::string::npos);

  Run to_h100 = example.wvlock(kH100, "sync --venv '" + venv + "'");
  INFO(to_h100.out << to_h100.err);
  REQUIRE(to_h100.status == 0);
  CHECK(to_h100.out.find("~ torch") != std::string::npos);
  CHECK(to_h100.out.find("+ nvidia-cublas-cu12") != std::string::npos);
  Run again = example.wvlock(kH100, "sync --venv '" + venv + "'");
  REQUIRE(again.status == 0);
  CHECK(again.out.find("packages: 0 installed, 0 upgraded, 0 downgraded, 0 reinstalled, 0 removed, ") !=
        std::string::npos);
  Run back = example.wvlock(kNoGpu, "sync --venv '" + venv + "'");
  REQUIRE(back.status == 0);
  CHECK(back.out.find("- nvidia-cublas-cu12") != std::string::npos);
  CHECK(example.python(venv, listing) == cpu);
}

TEST_CASE("cli sync: bad input is a clear error and leaves the environment unchanged",
          "[cli][sync]") {
  LockedExample example;
  std::string venv = example.tmp.path() + "/venv";
  REQUIRE(example.wvlock(kNoGpu, "sync --venv '" + venv + "'").status == 0);
  std::string before = example.digest(venv);

  SECTION("a stale lock") {
    std::string pyproject = slurp(example.dir + "/pyproject.toml");
    std::ofstream(example.dir + "/pyproject.toml")
        << std::regex_replace(pyproject, std::regex("\"numpy>=2\""), "\"numpy>=2.1\"");
    Run stale = example.wvlock(kH100, "sync --locked --venv '" + venv + "'");
    CHECK(stale.status == 1);
    CHECK(stale.err.find("stale") != std::string::npos);
  }
  SECTION("a lock from a newer major version") {
    std::string lock = slurp(example.dir + "/pylock.toml");
    std::ofstream(example.dir + "/pylock.toml")
        << std::regex_replace(lock, std::regex("lock-version = \"1.0\""), "lock-version = \"2.0\"");
    Run newer = example.wvlock(kH100, "sync --venv '" + venv + "'");
    CHECK(newer.status == 1);
    CHECK(newer.err.find("lock-version") != std::string::npos);
  }
  SECTION("a missing lock") {
    fs::remove(example.dir + "/pylock.toml");
    Run missing = example.wvlock(kH100, "sync --locked --venv '" + venv + "'");
    CHECK(missing.status != 0);
    CHECK(missing.err.find("wvlock lock") != std::string::npos);
  }
  SECTION("a tampered wheel") {
    // Point the lock at a copy of the index whose torch CUDA wheel has one byte changed.
    fs::path generated = fs::read_symlink(example.tmp.path() + "/generated");
    fs::remove(example.tmp.path() + "/generated");
    fs::copy(generated, example.tmp.path() + "/generated", fs::copy_options::recursive);
    std::string wheel = example.tmp.path() +
        "/generated/simple/torch/torch-2.9.0-cp311-cp311-manylinux_2_28_x86_64-cuda12.8.whl";
    REQUIRE(fs::exists(wheel));
    std::string bytes = slurp(wheel);
    bytes[bytes.size() / 2] ^= 0x20;
    fs::remove(wheel);
    std::ofstream(wheel, std::ios::binary) << bytes;
    // An empty cache: the earlier syncs' verified extraction of the real wheel would serve
    // the locked bytes without reading the tampered file at all.
    Run tampered = example.wvlock(
        "WVLOCK_CACHE_DIR='" + example.tmp.path() + "/fresh-cache' " + kH100,
        "sync --venv '" + venv + "'");
    CHECK(tampered.status != 0);
    CHECK(tampered.err.find("sha256") != std::string::npos);
    // Said once (it was printed twice).
    const std::size_t first = tampered.err.find("error: ");
    REQUIRE(first != std::string::npos);
    CHECK(tampered.err.find("error: ", first + 1) == std::string::npos);
  }
  CHECK(example.digest(venv) == before);
}
