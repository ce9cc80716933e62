#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "src/base/file_system.h"
#include "lock/lockfile.h"
#include "tests/support/package_name.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::lock::LockedFile;
using wv::lock::LockedPackage;
using wv::lock::Lockfile;

const std::string kHashA(64, 'a');
const std::string kHashB(64, 'b');

wv::pkg::VariantProperty property(const char* text) {
  return *wv::pkg::parse_variant_property(text);
}

Lockfile sample_lockfile() {
  Lockfile lockfile;
  lockfile.requires_python = ">=3.10";
  lockfile.environments = {"sys_platform == \"linux\" and platform_machine == \"x86_64\""};
  lockfile.extras = {"serve"};
  lockfile.input_hash = "xxh3-128:00112233445566778899aabbccddeeff";

  LockedPackage filelock{.name = "filelock"_pkg, .version = "3.16.1", .index = "https://example.org/simple"};
  filelock.wheels.push_back({.name = "filelock-3.16.1-py3-none-any.whl",
                             .url = "https://example.org/f/filelock-3.16.1-py3-none-any.whl",
                             .size = 16163, .sha256 = kHashA});
  filelock.targets["cpu"] = {{"filelock-3.16.1-py3-none-any.whl"}, {}};
  filelock.targets["h100"] = {{"filelock-3.16.1-py3-none-any.whl"}, {}};

  LockedPackage torch{.name = "torch"_pkg, .version = "2.9.0", .index = "https://example.org/simple"};
  torch.wheels.push_back({.name = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl",
                          .path = "wheels/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl",
                          .size = 100, .sha256 = kHashA});
  torch.wheels.push_back({.name = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
                          .path = "wheels/torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
                          .size = 200, .sha256 = kHashB});
  wv::pkg::VariantsMetadata variants;
  variants.schema_url = "https://variants-schema.wheelnext.dev/v0.0.3.json";
  variants.default_priorities.namespaces = {"nvidia", "amd"};
  variants.providers["nvidia"].requirements = {"nvidia-variant-provider>=0.0.1,<1.0.0"};
  variants.providers["nvidia"].plugin_api = "nvidia_variant_provider.plugin:NvidiaVariantPlugin";
  variants.providers["amd"].requirements = {"amd-variant-provider"};
  variants.variants["null"] = {};
  variants.variants["cu128"] = {property("nvidia :: cuda_version_lower_bound :: 12.8")};
  variants.variants["rocm6.4"] = {property("amd :: rocm_version :: 6.4")};
  torch.variants = variants;
  torch.targets["cpu"] = {{"torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl"},
                          {"filelock==3.16.1"}};
  torch.targets["h100"] = {{"torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl",
                            "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl"},
                           {"filelock==3.16.1"}};
  lockfile.packages = {torch, filelock};  // deliberately unsorted

  wv::lock::LockedTarget cpu{.name = "cpu", .marker = "sys_platform == \"linux\""};
  cpu.declared = *wv::targets::target_from_facts(
      "cpu", {{"platform", "linux-x86_64"}, {"glibc", "2.28"}, {"python", "3.12"}});
  cpu.roots = {"torch==2.9.0"};
  wv::lock::LockedTarget h100 = cpu;
  h100.name = "h100";
  h100.declared = *wv::targets::target_from_facts(
      "h100", {{"platform", "linux-x86_64"}, {"glibc", "2.28"}, {"python", "3.12"},
               {"cuda-driver", "12.8"}});
  h100.provider_output["nvidia"]["cuda_version_lower_bound"] = {"12.8", "12.7", "12"};
  h100.provider_output["nvidia"]["sm_arch"] = {"90_real", "90_virtual"};
  lockfile.targets = {cpu, h100};
  return lockfile;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("lockfile: writes, reads back the same model, and writes the same bytes",
          "[lock][lockfile]") {
  Lockfile lockfile = sample_lockfile();
  std::string text = wv::lock::write_lockfile(lockfile);
  CHECK(text.rfind("lock-version = \"1.0\"\ncreated-by = \"wvlock\"\n", 0) == 0);
  // packages sorted by name: filelock before torch
  CHECK(text.find("name = \"filelock\"") < text.find("name = \"torch\""));
  CHECK(text.find("[packages.variants-json.variants.cu128]") != std::string::npos);
  // only labels of listed wheels are kept
  CHECK(text.find("rocm6.4") == std::string::npos);
  CHECK(text.find("[packages.tool.wvlock.targets.h100]") != std::string::npos);

  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  REQUIRE(read);
  CHECK(read->packages.size() == 2);
  const LockedPackage* torch = read->find_package_for_target(*wv::pkg::parse_package_name("torch"), "h100");
  REQUIRE(torch);
  REQUIRE(torch->variants);
  CHECK(torch->variants->variants.count("cu128") == 1);
  CHECK(torch->variants->variants.count("rocm6.4") == 0);
  CHECK(torch->targets.at("h100").wheels.front() ==
        "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl");
  CHECK(read->find_target("h100")->provider_output.at("nvidia").at("sm_arch").front() ==
        "90_real");
  CHECK(wv::lock::write_lockfile(*read) == text);
}

TEST_CASE("lockfile: a second TOML reader (Python tomllib) accepts it as PEP 751",
          "[lock][lockfile]") {
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("pylock.toml"), wv::lock::write_lockfile(sample_lockfile())));
  std::string script = dir.file("check.py");
  std::ofstream(script) << R"(import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
