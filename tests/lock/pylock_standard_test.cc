// What a standard PEP 751 reader sees in wvlock's lockfile: package markers that select a
// package exactly where some target needs it and through which extras and dependency groups,
// per-target exports, and the files' `size` and `upload-time`.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <set>

#include "tests/support/package_name.h"
#include "src/base/file_system.h"
#include "lock/lockfile.h"
#include "lock/target_export.h"
#include "src/pkg/marker.h"
#include "tests/support/temp_dir.h"

namespace {

using wv::lock::LockedPackage;
using wv::lock::Lockfile;
using wv::lock::Selection;

const std::string kHash(64, 'a');
const char* kMac = "sys_platform == \"darwin\"";
const char* kLinux = "sys_platform == \"linux\"";

LockedPackage package(const std::string& name, const std::map<std::string, std::vector<std::string>>& uses) {
  LockedPackage entry{.name = wv::test::package_name(name), .version = "1.0", .index = "https://example.org/simple"};
  const std::string wheel = name + "-1.0-py3-none-any.whl";
  entry.wheels.push_back({.name = wheel, .url = "https://example.org/f/" + wheel, .size = 10,
                          .sha256 = kHash, .upload_time = "2025-01-25T11:30:10.164985Z"});
  for (const auto& [target, dependencies] : uses) entry.targets[target] = {{wheel}, dependencies};
  return entry;
}

wv::lock::LockedTarget target(const char* name, const char* marker,
                              std::map<std::string, std::string> facts) {
  wv::lock::LockedTarget locked{.name = name, .marker = marker};
  facts["python"] = "3.12";
  auto declared = wv::targets::target_from_facts(name, facts);
  REQUIRE(declared);
  locked.declared = *declared;
  return locked;
}

const std::map<std::string, std::string> kMacFacts{{"platform", "macos-arm64"}, {"macos", "14.0"}};
const std::map<std::string, std::string> kLinuxFacts{{"platform", "linux-x86_64"}, {"glibc", "2.28"}};

// mac and cpu/gpu on two platforms; gpu locks the `cuda` extra; every target the `dev` group.
//   base      a root everywhere
//   maconly   a root on mac
//   cudalib   gpu's extra `cuda`
//   testlib   the group `dev`, everywhere
//   shared    gpu's `cuda` (through cudalib) and `dev` (through testlib) everywhere
//   mixed     a root on cpu, gpu's `cuda` extra: a root reaches it on linux
Lockfile sample() {
  Lockfile lockfile;
  lockfile.environments = {kMac, kLinux};
  lockfile.extras = {"cuda"};
  lockfile.dependency_groups = {"dev"};
  lockfile.packages = {
      package("base", {{"mac", {}}, {"cpu", {}}, {"gpu", {}}}),
      package("maconly", {{"mac", {}}}),
      package("cudalib", {{"gpu", {"shared==1.0"}}}),
      package("testlib", {{"mac", {"shared==1.0"}}, {"cpu", {"shared==1.0"}}, {"gpu", {"shared==1.0"}}}),
      package("shared", {{"mac", {}}, {"cpu", {}}, {"gpu", {}}}),
      package("mixed", {{"cpu", {}}, {"gpu", {}}}),
  };
  auto mac = target("mac", kMac, kMacFacts);
  mac.roots = {"base==1.0", "maconly==1.0"};
  mac.group_roots["dev"] = {"testlib==1.0"};
  auto cpu = target("cpu", kLinux, kLinuxFacts);
  cpu.roots = {"base==1.0", "mixed==1.0"};
  cpu.group_roots["dev"] = {"testlib==1.0"};
  auto gpu = target("gpu", kLinux, kLinuxFacts);
  gpu.roots = {"base==1.0"};
  gpu.extra_roots["cuda"] = {"cudalib==1.0", "mixed==1.0"};
  gpu.group_roots["dev"] = {"testlib==1.0"};
  lockfile.targets = {mac, cpu, gpu};
  wv::lock::canonicalize(lockfile);
  return lockfile;
}

const LockedPackage& entry(const Lockfile& lockfile, const std::string& name) {
  for (const LockedPackage& package : lockfile.packages) {
    if (package.name.str() == name) return package;
  }
  FAIL("no entry " << name);
  return lockfile.packages.front();
}

std::set<std::string> names(const std::vector<const LockedPackage*>& packages) {
  std::set<std::string> out;
  for (const LockedPackage* package : packages) out.insert(package->name.str());
  return out;
}

// What PEP 751's installer keeps: every entry whose marker holds for the target's platform,
// extras and groups.
std::set<std::string> standard_selection(const Lockfile& lockfile, const wv::lock::LockedTarget& target,
                                         const Selection& selection) {
  auto environment = wv::targets::marker_environment(target.declared.profile);
  REQUIRE(environment);
  wv::pkg::PreparedEnvironment prepared(*environment);
  wv::pkg::MarkerContext context{&prepared, selection.extras, selection.groups};
  std::set<std::string> kept;
  for (const LockedPackage& package : lockfile.packages) {
    if (package.marker.empty()) {
      kept.insert(package.name.str());
      continue;
    }
    auto marker = wv::pkg::parse_marker(package.marker);
    REQUIRE(marker);
    auto holds = marker->evaluate(context);
    REQUIRE(holds);
    if (*holds) kept.insert(package.name.str());
  }
  return kept;
}

}  // namespace

