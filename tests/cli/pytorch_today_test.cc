// End to end on today's PyTorch world (docs/guides/pytorch.md): fixtures/example-pytorch pins
// torch to backend indexes shaped like download.pytorch.org (whl/cpu, whl/cu128, whl/rocm6.4)
// per target, over a PyPI-shaped default index whose Linux torch is the CUDA build. The wheels
// are plain (no variant labels): the target a host gets is decided by its declared hardware.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "tests/cli/cli_support.h"
#include "lock/lockfile.h"
#include "tests/support/server_process.h"

namespace {

using wv::test::ProjectCopy;
using wv::test::Run;

// Detection overrides: every vendor's facts are set or emptied, so the machine running the
// tests does not leak in.
const std::string kNoNvidia = "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= ";
const std::string kNoAmd = "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= ";
std::string nvidia(const char* driver, const char* capability) {
  return kNoAmd + "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=" + driver +
         " NV_VARIANT_PROVIDER_FORCE_SM_ARCH=" + capability + " ";
}
std::string amd(const char* gfx, const char* rocm) {
  return kNoNvidia + "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH=" + gfx +
         " AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION=" + rocm + " ";
}

wv::lock::Lockfile read_lock(const ProjectCopy& project) {
  auto lockfile = wv::lock::read_lockfile(project.lockfile(), project.dir + "/pylock.toml");
  INFO((lockfile ? std::string() : lockfile.error().message));
  REQUIRE(lockfile.has_value());
  return std::move(*lockfile);
}

struct LockedToday : ProjectCopy {
  explicit LockedToday(std::string pyproject = "") : ProjectCopy("example-pytorch", pyproject) {
    Run lock = wvlock("", "lock");
    INFO(lock.out << lock.err);
    REQUIRE(lock.status == 0);
  }
};

const wv::lock::LockedPackage& entry(const wv::lock::Lockfile& lockfile, const std::string& name,
                                     const std::string& target) {
  const wv::lock::LockedPackage* package = lockfile.find_package_for_target(*wv::pkg::parse_package_name(name), target);
  INFO(name << " for " << target);
  REQUIRE(package);
  return *package;
}

bool has_nvidia(const wv::lock::Lockfile& lockfile, const std::string& target) {
  for (const auto* package : lockfile.closure(target)) {
    if (package->name.str().rfind("nvidia-", 0) == 0) return true;
  }
  return false;
}

const std::string kFallback = "WVLOCK_ALLOW_CPU_FALLBACK=1 ";

const char* kTorchVersion =
    "import importlib.metadata as m\n"
    "print(m.version('torch'))\n";

}  // namespace

TEST_CASE("pytorch today: each target locks torch from its backend index, the rest from PyPI",
          "[cli][pytorch]") {
  LockedToday project;
  wv::lock::Lockfile lockfile = read_lock(project);
  struct Expect {
    const char* target;
    const char* torch;
    const char* index;
  };
  const Expect expected[] = {{"mac", "2.9.0", "pytorch-cpu"},
                             {"cpu", "2.9.0+cpu", "pytorch-cpu"},
                             {"a100", "2.9.0+cu128", "pytorch-cu128"},
                             {"h100", "2.9.0+cu128", "pytorch-cu128"},
                             {"mi300", "2.9.0+rocm6.4", "pytorch-rocm"}};
  const std::set<std::string> pinned = {"torch", "torchvision", "pytorch-triton-rocm"};
  for (const Expect& want : expected) {
    INFO("target " << want.target);
    const auto& torch = entry(lockfile, "torch", want.target);
    CHECK(torch.version == want.torch);
    CHECK(torch.index_name == want.index);
    CHECK(entry(lockfile, "torchvision", want.target).index_name == want.index);
    // Every package that is not pinned comes from the default index, never from a backend
    // index's older copies (they are explicit).
    for (const auto* package : lockfile.closure(want.target)) {
      INFO(package->name << " " << package->version);
      if (!pinned.count(package->name.str())) CHECK(package->index_name == "pypi");
    }
  }
  CHECK_FALSE(has_nvidia(lockfile, "cpu"));
  CHECK_FALSE(has_nvidia(lockfile, "mac"));
  CHECK_FALSE(has_nvidia(lockfile, "mi300"));
  for (const char* cuda : {"a100", "h100"}) {
    INFO(cuda);
    CHECK(has_nvidia(lockfile, cuda));
    CHECK(entry(lockfile, "nvidia-cublas-cu12", cuda).version == "12.8.4.1");
    CHECK(entry(lockfile, "triton", cuda).version == "3.5.0");
  }
  CHECK(entry(lockfile, "pytorch-triton-rocm", "mi300").index_name == "pytorch-rocm");
  CHECK(lockfile.find_package_for_target(*wv::pkg::parse_package_name("triton"), "mi300") == nullptr);
  CHECK(entry(lockfile, "numpy", "cpu").version == entry(lockfile, "numpy", "h100").version);
  // PEP 751 `index` is the index URL; the lock is fresh.
  CHECK(entry(lockfile, "torch", "h100").index == "../generated/today/whl/cu128");
  CHECK(project.wvlock("", "lock --check").status == 0);
}