assert d["lock-version"] == "1.0" and d["created-by"] == "wvlock"
for p in d["packages"]:
    assert p["name"] and p["version"]
    for w in p.get("wheels", []):
        assert ("url" in w) != ("path" in w), w
        assert len(w["hashes"]["sha256"]) == 64
    if "variants-json" in p:
        assert "variants" in p["variants-json"]
print("ok")
)";
  std::string command = std::string(WV_TEST_PYTHON) + " " + script + " " + dir.file("pylock.toml") + " > " +
                        dir.file("out.txt") + " 2>&1";
  int status = std::system(command.c_str());
  INFO(*fs.read_file(dir.file("out.txt")));
  CHECK(status == 0);
}

TEST_CASE("lockfile: validation names the line and what was expected", "[lock][lockfile]") {
  std::string text = wv::lock::write_lockfile(sample_lockfile());

  auto newer = wv::lock::read_lockfile(replace_once(text, "lock-version = \"1.0\"",
                                                    "lock-version = \"2.0\""),
                                       "pylock.toml");
  REQUIRE_FALSE(newer);
  CHECK(newer.error().code == wv::ErrorCode::kInvalidLockfile);
  CHECK(newer.error().message.find("pylock.toml:1:") == 0);
  CHECK(newer.error().message.find("not supported") != std::string::npos);

  auto unhashed = wv::lock::read_lockfile(
      replace_once(text, "hashes = { sha256 = \"" + kHashA + "\" }", "hashes = {}"),
      "pylock.toml");
  REQUIRE_FALSE(unhashed);
  CHECK(unhashed.error().message.find("sha256") != std::string::npos);

  auto unlisted = wv::lock::read_lockfile(
      replace_once(text, "wheels = [\"torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-null.whl\"]",
                   "wheels = [\"torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu999.whl\"]"),
      "pylock.toml");
  REQUIRE_FALSE(unlisted);
  CHECK(unlisted.error().message.find("not listed") != std::string::npos);
  CHECK(unlisted.error().message.find("pylock.toml:") == 0);

  auto dangling = wv::lock::read_lockfile(
      replace_once(text, "dependencies = [\"filelock==3.16.1\"]", "dependencies = [\"filelock==9\"]"),
      "pylock.toml");
  REQUIRE_FALSE(dangling);
  CHECK(dangling.error().message.find("filelock==9") != std::string::npos);

  auto syntax = wv::lock::read_lockfile("lock-version = \n", "pylock.toml");
  REQUIRE_FALSE(syntax);
  CHECK(syntax.error().message.find("pylock.toml:1:") == 0);

  CHECK_FALSE(wv::lock::read_lockfile("", "pylock.toml"));
}

TEST_CASE("lockfile: closure and lookups per target", "[lock][lockfile]") {
  Lockfile lockfile = sample_lockfile();
  wv::lock::canonicalize(lockfile);
  auto closure = lockfile.closure("cpu");
  REQUIRE(closure.size() == 2);
  CHECK(closure[0]->name == "filelock"_pkg);
  CHECK(lockfile.find_package_for_target(*wv::pkg::parse_package_name("torch"), "mac") == nullptr);
  CHECK(lockfile.find_target("nope") == nullptr);
}

