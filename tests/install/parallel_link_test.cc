// A big wheel's members are linked from the cache in one slice per core (install/wheel_link.cc,
// link_all), and its cache entry's files are checked in slices too (install/slices.h): what it
// installs, its RECORD's order and its counts must be what one pass in member order gives, two
// members with one destination must keep the later one, as a pass in order does, and a changed
// file in any slice must be noticed.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/install/sync.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelEntry;
using test::WheelSpec;

// More than two slices' worth (2,048 members each) on a machine with two cores or more.
constexpr int kModules = 5000;

std::string module_name(int i) {
  return "many/sub" + std::to_string(i % 7) + "/m" + std::to_string(i) + ".py";
}

WheelSpec many_modules() {
  WheelSpec spec;
  spec.name = "many";
  spec.version = "1.0";
  for (int i = 0; i < kModules; ++i) {
    spec.files.emplace_back(module_name(i), "V = " + std::to_string(i) + "\n");
  }
  spec.files.emplace_back("many-1.0.data/scripts/many-tool", "#!python\nprint('tool')\n", true);
  spec.files.emplace_back("many-1.0.data/data/share/many/notes.txt", "notes\n");
  return spec;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Env {
  test::TempDir dir;
  std::string venv = dir.file("venv");
  LocalWheelStore store{""};

  Result<SyncReport> sync_file(const lock::LockedFile& wheel, const std::string& into) {
    SyncOptions options;
    options.venv = dir.file(into);
    options.cache_dir = dir.file("cache");
    options.link_mode = LinkMode::kHardlink;
    return sync(options, test::lock_of_wheels({wheel}), test::live_host(), store);
  }
  Result<SyncReport> sync_spec(const WheelSpec& spec) {
    return sync_file(test::locked_file(test::build_wheel(spec, dir.file("wheels"))), "venv");
  }
  std::string site() {
    auto facts = read_interpreter(venv);
    REQUIRE(facts.has_value());
    return venv + "/" + facts->scheme.purelib;
  }
};

TEST_CASE("parallel link: a big wheel installs every member, RECORD in member order",
          "[install][cache]") {
  Env env;
  auto report = env.sync_spec(many_modules());
  REQUIRE(report.has_value());
  INFO(report->links.hardlinked << " linked, " << report->links.copied << " copied");
  CHECK(report->links.hardlinked == kModules + 3);  // the modules, the data file, METADATA, WHEEL
  CHECK(report->links.copied == 0);
  const std::string site = env.site();
  for (int i : {0, 1, 2047, 2048, 2049, 4095, 4096, kModules - 1}) {
    INFO(module_name(i));
    CHECK(slurp(site + "/" + module_name(i)) == "V = " + std::to_string(i) + "\n");
    struct ::stat info {};
    REQUIRE(::stat((site + "/" + module_name(i)).c_str(), &info) == 0);
    CHECK(info.st_nlink == 2);  // the cache's file and this one
  }
  CHECK(slurp(env.venv + "/bin/many-tool").rfind("#!" + env.venv + "/bin/python", 0) == 0);
  CHECK(slurp(env.venv + "/share/many/notes.txt") == "notes\n");
  // RECORD: the modules first, in the archive's order, each once.
  std::istringstream record(slurp(site + "/many-1.0.dist-info/RECORD"));
  std::string row;
  int next = 0;
  bool in_order = true;
  while (std::getline(record, row) && next < kModules) {
    in_order = in_order && row.rfind(module_name(next) + ",sha256=", 0) == 0;
    ++next;
  }
  CHECK(next == kModules);
  CHECK(in_order);
}

TEST_CASE("parallel link: two members with one destination keep the later one",
          "[install][cache]") {
  Env env;
  WheelSpec spec = many_modules();
  // `.data/purelib/` lands where the root's files do: the later one in the archive wins. The
  // earlier one is near the end of the first half, the later one at the start of the second:
  // linked side by side, the earlier would come last.
  spec.files.insert(spec.files.begin() + 2510,
                    WheelEntry("many-1.0.data/purelib/" + module_name(2400), "V = 'later'\n"));
  auto report = env.sync_spec(spec);
  REQUIRE(report.has_value());
  CHECK(slurp(env.site() + "/" + module_name(2400)) == "V = 'later'\n");
  CHECK(slurp(env.site() + "/" + module_name(2401)) == "V = 2401\n");
}

TEST_CASE("parallel link: a file of the entry's last slice changed through a hard link is "
          "noticed, and the wheel extracted again",
          "[install][cache]") {
  Env env;
  const lock::LockedFile wheel =
      test::locked_file(test::build_wheel(many_modules(), env.dir.file("wheels")));
  auto first = env.sync_file(wheel, "venv");
  REQUIRE(first.has_value());
  CHECK(first->extracted == 1);
  {
    std::ofstream edit(env.site() + "/" + module_name(kModules - 2), std::ios::app);
    edit << "V = 0  # edited in place\n";
  }
  auto second = env.sync_file(wheel, "other");  // the same wheel: its entry is found
  REQUIRE(second.has_value());
  CHECK(second->cache_hits == 0);
  CHECK(second->extracted == 1);
  auto facts = read_interpreter(env.dir.file("other"));
  REQUIRE(facts.has_value());
  const std::string other_site = env.dir.file("other") + "/" + facts->scheme.purelib;
  CHECK(slurp(other_site + "/" + module_name(kModules - 2)) ==
        "V = " + std::to_string(kModules - 2) + "\n");
}

}  // namespace
}  // namespace wv::install