TEST_CASE("pytorch today: each host gets the target its hardware fits and that torch build",
          "[cli][pytorch]") {
  LockedToday project;
  struct Host {
    const char* name;
    std::string environment;
    const char* target;
    const char* torch;
    const char* ruled_out;  ///< a target and the words of its reason ("" = none checked)
    const char* reason;
  };
  const Host hosts[] = {
      {"no GPU", kNoNvidia + kNoAmd, "cpu", "2.9.0+cpu", "h100", "no NVIDIA GPU"},
      {"H100, driver 12.8", nvidia("12.8", "9.0"), "h100", "2.9.0+cu128", "a100",
       "GPU compute capability 9.0, the target is built for 8.0"},
      // A GPU host no GPU target serves is refused unless the CPU fallback is allowed
      // (docs/targets.md §6; the refusal itself: "hosts (overrides)" below).
      {"an NVIDIA GPU with driver 12.2", kFallback + nvidia("12.2", "9.0"), "cpu", "2.9.0+cpu",
       "h100", "CUDA driver 12.2, the target needs 12.8 or newer"},
      // sm_80 code runs on 8.9 (same major, newer minor): the A100 target serves it.
      {"RTX 4090 (8.9)", nvidia("12.8", "8.9"), "a100", "2.9.0+cu128", "h100",
       "GPU compute capability 8.9, the target is built for 9.0"},
      {"MI300 (gfx942, ROCm 6.4)", amd("gfx942", "6.4"), "mi300", "2.9.0+rocm6.4", "", ""},
      {"MI250 (gfx90a)", kFallback + amd("gfx90a", "6.4"), "cpu", "2.9.0+cpu", "mi300",
       "GPU gfx90a, the target is built for gfx942"},
  };
  for (const Host& host : hosts) {
    INFO("host: " << host.name);
    Run targets = project.wvlock(host.environment, "targets");
    INFO(targets.out << targets.err);
    REQUIRE(targets.status == 0);
    std::smatch row;
    CHECK(std::regex_search(targets.out, row,
                            std::regex(std::string("\\* ") + host.target + " +\\S+ +selected")));
    if (*host.ruled_out) {
      REQUIRE(std::regex_search(targets.out, row,
                                std::regex(std::string("\n  ") + host.ruled_out + " [^\n]*")));
      CHECK(row.str().find(host.reason) != std::string::npos);
    }
    std::string venv = project.tmp.path() + "/venv";
    Run sync = project.wvlock(host.environment, "sync --venv '" + venv + "'");
    INFO(sync.out << sync.err);
    REQUIRE(sync.status == 0);
    CHECK(project.python(venv, kTorchVersion) == std::string(host.torch) + "\n");
  }
}