TEST_CASE("lockfile: a package is looked up by its name, however the name was spelled",
          "[lock][lockfile]") {
  Lockfile sample = sample_lockfile();
  wv::lock::canonicalize(sample);
  // filelock renamed file-lock: its entry, its edges, and its wheels (`file_lock-...whl`).
  std::string text = wv::lock::write_lockfile(sample);
  for (std::size_t at; (at = text.find("filelock-3.16.1-py3")) != std::string::npos;) {
    text.replace(at, 8, "file_lock");
  }
  for (std::size_t at; (at = text.find("filelock")) != std::string::npos;) {
    text.replace(at, 8, "file-lock");
  }
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  INFO((read ? text : read.error().message));
  REQUIRE(read);
  // `File_Lock`, `file.lock` and `FILE-LOCK` are one name: each finds the entry `file-lock`.
  for (const char* spelled : {"File_Lock", "file.lock", "FILE-LOCK", "file-lock"}) {
    INFO(spelled);
    const LockedPackage* found =
        read->find_package_for_target(wv::test::package_name(spelled), "cpu");
    REQUIRE(found != nullptr);
    CHECK(found->name.str() == "file-lock");
  }
  CHECK(read->find_package_for_target("filelock"_pkg, "cpu") == nullptr);
  auto reached = read->reachable("cpu", read->find_target("cpu")->roots);
  CHECK(reached.count(wv::test::package_name("File_Lock")) == 1);
  CHECK(wv::lock::write_lockfile(*read) == text);
}

TEST_CASE("lockfile: a package name that is not in normal form is refused where it is read",
          "[lock][lockfile]") {
  const std::string text = wv::lock::write_lockfile(sample_lockfile());
  std::string spelled = text;
  spelled.replace(spelled.find("name = \"filelock\""), 17, "name = \"File_Lock\"");
  auto read = wv::lock::read_lockfile(spelled, "pylock.toml");
  REQUIRE_FALSE(read);
  CHECK(read.error().code == wv::ErrorCode::kInvalidLockfile);
  const std::size_t line = 1 + std::count(spelled.begin(),
                                          spelled.begin() + spelled.find("File_Lock"), '\n');
  CHECK(read.error().message == "pylock.toml:" + std::to_string(line) +
                                    ": package name `File_Lock` is not a normalised name (PEP 503/685)");
}

TEST_CASE("lockfile: closures follow roots, extras, groups and extra edges", "[lock][lockfile]") {
  Lockfile lockfile = sample_lockfile();
  // cpu: torch only by the `gpu` extra; torch[fast] adds filelock through an extra edge.
  lockfile.targets[0].roots = {};
  lockfile.targets[0].extra_roots["gpu"] = {"torch[fast]==2.9.0"};
  lockfile.targets[0].group_roots["dev"] = {"filelock==3.16.1"};
  for (LockedPackage& package : lockfile.packages) {
    if (package.name == "torch"_pkg) {
      package.targets["cpu"].dependencies = {};
      package.targets["cpu"].extra_dependencies["fast"] = {"filelock==3.16.1"};
    }
  }
  std::string text = wv::lock::write_lockfile(lockfile);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  REQUIRE(read);
  CHECK(wv::lock::write_lockfile(*read) == text);
  // the target's extra `gpu` is part of its install: torch, and filelock through torch[fast]
  auto default_install = read->closure("cpu", {}, {});
  REQUIRE(default_install.size() == 2);
  CHECK(default_install[1]->name == "torch"_pkg);
  lockfile.targets[0].extra_roots.clear();
  auto without_extra = wv::lock::read_lockfile(wv::lock::write_lockfile(lockfile), "pylock.toml");
  REQUIRE(without_extra);
  CHECK(without_extra->closure("cpu", {}, {}).empty());
  auto with_dev = without_extra->closure("cpu", {}, {"dev"});
  REQUIRE(with_dev.size() == 1);
  CHECK(with_dev[0]->name == "filelock"_pkg);

  // an extra edge naming a version no entry provides is refused
  auto broken = wv::lock::read_lockfile(
      replace_once(text, "fast = [\"filelock==3.16.1\"]", "fast = [\"filelock==0.1\"]"),
      "pylock.toml");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.find("filelock==0.1") != std::string::npos);
}