TEST_CASE("pylock markers: the platform and the extras and groups that reach each package",
          "[lock][pylock]") {
  Lockfile lockfile = sample();
  REQUIRE(wv::lock::assign_package_markers(lockfile));
  CHECK(entry(lockfile, "base").marker.empty());
  CHECK(entry(lockfile, "maconly").marker == "sys_platform == \"darwin\"");
  CHECK(entry(lockfile, "cudalib").marker == "sys_platform == \"linux\" and \"cuda\" in extras");
  CHECK(entry(lockfile, "testlib").marker == "\"dev\" in dependency_groups");
  CHECK(entry(lockfile, "shared").marker ==
        "(sys_platform == \"darwin\" and \"dev\" in dependency_groups) or (sys_platform == \"linux\" "
        "and (\"cuda\" in extras or \"dev\" in dependency_groups))");
  CHECK(entry(lockfile, "mixed").marker == "sys_platform == \"linux\"");

  // The reader keeps them as written, and the writer gives the same bytes back.
  std::string text = wv::lock::write_lockfile(lockfile);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  REQUIRE(read);
  CHECK(entry(*read, "shared").marker == entry(lockfile, "shared").marker);
  CHECK(wv::lock::write_lockfile(*read) == text);
  // wvlock's own install still follows the target's tables: gpu installs its extra unasked.
  CHECK(names(read->closure("gpu", {}, {})) ==
        std::set<std::string>{"base", "cudalib", "mixed", "shared"});

  // A marker that does not parse is refused with its line.
  std::string broken = text;
  broken.replace(broken.find("in dependency_groups"), 20, "in nowhere");
  auto refused = wv::lock::read_lockfile(broken, "pylock.toml");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("pylock.toml:") == 0);
  CHECK(refused.error().message.find("`marker`") != std::string::npos);
}

TEST_CASE("pylock markers: on a platform of one target, a standard selection is that target's "
          "closure for every choice of extras and groups", "[lock][pylock]") {
  Lockfile lockfile = sample();
  REQUIRE(wv::lock::assign_package_markers(lockfile));
  const wv::lock::LockedTarget& mac = *lockfile.find_target("mac");
  for (const Selection& selection : {Selection{}, Selection{{}, {"dev"}}, Selection{{"cuda"}, {}},
                                     Selection{{"cuda"}, {"dev"}}}) {
    CHECK(standard_selection(lockfile, mac, selection) ==
          names(lockfile.selected_closure("mac", selection)));
    // Two targets share linux: a standard reader cannot tell them apart and takes both.
    auto cpu = names(lockfile.selected_closure("cpu", selection));
    auto gpu = names(lockfile.selected_closure("gpu", selection));
    cpu.insert(gpu.begin(), gpu.end());
    CHECK(standard_selection(lockfile, *lockfile.find_target("cpu"), selection) == cpu);
  }
}