TEST_CASE("pytorch today: hosts (overrides): no GPU host silently gets the CPU target",
          "[cli][pytorch][fallback]") {
  LockedToday project;
  const std::string b200 = nvidia("12.8", "10.0");
  std::string venv = project.tmp.path() + "/venv";
  SECTION("a B200 (10.0, driver 12.8) is refused, naming h100 and the fixes") {
    Run sync = project.wvlock(b200, "sync --venv '" + venv + "'");
    INFO(sync.out << sync.err);
    CHECK(sync.status == 1);
    CHECK(sync.err.find("refusing to install the CPU target `cpu`") != std::string::npos);
    CHECK(std::regex_search(sync.err, std::regex("\n  h100 +linux-x86_64 +no +GPU compute "
                                                 "capability 10.0, the target is built for 9.0")));
    CHECK(sync.err.find("[[tool.wvlock.target]]\nname = \"sm100-cuda128\"") != std::string::npos);
    CHECK(sync.err.find("compute-capability = \"10.0\"") != std::string::npos);
    CHECK(sync.err.find("widen `h100`") != std::string::npos);
    CHECK(sync.err.find("compute-capability = \">=9.0\"") != std::string::npos);
    CHECK(sync.err.find("--allow-cpu-fallback") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(venv));
    Run targets = project.wvlock(b200, "targets");
    INFO(targets.out << targets.err);
    CHECK(targets.status == 1);
    CHECK(std::regex_search(targets.out, std::regex("\n  cpu +linux-x86_64 +fits ")));
    CHECK(targets.err.find("refusing to install the CPU target `cpu`") != std::string::npos);
  }
  SECTION("--allow-cpu-fallback installs the CPU target with a warning; --json says so") {
    Run sync = project.wvlock(b200, "sync --allow-cpu-fallback --venv '" + venv + "'");
    INFO(sync.out << sync.err);
    REQUIRE(sync.status == 0);
    CHECK(sync.err.find("warning: this host has NVIDIA GPUs but no GPU target of the lock "
                        "serves them: installing the CPU target `cpu`") != std::string::npos);
    CHECK(project.python(venv, kTorchVersion) == "2.9.0+cpu\n");
    Run json = project.wvlock(b200, "sync --allow-cpu-fallback --json --venv '" + venv + "'");
    INFO(json.out << json.err);
    REQUIRE(json.status == 0);
    CHECK(std::regex_search(json.out, std::regex("\"fallback\": ?true")));
    CHECK(std::regex_search(json.out, std::regex("\"fallback_reasons\": ?\\[\\s*\"a100: GPU compute "
                                                 "capability 10.0")));
    Run targets = project.wvlock(kFallback + b200, "targets --json");
    INFO(targets.out << targets.err);
    CHECK(targets.status == 0);
    CHECK(std::regex_search(targets.out, std::regex("\"fallback\": ?true")));
    CHECK(std::regex_search(targets.out, std::regex("\"selected\": ?\"cpu\"")));
  }
  SECTION("a host without a GPU gets the CPU target as before, no fallback") {
    Run json = project.wvlock(kNoNvidia + kNoAmd, "targets --json");
    INFO(json.out << json.err);
    CHECK(json.status == 0);
    CHECK(std::regex_search(json.out, std::regex("\"fallback\": ?false")));
    CHECK(json.err.find("warning") == std::string::npos);
  }
  SECTION("a T4 (7.5, driver 12.2) with backend-index torch is refused") {
    Run sync = project.wvlock(nvidia("12.2", "7.5"), "sync --venv '" + venv + "'");
    INFO(sync.out << sync.err);
    CHECK(sync.status == 1);
    CHECK(sync.err.find("refusing to install the CPU target `cpu`") != std::string::npos);
  }
  SECTION("a gfx942 host whose ROCm version cannot be found is refused") {
    Run sync = project.wvlock(kNoNvidia + "WVLOCK_OVERRIDE_GFX=gfx942 WVLOCK_OVERRIDE_ROCM= ",
                              "sync --venv '" + venv + "'");
    INFO(sync.out << sync.err);
    CHECK(sync.status == 1);
    CHECK(sync.err.find("ROCM_PATH") != std::string::npos);
  }
}

TEST_CASE("pytorch today: hosts (overrides): `cpu-fallback = true` in [tool.wvlock]",
          "[cli][pytorch][fallback]") {
  std::string pyproject = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  pyproject = std::regex_replace(pyproject, std::regex("\\[tool\\.wvlock\\]\npython = \"3.11\"\n"),
                                 "[tool.wvlock]\npython = \"3.11\"\ncpu-fallback = true\n");
  REQUIRE(pyproject.find("cpu-fallback = true") != std::string::npos);
  LockedToday project(pyproject);
  Run targets = project.wvlock(nvidia("12.8", "10.0"), "targets");
  INFO(targets.out << targets.err);
  CHECK(targets.status == 0);
  CHECK(std::regex_search(targets.out, std::regex("\\* cpu +\\S+ +selected")));
  CHECK(targets.err.find("warning: this host has NVIDIA GPUs") != std::string::npos);
}

