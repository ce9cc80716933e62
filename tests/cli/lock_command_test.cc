#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "base/file_system.h"
#include "lock/lockfile.h"
#include "cli/cli_support.h"

namespace {

namespace fs = std::filesystem;

using wv::test::Run;
using wv::test::slurp;

// Runs wvlock with `arguments` in `dir`, with `environment` ("NAME=VALUE ...") added.
Run wvlock(const std::string& dir, const std::string& arguments,
           const std::string& environment = "") {
  return wv::test::shell(dir, environment + " '" WVLOCK_BINARY "' " + arguments);
}

// <tmp>/example/pyproject.toml: the bundled example, or `pyproject` when given.
struct Example : wv::test::ProjectCopy {
  explicit Example(std::string pyproject = "") : ProjectCopy("example", std::move(pyproject)) {}
};

const wv::lock::LockedPackage& entry(const wv::lock::Lockfile& lockfile, const char* name,
                                     const char* target) {
  const wv::lock::LockedPackage* package = lockfile.find_package_for_target(name, target);
  INFO(name << " for " << target);
  REQUIRE(package);
  return *package;
}

std::string first_wheel(const wv::lock::Lockfile& lockfile, const char* name, const char* target) {
  return entry(lockfile, name, target).targets.at(target).wheels.front();
}

bool uses(const wv::lock::Lockfile& lockfile, const char* name, const char* target) {
  return lockfile.find_package_for_target(name, target) != nullptr;
}

}  // namespace

TEST_CASE("cli lock: the example's five targets get the builds that fit them", "[cli][lock]") {
  Example example;
  Run run = wvlock(example.dir, "lock");
  INFO(run.err);
  REQUIRE(run.status == 0);
  auto lockfile = wv::lock::read_lockfile(example.lockfile(), "pylock.toml");
  REQUIRE(lockfile);
  const auto& lock = *lockfile;
  // mac: macOS wheels, no CUDA
  CHECK(first_wheel(lock, "torch", "mac").find("macosx") != std::string::npos);
  CHECK_FALSE(uses(lock, "nvidia-cublas-cu12", "mac"));
  // cpu: the null torch, no nvidia packages, no flash-attn
  CHECK(first_wheel(lock, "torch", "cpu").find("-null.whl") != std::string::npos);
  for (const auto* package : lock.closure("cpu")) CHECK(package->name.rfind("nvidia-", 0) != 0);
  CHECK_FALSE(uses(lock, "flash-attn", "cpu"));
  // a100: a CUDA torch and flash-attn's sm_80 build
  CHECK(first_wheel(lock, "torch", "a100").find("-cuda12") != std::string::npos);
  CHECK(first_wheel(lock, "flash-attn", "a100").find("sm80") != std::string::npos);
  // h100: the best CUDA torch for driver 12.8 and flash-attn's sm_90 build
  CHECK(first_wheel(lock, "torch", "h100").find("-cuda12.8.whl") != std::string::npos);
  CHECK(first_wheel(lock, "flash-attn", "h100").find("sm90") != std::string::npos);
  CHECK(uses(lock, "nvidia-cublas-cu12", "h100"));
  // mi300: the ROCm 6.4 build and its triton
  CHECK(first_wheel(lock, "torch", "mi300").find("-rocm6.4.whl") != std::string::npos);
  CHECK(uses(lock, "pytorch-triton-rocm", "mi300"));
  CHECK_FALSE(uses(lock, "pytorch-triton-rocm", "h100"));
  // the summary names the builds
  CHECK(run.err.find("h100:") != std::string::npos);
}

TEST_CASE("cli lock: byte-stable, a no-op re-lock, and --check notices a stale lock",
          "[cli][lock]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  std::string first = example.lockfile();
  Run again = wvlock(example.dir, "lock");
  REQUIRE(again.status == 0);
  CHECK(again.err.find("unchanged") != std::string::npos);
  CHECK(example.lockfile() == first);
  // a fresh lock in another folder gives the same bytes
  Example other;
  REQUIRE(wvlock(other.dir, "lock").status == 0);
  CHECK(other.lockfile() == first);
  CHECK(wvlock(example.dir, "lock --check").status == 0);
  CHECK(wvlock(example.dir, "check").status == 0);
  // the project changes: --check fails and says so, and the lockfile is untouched
  std::string pyproject = slurp(example.dir + "/pyproject.toml");
  std::string changed = std::regex_replace(pyproject, std::regex("\"numpy>=2\""), "\"numpy>=2.2\"");
  REQUIRE(changed != pyproject);
  std::ofstream(example.dir + "/pyproject.toml") << changed;
  Run stale = wvlock(example.dir, "lock --check");
  CHECK(stale.status == 1);
  CHECK(stale.err.find("stale") != std::string::npos);
  CHECK(wvlock(example.dir, "check").status == 1);
  CHECK(example.lockfile() == first);
}

TEST_CASE("cli lock: the example lockfile matches the golden file (hashes masked)",
          "[cli][lock]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  // Wheel bytes depend on the zlib that wrote them: compare everything but hashes and sizes.
  std::string masked = std::regex_replace(example.lockfile(), std::regex("sha256 = \"[0-9a-f]{64}\""),
                                          "sha256 = \"-\"");
  masked = std::regex_replace(masked, std::regex("size = [0-9]+"), "size = 0");
  std::string golden_path = WV_SOURCE_DIR "/tests/cli/golden/example.pylock.toml";
  if (std::getenv("WV_UPDATE_GOLDEN")) std::ofstream(golden_path) << masked;
  std::string golden = slurp(golden_path);
  REQUIRE_FALSE(golden.empty());
  CHECK(masked == golden);
}

