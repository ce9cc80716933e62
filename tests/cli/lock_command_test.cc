#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "src/base/file_system.h"
#include "lock/lockfile.h"
#include "tests/cli/cli_support.h"

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
  const wv::lock::LockedPackage* package = lockfile.find_package_for_target(*wv::pkg::parse_package_name(name), target);
  INFO(name << " for " << target);
  REQUIRE(package);
  return *package;
}

std::string first_wheel(const wv::lock::Lockfile& lockfile, const char* name, const char* target) {
  return entry(lockfile, name, target).targets.at(target).wheels.front();
}

bool uses(const wv::lock::Lockfile& lockfile, const char* name, const char* target) {
  return lockfile.find_package_for_target(*wv::pkg::parse_package_name(name), target) != nullptr;
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
  for (const auto* package : lock.closure("cpu")) CHECK(package->name.str().rfind("nvidia-", 0) != 0);
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

namespace {

// The example with `from` replaced by `to` in its pyproject.toml.
std::string example_with(const std::string& from, const std::string& to) {
  std::string pyproject = slurp(WV_FIXTURES_DIR "/example/pyproject.toml");
  std::string changed = std::regex_replace(pyproject, std::regex(from), to);
  REQUIRE(changed != pyproject);
  return changed;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The one `--json` document on stdout, parsed.
nlohmann::json document(const Run& run) {
  INFO(run.out);
  REQUIRE(run.out.rfind("{\n  \"version\": 1,", 0) == 0);
  return nlohmann::json::parse(run.out);
}

// A project beside a small ecosystem generated from `description` (fixtures/generate.py's
// schema) into ../eco: its find-links folder holds real wheels. One target, linux-x86_64.
struct Ecosystem : wv::test::ProjectCopy {
  Ecosystem(const std::string& description, const std::string& dependencies)
      : ProjectCopy("app", "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [" +
                               dependencies +
                               "]\n\n[tool.wvlock]\npython = \"3.12\"\nfind-links = "
                               "[\"../eco/find-links\"]\n\n[[tool.wvlock.target]]\nname = "
                               "\"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n") {
    std::ofstream(tmp.path() + "/eco.toml") << description;
    Run made = wv::test::shell(tmp.path(), "'" WV_TEST_PYTHON "' '" WV_SOURCE_DIR
                                           "/fixtures/generate.py' --out eco --description "
                                           "eco.toml --no-today --quiet");
    INFO(made.err);
    REQUIRE(made.status == 0);
  }
};

// pyrax 1.9.8 -> oslo.serialization, whose fifteen 1.x versions need msgpack-python>=9 (only
// 0.4.0 and 0.5.6 exist) and whose 0.9.0 and 2.0.0 need legacy, built only for CPython 2.7.
std::string pyrax_description() {
  std::string text =
      "default-python = [\"cp312\"]\n\n"
      "[[package]]\nname = \"pyrax\"\n[[package.release]]\nversion = \"1.9.8\"\n"
      "requires = [\"oslo.serialization\", \"six\"]\n\n"
      "[[package]]\nname = \"six\"\n[[package.release]]\nversion = \"1.16.0\"\n\n"
      "[[package]]\nname = \"msgpack-python\"\nimport = \"msgpack\"\n"
      "[[package.release]]\nversion = \"0.4.0\"\n[[package.release]]\nversion = \"0.5.6\"\n\n"
      "[[package]]\nname = \"legacy\"\n"
      "wheels = [{ python = \"cp27\", abi = \"cp27mu\", platforms = [\"manylinux1_x86_64\"] }]\n"
      "[[package.release]]\nversion = \"1.0\"\n\n"
      "[[package]]\nname = \"oslo.serialization\"\nimport = \"oslo_serialization\"\n"
      "requires = [\"msgpack-python>=9\"]\n"
      "[[package.release]]\nversion = \"0.9.0\"\nrequires = [\"legacy\"]\n";
  for (int minor = 0; minor <= 14; ++minor) {
    text += "[[package.release]]\nversion = \"1." + std::to_string(minor) + ".0\"\n";
  }
  text += "[[package.release]]\nversion = \"2.0.0\"\nrequires = [\"legacy\"]\n";
  return text;
}

}  // namespace

TEST_CASE("cli lock: a specifier no version satisfies names the versions that exist",
          "[cli][lock][explain]") {
  Example example(example_with("\"numpy>=2\"", "\"numpy>=9\""));
  Run run = wvlock(example.dir, "lock");
  INFO(run.err);
  CHECK(run.status == 1);
  // Five targets, one reason: said once.
  CHECK(has(run.err, "error: no resolution for targets `mac`, `cpu`, `a100`, `h100`, `mi300`:"));
  CHECK(has(run.err, "Because only numpy 1.26.4, 2.2.6, 2.3.3, 2.4.0rc1 are available and "
                     "trainer depends on numpy>=9, version solving failed."));
  CHECK_FALSE(has(run.err, "no published version"));
  CHECK_FALSE(has(run.err, "hint:"));  // no extra can fix a version that does not exist
  CHECK_FALSE(fs::exists(example.dir + "/pylock.toml"));
}

TEST_CASE("cli lock: a project no index has says where it looked and what is close",
          "[cli][lock][explain]") {
  Example example(example_with("\"numpy>=2\"", "\"nmupy>=2\""));
  Run run = wvlock(example.dir, "lock");
  INFO(run.err);
  CHECK(run.status == 1);
  CHECK(has(run.err, "Because no package source has a project named `nmupy` (searched "));
  CHECK(has(run.err, "and trainer depends on nmupy>=2, version solving failed."));
  CHECK(has(run.err, "hint: did you mean `numpy`?"));
  CHECK_FALSE(has(run.err, "extras = [...]"));
}

TEST_CASE("cli lock: the extras hint only for a package with no wheel a target can install",
          "[cli][lock][explain]") {
  // The CUDA runtime has Linux wheels only: the mac target cannot have it.
  Example example(example_with("\"numpy>=2\",", "\"numpy>=2\", \"nvidia-cublas-cu12\","));
  Run run = wvlock(example.dir, "lock");
  INFO(run.err);
  CHECK(run.status == 1);
  CHECK(has(run.err, "error: no resolution for target `mac`:"));
  CHECK(has(run.err, "no wheel for target mac"));
  CHECK(has(run.err, "hint: no wheel of nvidia-cublas-cu12 fits target `mac`: a package that "
                     "only some targets can have (a CUDA-only build on a CPU target) can move to "
                     "an extra that only those targets ask for (`extras = [...]` in the target)"));
}

TEST_CASE("cli lock: versions that fail for one cause read as one range",
          "[cli][lock][explain]") {
  Ecosystem project(pyrax_description(), "\"pyrax\"");
  Run run = project.wvlock("", "lock");
  INFO(run.err);
  CHECK(run.status == 1);
  const std::size_t start = run.err.find("Because ");
  const std::size_t end = run.err.find("\n\n", start);
  REQUIRE(start != std::string::npos);
  const std::string report = run.err.substr(start, end - start);
  CHECK(std::count(report.begin(), report.end(), '\n') + 1 <= 12);
  CHECK(has(report, "only msgpack-python 0.4.0, 0.5.6 are available and "
                    "oslo-serialization>=1.0.0,<=1.14.0 depends on msgpack-python>=9"));
  CHECK(has(report, "oslo-serialization==0.9.0 | ==2.0.0 depends on legacy"));
  CHECK(has(report, "pyrax==1.9.8 depends on oslo-serialization"));
  CHECK_FALSE(has(report, "oslo-serialization==1.7.0"));
  CHECK(has(run.err, "hint: no wheel of legacy fits target `linux`"));
}

TEST_CASE("cli lock: count lines name what they count", "[cli][lock]") {
  Ecosystem project(pyrax_description(), "\"six\"");
  Run run = project.wvlock("", "lock");
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(std::regex_search(run.err, std::regex("wrote \\S*pylock\\.toml: 1 package version for 1 "
                                               "target in [0-9]+ ms\n  linux: 1 package\n")));
  Example example;
  Run five = wvlock(example.dir, "lock");
  REQUIRE(five.status == 0);
  CHECK(std::regex_search(five.err, std::regex("[0-9]+ package versions for 5 targets in ")));
  CHECK(std::regex_search(five.err, std::regex("\n  mac: [0-9]+ packages\n")));
}

TEST_CASE("cli lock: --upgrade-package warns about a name no target needs, and still locks",
          "[cli][lock]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  Run run = wvlock(example.dir, "lock --upgrade-package nosuch --upgrade-package NumPy");
  INFO(run.err);
  CHECK(run.status == 0);
  CHECK(has(run.err, "warning: `--upgrade-package nosuch`: nosuch is neither in the previous "
                     "lock nor needed by any target; nothing to upgrade"));
  CHECK_FALSE(has(run.err, "numpy is neither"));
  CHECK(has(run.err, "unchanged "));
}

TEST_CASE("cli lock: --upgrade-package takes a package name, else says where it is not one",
          "[cli][lock]") {
  Example example;
  REQUIRE(wvlock(example.dir, "lock").status == 0);
  const std::string before = example.lockfile();
  Run spelled = wvlock(example.dir, "lock --upgrade-package Num_Py --upgrade-package NUMPY");
  INFO(spelled.err);
  CHECK(spelled.status == 0);
  CHECK(has(spelled.err, "`--upgrade-package num-py`: num-py is neither"));
  CHECK_FALSE(has(spelled.err, "numpy is neither"));
  Run invalid = wvlock(example.dir, "lock --upgrade-package 'num py'");
  CHECK(invalid.status == 2);
  CHECK(has(invalid.err, "error: `--upgrade-package`: invalid package name `num py`: expected "
                         "ASCII letters, digits"));
  CHECK(has(invalid.err, "\n       ^"));
  CHECK(example.lockfile() == before);
}

TEST_CASE("cli lock: requires-python is checked against each target's Python",
          "[cli][lock][requires-python]") {
  Example all(example_with("requires-python = \">=3.11\"", "requires-python = \">=3.12\""));
  Run run = wvlock(all.dir, "lock");
  INFO(run.err);
  CHECK(run.status == 2);
  CHECK(has(run.err, "error: the project's requires-python `>=3.12` excludes the Python of "
                     "targets `mac` (Python 3.11), `cpu` (Python 3.11)"));
  CHECK(has(run.err, "hint: give each target a Python that requires-python allows (`python = "
                     "\"3.12\"`"));
  CHECK_FALSE(fs::exists(all.dir + "/pylock.toml"));

  // One target left behind: named with its Python.
  std::string one = std::regex_replace(
      example_with("requires-python = \">=3.11\"", "requires-python = \">=3.12\""),
      std::regex("\npython = \"3.11\"\n"), "\npython = \"3.12\"\n");
  one = std::regex_replace(one, std::regex("name = \"cpu\"\n"),
                           "name = \"cpu\"\npython = \"3.11\"\n");
  Example single(one);
  Run refused = wvlock(single.dir, "lock --json");
  INFO(refused.err);
  CHECK(refused.status == 2);
  CHECK(has(refused.err, "error: target `cpu` has Python 3.11, which the project's "
                         "requires-python `>=3.12` excludes"));
  CHECK(refused.out.empty());  // stopped before resolving: no document
}

TEST_CASE("cli lock --json: status, targets, builds and changes", "[cli][lock][json]") {
  Example example;
  Run first = wvlock(example.dir, "lock --json");
  INFO(first.err);
  REQUIRE(first.status == 0);
  auto lockfile = wv::lock::read_lockfile(example.lockfile(), "pylock.toml");
  REQUIRE(lockfile);
  nlohmann::json doc = document(first);
  CHECK(doc["version"] == 1);
  CHECK(doc["lockfile"].get<std::string>().ends_with("pylock.toml"));
  CHECK(doc["status"] == "written");
  REQUIRE(doc["targets"].size() == 5);
  std::vector<std::string> names;
  for (const auto& target : doc["targets"]) {
    names.push_back(target["name"]);
    CHECK(target["packages"] == lockfile->closure(target["name"].get<std::string>()).size());
  }
  CHECK(names == std::vector<std::string>{"mac", "cpu", "a100", "h100", "mi300"});
  const auto& h100 = doc["targets"][3]["builds"];
  CHECK(std::any_of(h100.begin(), h100.end(), [](const nlohmann::json& build) {
    return build["name"] == "torch" && build["version"] == "2.9.0" &&
           build["variant"] == "cuda12.8" && build["index"].is_null();
  }));
  CHECK(doc["targets"][0]["builds"].empty());  // mac: no variant builds
  // No lock before: every package is added.
  std::size_t packages = 0;
  for (const auto& package : lockfile->packages) packages += package.is_project ? 0 : 1;
  REQUIRE(doc["changes"].size() == packages);
  for (const auto& change : doc["changes"]) {
    CHECK(change["action"] == "added");
    CHECK(change["from"].is_null());
  }
  CHECK(doc["failures"].empty());
  CHECK(doc["elapsed_ms"].is_number());

  Run again = wvlock(example.dir, "lock --json");
  CHECK(document(again)["status"] == "unchanged");
  CHECK(document(again)["changes"].empty());
  Run fresh = wvlock(example.dir, "lock --check --json");
  CHECK(fresh.status == 0);
  CHECK(document(fresh)["status"] == "up-to-date");

  // A narrower numpy: --check says what a fresh lock would change and writes nothing.
  const std::string before = example.lockfile();
  std::ofstream(example.dir + "/pyproject.toml")
      << example_with("\"numpy>=2\"", "\"numpy>=2,<2.3\"");
  Run stale = wvlock(example.dir, "lock --check --json");
  CHECK(stale.status == 1);
  nlohmann::json stale_doc = document(stale);
  CHECK(stale_doc["status"] == "stale");
  CHECK(stale_doc["changes"] == nlohmann::json::parse(
                                    R"([{"name": "numpy", "action": "downgraded",
                                         "from": "2.3.3", "to": "2.2.6"}])"));
  CHECK(example.lockfile() == before);
  Run down = wvlock(example.dir, "lock");
  CHECK(down.status == 0);
  CHECK(has(down.err, "Downgraded numpy v2.3.3 -> v2.2.6\n"));
  // Back to numpy>=2: the x86-64 targets leave 2.2.6 (its wheel is of a lower class than
  // 2.3.3's x86-64-level builds, so no preference), mac keeps it until numpy may move.
  std::ofstream(example.dir + "/pyproject.toml")
      << slurp(WV_FIXTURES_DIR "/example/pyproject.toml");
  Run some = wvlock(example.dir, "lock --json");
  CHECK(document(some)["changes"] == nlohmann::json::parse(
                                        R"([{"name": "numpy", "action": "upgraded",
                                             "from": "2.2.6", "to": "2.2.6, 2.3.3"}])"));
  CHECK(entry(*wv::lock::read_lockfile(example.lockfile(), "pylock.toml"), "numpy", "mac")
            .version == "2.2.6");
  Run up = wvlock(example.dir, "lock --upgrade-package numpy");
  CHECK(up.status == 0);
  CHECK(has(up.err, "Updated numpy v2.2.6, v2.3.3 -> v2.3.3\n"));
  CHECK(example.lockfile() == before);
}

TEST_CASE("cli lock --json: a failed resolution is data, exit 1", "[cli][lock][json]") {
  Example example(example_with("\"numpy>=2\"", "\"numpy>=9\""));
  Run run = wvlock(example.dir, "lock --json");
  CHECK(run.status == 1);
  nlohmann::json doc = document(run);
  CHECK(doc["status"] == "failed");
  CHECK(doc["targets"].empty());
  CHECK(doc["changes"].empty());
  REQUIRE(doc["failures"].size() == 5);
  CHECK(doc["failures"][0]["target"] == "mac");
  CHECK(has(doc["failures"][0]["explanation"].get<std::string>(),
            "only numpy 1.26.4, 2.2.6, 2.3.3, 2.4.0rc1 are available"));
  CHECK(doc["failures"][0]["without_installable_file"].empty());
  CHECK(has(run.err, "error: no resolution for targets"));  // diagnostics stay on stderr
}