TEST_CASE("pytorch today: hosts (overrides): `compute-capability = \">=9.0\"` serves a B200",
          "[cli][pytorch][range]") {
  std::string pyproject = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  pyproject = std::regex_replace(pyproject, std::regex("compute-capability = \"9.0\""),
                                 "compute-capability = \">=9.0\"");
  LockedToday project(pyproject);
  wv::lock::Lockfile lockfile = read_lock(project);
  CHECK(lockfile.find_target("h100")->declared.profile.compute_capability_from.known());
  // The lock-time providers see the range's lowest capability.
  const auto& sm = lockfile.find_target("h100")->provider_output.at("nvidia").at("sm_arch");
  CHECK(sm.front() == "90_real");
  std::string venv = project.tmp.path() + "/venv";
  Run sync = project.wvlock(nvidia("12.8", "10.0"), "sync --venv '" + venv + "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.err.find("warning") == std::string::npos);
  CHECK(project.python(venv, kTorchVersion) == "2.9.0+cu128\n");
  Run targets = project.wvlock(nvidia("12.8", "10.0"), "targets");
  CHECK(std::regex_search(targets.out, std::regex("\\* h100 +\\S+ +selected")));
}

TEST_CASE("pytorch today: a host no GPU-only target fits is refused, naming each target",
          "[cli][pytorch]") {
  std::string pyproject = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  // Drop the mac and cpu targets and their pins.
  pyproject = std::regex_replace(pyproject, std::regex("\"cpu\", \"mac\""), "\"a100\"");
  pyproject = std::regex_replace(
      pyproject, std::regex("\\{ index = \"pytorch-cpu\", targets = \\[\"a100\"\\] \\},\n"), "");
  pyproject = std::regex_replace(
      pyproject,
      std::regex("\\[\\[tool\\.wvlock\\.target\\]\\]\nname = \"(mac|cpu)\"\n[^\\[]*"), "");
  LockedToday project(pyproject);
  REQUIRE(read_lock(project).targets.size() == 3);
  std::string venv = project.tmp.path() + "/venv";
  Run sync = project.wvlock(kNoNvidia + kNoAmd, "sync --venv '" + venv + "'");
  INFO(sync.out << sync.err);
  CHECK(sync.status == 1);
  CHECK(sync.err.find("no target of the lock fits this host") != std::string::npos);
  for (const char* row : {"\n  a100 +linux-x86_64 +no +no NVIDIA GPU, the target declares one\n",
                          "\n  h100 +linux-x86_64 +no +no NVIDIA GPU, the target declares one\n",
                          "\n  mi300 +linux-x86_64 +no +no AMD GPU, the target declares one\n"}) {
    CHECK(std::regex_search(sync.err, std::regex(row)));
  }
  CHECK_FALSE(std::filesystem::exists(venv + "/lib"));
  // --target still forces one (verified: it does not fit, so it is refused too).
  Run forced = project.wvlock(kNoNvidia + kNoAmd, "sync --target h100 --venv '" + venv + "'");
  CHECK(forced.status == 1);
  CHECK(forced.err.find("target `h100` does not fit this host") != std::string::npos);
}

TEST_CASE("pytorch today: the same project locks over loopback HTTP", "[cli][pytorch]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/net/fault_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem/today", "--chaos",
                                  "0", "--chaos-rate", "0"});
  REQUIRE(server.ok());
  std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  std::string pyproject = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  pyproject = std::regex_replace(pyproject, std::regex("\"\\.\\./generated/today"), "\"" + base);
  ProjectCopy project("example-pytorch", pyproject);
  Run lock = project.wvlock("", "--cache-dir '" + project.tmp.path() + "/cache' lock");
  INFO(lock.out << lock.err);
  REQUIRE(lock.status == 0);
  wv::lock::Lockfile lockfile = read_lock(project);
  const auto& torch = entry(lockfile, "torch", "h100");
  CHECK(torch.version == "2.9.0+cu128");
  CHECK(torch.index == base + "/whl/cu128");
  REQUIRE_FALSE(torch.wheels.empty());
  // The backend index links its files as `../torch-2.9.0%2Bcu128-...whl`: resolved against
  // the page, as download.pytorch.org does.
  CHECK(torch.wheels.front().url.rfind(base + "/whl/", 0) == 0);
  CHECK(entry(lockfile, "torch", "cpu").version == "2.9.0+cpu");
  CHECK(entry(lockfile, "numpy", "cpu").index_name == "pypi");
  std::string venv = project.tmp.path() + "/venv";
  Run sync = project.wvlock(nvidia("12.8", "9.0"),
                            "--cache-dir '" + project.tmp.path() + "/cache' sync --venv '" + venv + "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(project.python(venv, kTorchVersion) == "2.9.0+cu128\n");
}