TEST_CASE("pylock export: one target, its extras and groups or the ones chosen, as a plain lock",
          "[lock][pylock]") {
  Lockfile lockfile = sample();
  lockfile.default_groups = {"dev"};
  REQUIRE(wv::lock::assign_package_markers(lockfile));
  const wv::lock::LockedTarget& gpu = *lockfile.find_target("gpu");

  auto whole = wv::lock::export_selection(gpu, std::nullopt, std::nullopt);
  REQUIRE(whole);
  CHECK(whole->extras == std::vector<std::string>{"cuda"});
  CHECK(whole->groups == std::vector<std::string>{"dev"});
  auto exported = wv::lock::export_target(lockfile, gpu, *whole);
  REQUIRE(exported);
  CHECK(exported->environments == std::vector<std::string>{kLinux});
  CHECK(exported->extras == std::vector<std::string>{"cuda"});
  CHECK(exported->dependency_groups == std::vector<std::string>{"dev"});
  CHECK(exported->default_groups == std::vector<std::string>{"dev"});
  CHECK(exported->targets.empty());
  // One platform: the markers say only which extra or group needs a package.
  CHECK(entry(*exported, "base").marker.empty());
  CHECK(entry(*exported, "cudalib").marker == "\"cuda\" in extras");
  CHECK(entry(*exported, "shared").marker == "\"cuda\" in extras or \"dev\" in dependency_groups");
  CHECK(entry(*exported, "mixed").marker == "\"cuda\" in extras");
  CHECK(entry(*exported, "testlib").marker == "\"dev\" in dependency_groups");
  for (const Selection& selection : {Selection{}, Selection{{}, {"dev"}}, Selection{{"cuda"}, {}},
                                     *whole}) {
    CHECK(standard_selection(*exported, gpu, selection) ==
          names(lockfile.selected_closure("gpu", selection)));
  }
  std::string text = wv::lock::write_lockfile(*exported);
  CHECK(text.find("[tool.wvlock") == std::string::npos);
  CHECK(text.find("default-groups = [\"dev\"]") != std::string::npos);
  auto read = wv::lock::read_lockfile(text, "pylock.gpu.toml");
  REQUIRE(read);
  CHECK(wv::lock::write_lockfile(*read) == text);

  // Narrowed: no extra, the group kept; default-groups only what is exported.
  auto no_extras =
      wv::lock::export_selection(gpu, std::vector<wv::pkg::ExtraName>{}, std::nullopt);
  REQUIRE(no_extras);
  auto narrowed = wv::lock::export_target(lockfile, gpu, *no_extras);
  REQUIRE(narrowed);
  CHECK(narrowed->extras.empty());
  std::set<std::string> listed;
  for (const LockedPackage& package : narrowed->packages) listed.insert(package.name.str());
  CHECK(listed == std::set<std::string>{"base", "shared", "testlib"});
  CHECK(entry(*narrowed, "shared").marker == "\"dev\" in dependency_groups");
  auto no_groups =
      wv::lock::export_selection(gpu, std::nullopt, std::vector<wv::pkg::ExtraName>{});
  REQUIRE(no_groups);
  auto without_groups = wv::lock::export_target(lockfile, gpu, *no_groups);
  REQUIRE(without_groups);
  CHECK(without_groups->default_groups.empty());

  // An extra the target did not lock is named with the ones it did.
  auto cpu_cuda = wv::lock::export_selection(*lockfile.find_target("cpu"),
                                             std::vector<wv::pkg::ExtraName>{"cuda"_pkg},
                                             std::nullopt);
  REQUIRE_FALSE(cpu_cuda);
  CHECK(cpu_cuda.error().code == wv::ErrorCode::kInvalidInput);
  CHECK(cpu_cuda.error().message == "target `cpu` did not lock extra `cuda` (it locked: none)");
  auto gpu_docs =
      wv::lock::export_selection(gpu, std::nullopt, std::vector<wv::pkg::ExtraName>{"docs"_pkg});
  REQUIRE_FALSE(gpu_docs);
  CHECK(gpu_docs.error().message ==
        "target `gpu` did not lock dependency group `docs` (it locked: dev)");
}

TEST_CASE("pylock files: upload-time is a TOML offset date-time, read back in UTC",
          "[lock][pylock]") {
  Lockfile lockfile = sample();
  std::string text = wv::lock::write_lockfile(lockfile);
  CHECK(text.find("size = 10, upload-time = 2025-01-25T11:30:10.164985Z, hashes = {") !=
        std::string::npos);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  REQUIRE(read);
  CHECK(entry(*read, "base").wheels.front().upload_time == "2025-01-25T11:30:10.164985Z");
  CHECK(entry(*read, "base").wheels.front().size == 10u);

  auto replaced = [&](const std::string& with) {
    std::string changed = text;
    const std::string from = "upload-time = 2025-01-25T11:30:10.164985Z";
    changed.replace(changed.find(from), from.size(), with);
    return wv::lock::read_lockfile(changed, "pylock.toml");
  };
  // Another offset for the same instant reads as the one spelling.
  auto offset = replaced("upload-time = 2025-01-25T12:30:10.164985+01:00");
  REQUIRE(offset);
  CHECK(offset->packages.front().wheels.front().upload_time == "2025-01-25T11:30:10.164985Z");
  for (const char* wrong : {"upload-time = \"2025-01-25T11:30:10Z\"", "upload-time = 2025-01-25T11:30:10",
                            "upload-time = 2025-01-25"}) {
    INFO(wrong);
    auto refused = replaced(wrong);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("expected an offset date-time") != std::string::npos);
  }

  // Python's tomllib reads it as an aware datetime, as PEP 751 asks.
  wv::test::TempDir dir;
  wv::RealFileSystem fs;
  REQUIRE(fs.write_file_atomic(dir.file("pylock.toml"), text));
  std::ofstream(dir.file("check.py")) << R"(import datetime, sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
w = d["packages"][0]["wheels"][0]
assert w["upload-time"] == datetime.datetime(2025, 1, 25, 11, 30, 10, 164985, tzinfo=datetime.timezone.utc), w
assert w["size"] == 10
print("ok")
)";
  std::string command = std::string(WV_TEST_PYTHON) + " " + dir.file("check.py") + " " +
                        dir.file("pylock.toml") + " > " + dir.file("out.txt") + " 2>&1";
  int status = std::system(command.c_str());
  INFO(*fs.read_file(dir.file("out.txt")));
  CHECK(status == 0);
}