TEST_CASE("cli lock: PEP 751 validity checked by Python's tomllib", "[cli][lock]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  std::ofstream(example.dir + "/check.py") << R"(import sys, tomllib
d = tomllib.load(open("pylock.toml", "rb"))
assert d["lock-version"] == "1.0" and d["created-by"] == "wvlock", d
names = [(p["name"], p["version"]) for p in d["packages"]]
assert names == sorted(names), "packages are sorted"
for p in d["packages"]:
    assert p.get("wheels") or p.get("sdist"), p["name"]
    for w in p.get("wheels", []):
        assert ("url" in w) != ("path" in w)
        assert len(w["hashes"]["sha256"]) == 64
        assert w["name"].endswith(".whl")
print("ok", len(d["packages"]))
)";
  int status = std::system(("cd '" + example.dir + "' && " WV_TEST_PYTHON " check.py > .py 2>&1").c_str());
  INFO(slurp(example.dir + "/.py"));
  CHECK(status == 0);
}

TEST_CASE("cli lock: a target that no wheel fits locks the sdist to build",
          "[cli][lock]") {
  std::string pyproject = slurp(WV_FIXTURES_DIR "/example/pyproject.toml");
  // ask the cpu target for the CUDA-only extra: flash-attn has CUDA wheels and an sdist
  std::string broken = std::regex_replace(
      pyproject, std::regex("name = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\""),
      "name = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\nextras = [\"cuda\"]");
  REQUIRE(broken != pyproject);
  Example example(broken);
  Run run = wvlock(example.dir, "lock");
  INFO(run.err);
  REQUIRE(run.status == 0);
  // uv's rule: no fitting wheel, so the cpu target builds flash-attn from its sdist (static
  // PKG-INFO metadata), and the lock says so with an empty wheel list.
  const std::string lock = example.lockfile();
  CHECK(lock.find("sdist = { name = \"flash_attn-") != std::string::npos);
  const std::size_t flash = lock.find("name = \"flash-attn\"");
  REQUIRE(flash != std::string::npos);
  const std::size_t cpu = lock.find("[packages.tool.wvlock.targets.cpu]", flash);
  REQUIRE(cpu != std::string::npos);
  CHECK(lock.substr(cpu, 200).find("wheels = []") != std::string::npos);
}

TEST_CASE("cli lock: a resource limit stops the command with its name and how to raise it",
          "[cli][lock][limits]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  const std::string before = example.lockfile();

  // Too little solver work for the example: the error names the target, the limit and both
  // ways to raise it, and the lockfile is untouched.
  Run starved = wvlock(example.dir, "lock --upgrade --limit solver-steps=5");
  INFO(starved.err);
  CHECK(starved.status == 2);
  CHECK(starved.err.find("error: the resolution of target `mac` is over the solver-steps limit "
                         "of 5 steps") != std::string::npos);
  CHECK(starved.err.find("raise it with `--limit solver-steps=N` or "
                         "WVLOCK_LIMIT_SOLVER_STEPS=N") != std::string::npos);
  CHECK(example.lockfile() == before);

  // The same through the environment; the command line wins over it.
  CHECK(wvlock(example.dir, "lock --upgrade").status == 0);
  Run by_variable = wvlock(example.dir, "lock --upgrade", "WVLOCK_LIMIT_SOLVER_STEPS=5");
  CHECK(by_variable.status == 2);
  CHECK(by_variable.err.find("solver-steps limit of 5 steps") != std::string::npos);
  Run overridden = wvlock(example.dir, "--limit solver-steps=100000 lock --upgrade",
                          "WVLOCK_LIMIT_SOLVER_STEPS=5");
  CHECK(overridden.status == 0);
  CHECK(example.lockfile() == before);

  // A metadata file over its limit, and a bad setting.
  Run small = wvlock(example.dir, "lock --upgrade --limit metadata-bytes=64");
  CHECK(small.status == 2);
  CHECK(small.err.find("over the metadata-bytes limit of 64 bytes") != std::string::npos);
  Run bad = wvlock(example.dir, "--limit page-bytes=lots lock");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("`lots` is not a valid page-bytes limit") != std::string::npos);
  CHECK(example.lockfile() == before);
}

TEST_CASE("cli: tree, why and export read the lockfile", "[cli][inspect]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  Run tree = wvlock(example.dir, "tree --target h100");
  REQUIRE(tree.status == 0);
  CHECK(tree.out.rfind("h100\n", 0) == 0);
  CHECK(tree.out.find("  torch==2.9.0") != std::string::npos);
  CHECK(tree.out.find("flash-attn==") != std::string::npos);
  Run why = wvlock(example.dir, "why nvidia-cublas-cu12");
  REQUIRE(why.status == 0);
  CHECK(why.out.find("cpu: nvidia-cublas-cu12 is not needed") != std::string::npos);
  CHECK(why.out.find("h100: the project -> torch==2.9.0 -> nvidia-cublas-cu12==") != std::string::npos);
  Run requirements = wvlock(example.dir, "export --target cpu --format requirements");
  REQUIRE(requirements.status == 0);
  CHECK(requirements.out.find("torch==2.9.0 \\\n    --hash=sha256:") != std::string::npos);
  CHECK(requirements.out.find("nvidia-") == std::string::npos);
  Run pylock = wvlock(example.dir, "export --target mi300");
  REQUIRE(pylock.status == 0);
  std::string exported = slurp(example.dir + "/pylock.mi300.toml");
  CHECK(exported.find("rocm6.4") != std::string::npos);
  CHECK(exported.find("[tool.wvlock]") == std::string::npos);
  CHECK(wvlock(example.dir, "tree --target nope").status == 2);
  Run missing = wvlock(example.dir + "/..", "--project nowhere lock");
  CHECK(missing.status != 0);
}