TEST_CASE("pytorch today: bad sources are exit 2 with file:line:col, and nothing is written",
          "[cli][pytorch]") {
  const std::string original = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  struct Case {
    const char* what;
    std::regex from;
    std::string to;
    const char* words;
  };
  const Case cases[] = {
      {"an undeclared index", std::regex("index = \"pytorch-rocm\", targets = \\[\"mi300\"\\] \\},"),
       "index = \"pytorch-rocm7\", targets = [\"mi300\"] },", "pytorch-rocm7"},
      {"an undeclared target", std::regex("targets = \\[\"a100\", \"h100\"\\] \\},\n  \\{ index = \"pytorch-rocm\""),
       "targets = [\"a100\", \"b200\"] },\n  { index = \"pytorch-rocm\"", "b200"},
      {"two indexes with one name", std::regex("name = \"pytorch-cu128\""), "name = \"pytorch-cpu\"",
       "pytorch-cpu"},
      {"an empty target list", std::regex("targets = \\[\"mi300\"\\] \\}\\]"), "targets = [] }]",
       "targets"},
      {"two entries for one target", std::regex("targets = \\[\"a100\", \"h100\"\\]"),
       "targets = [\"a100\", \"cpu\"]", "cpu"},
  };
  for (const Case& bad : cases) {
    INFO(bad.what);
    std::string text = std::regex_replace(original, bad.from, bad.to,
                                          std::regex_constants::format_first_only);
    REQUIRE(text != original);
    ProjectCopy project("example-pytorch", text);
    Run lock = project.wvlock("", "lock");
    INFO(lock.err);
    CHECK(lock.status == 2);
    CHECK(std::regex_search(lock.err, std::regex("pyproject\\.toml`?:[0-9]+:[0-9]+:")));
    CHECK(lock.err.find(bad.words) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(project.dir + "/pylock.toml"));
  }
}

TEST_CASE("pytorch today: a dependency only an explicit index has gets the pin that fixes it",
          "[cli][pytorch]") {
  std::string pyproject = wv::test::slurp(WV_FIXTURES_DIR "/example-pytorch/pyproject.toml");
  pyproject = std::regex_replace(pyproject, std::regex("\npytorch-triton-rocm = [^\n]*"), "");
  SECTION("one target") {
    ProjectCopy project("example-pytorch", pyproject);
    Run lock = project.wvlock("", "lock");
    INFO(lock.err);
    CHECK(lock.status == 1);
    CHECK(lock.err.find("no resolution for target `mi300`") != std::string::npos);
    CHECK(lock.err.find("no package source has a project named `pytorch-triton-rocm`") !=
          std::string::npos);
    CHECK(lock.err.find("note: pytorch-triton-rocm is on index `pytorch-rocm`, which target "
                        "`mi300` does not ask for it; pin it with `pytorch-triton-rocm = { index = "
                        "\"pytorch-rocm\", targets = [\"mi300\"] }`") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(project.dir + "/pylock.toml"));
  }
  SECTION("two targets: one entry naming both, valid TOML when pasted") {
    // A second ROCm target that needs the same pin: the hint is one key, not one per target.
    pyproject = std::regex_replace(pyproject, std::regex("targets = \\[\"mi300\"\\]"),
                                   "targets = [\"mi300\", \"mi250\"]");
    pyproject += "\n[[tool.wvlock.target]]\nname = \"mi250\"\nplatform = \"linux-x86_64\"\n"
                 "glibc = \"2.28\"\namd = { rocm = \"6.4\", gfx = [\"gfx90a\"] }\n";
    ProjectCopy project("example-pytorch", pyproject);
    Run lock = project.wvlock("", "lock");
    INFO(lock.err);
    CHECK(lock.status == 1);
    const std::string entry =
        "pytorch-triton-rocm = { index = \"pytorch-rocm\", targets = [\"mi300\", \"mi250\"] }";
    CHECK(lock.err.find("which targets `mi300`, `mi250` do not ask for it; pin it with `" + entry +
                        "`") != std::string::npos);
    // Printed once: following it literally writes the key once.
    CHECK(lock.err.find("pytorch-triton-rocm = {") == lock.err.rfind("pytorch-triton-rocm = {"));
  }
}
