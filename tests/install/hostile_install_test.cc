// Hostile wheels and locks at sync, round two: a file where a folder is (and the reverse),
// symlinks on the way, files of other distributions or of the venv itself, and wheels or lock
// entries whose name/version disagree. Each refusal must name what was refused, leave the
// venv and a decoy folder outside it byte-identical, and let a correct sync run afterwards.
// Every wheel is built here with wheel_builder (no stored binaries).
#include <sys/stat.h>
#include <sys/utsname.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>

#include "tests/support/package_name.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/install/sync.h"
#include "src/pkg/wheel_filename.h"
#include "tests/support/faulty_file_system.h"
#include "tests/support/temp_dir.h"
#include "wheel_builder.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;
using test::WheelSpec;

using test::live_host;
using test::machine;

/// One lock entry: the package's name and version as the lock says, and its one wheel.
struct Entry {
  std::string name;  ///< "" for the wheel file name's
  std::string version;
  lock::LockedFile file;
};

/// One target `cpu` whose closure is every entry. `validated` = false builds a lock that
/// lock::validate would refuse (sync must not rely on it having run).
lock::Lockfile lock_of_entries(const std::vector<Entry>& entries, bool validated = true) {
  lock::Lockfile lockfile;
  lock::LockedTarget target;
  target.name = "cpu";
  target.declared = *targets::target_from_facts("cpu", {{"platform", "linux-" + machine()}});
  for (const Entry& entry : entries) {
    auto parsed = pkg::parse_wheel_filename(entry.file.name);
    REQUIRE(parsed.has_value());
    lock::LockedPackage package;
    package.name = wv::test::package_name(entry.name.empty() ? parsed->name.str() : entry.name);
    package.version = entry.version.empty() ? parsed->version.to_string() : entry.version;
    package.wheels = {entry.file};
    package.targets["cpu"].wheels = {entry.file.name};
    target.roots.push_back(package.name.str() + "==" + package.version);
    lockfile.packages.push_back(std::move(package));
  }
  lockfile.targets = {target};
  lock::canonicalize(lockfile);
  if (validated) REQUIRE(lock::validate(lockfile, "test.toml").has_value());
  return lockfile;
}

lock::Lockfile lock_of(const std::vector<lock::LockedFile>& files) {
  std::vector<Entry> entries;
  for (const lock::LockedFile& file : files) entries.push_back({"", "", file});
  return lock_of_entries(entries);
}

/// Every path under `root`, not following links: its type, permission bits and content (or
/// link target). Equal strings mean an untouched tree.
std::string tree_digest(const std::string& root) {
  std::map<std::string, std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& path = it->path();
    struct stat info;
    REQUIRE(::lstat(path.c_str(), &info) == 0);
    std::string what = str_cat(" mode ", info.st_mode & 07777);
    if (S_ISLNK(info.st_mode)) {
      what = "link " + fs::read_symlink(path).string() + what;
    } else if (S_ISDIR(info.st_mode)) {
      what = "dir" + what;
    } else {
      what = "file " + sha256_file_hex(path.string()).value_or("?") + what;
    }
    entries[path.lexically_relative(root).generic_string()] = what;
  }
  REQUIRE_FALSE(ec);
  std::string out;
  for (const auto& [rel, what] : entries) out += rel + " " + what + "\n";
  return out;
}

std::string run(const std::string& command) { return test::run_checked(command); }

WheelSpec spec_of(const std::string& name, const std::string& version,
                  std::vector<test::WheelEntry> files) {
  WheelSpec spec;
  spec.name = name;
  spec.version = version;
  spec.files = std::move(files);
  return spec;
}

/// `owner` 1.0: the package folder `owner/` and the module `solo.py`, installed first.
WheelSpec owner_wheel() {
  return spec_of("owner", "1.0",
                 {{"owner/__init__.py", "NAME = 'owner'\n"},
                  {"owner/core.py", "CORE = 1\n"},
                  {"solo.py", "SOLO = 1\n"}});
}

/// A venv with `owner` installed, and a decoy folder beside it that nothing may touch.
struct Env {
  test::TempDir dir;
  std::string venv = dir.file("venv");
  std::string wheels = dir.file("wheels");
  std::string decoy = dir.file("decoy");
  LocalWheelStore store{""};
  lock::LockedFile owner;
  std::string site;

  Env() {
    fs::create_directories(decoy + "/sub");
    std::ofstream(decoy + "/secret.txt") << "keep me\n";
    std::ofstream(decoy + "/sub/evil.py") << "DECOY = 1\n";
    owner = wheel(owner_wheel());
    auto report = sync_lock(lock_of({owner}));
    REQUIRE(report.has_value());
    auto facts = read_interpreter(venv);
    REQUIRE(facts.has_value());
    site = venv + "/" + facts->scheme.purelib;
    REQUIRE(fs::is_directory(site + "/owner"));
  }
  lock::LockedFile wheel(const WheelSpec& spec) {
    return test::locked_file(test::build_wheel(spec, wheels));
  }
  Result<SyncReport> sync_lock(const lock::Lockfile& lockfile, SyncOptions options = {}) {
    options.venv = venv;
    return sync(options, lockfile, live_host(), store);
  }

  /// The refusal contract: the sync fails with `code`, its message holds every `expected`
  /// piece, the venv and the decoy are unchanged, and then a correct sync (owner plus a good
  /// `fine` wheel) installs and imports.
  void expect_refused(const lock::Lockfile& bad, ErrorCode code,
                      std::initializer_list<std::string> expected) {
    const std::string venv_before = tree_digest(venv);
    const std::string decoy_before = tree_digest(decoy);
    auto report = sync_lock(bad);
    REQUIRE_FALSE(report.has_value());
    const std::string text = report.error().to_string();
    INFO(text);
    CHECK(report.error().code == code);
    for (const std::string& piece : expected) CHECK(text.find(piece) != std::string::npos);
    CHECK(tree_digest(venv) == venv_before);
    CHECK(tree_digest(decoy) == decoy_before);
    CHECK_FALSE(fs::exists(venv + "/.wvlock-journal"));

    lock::LockedFile fine = wheel(spec_of("fine", "1.0", {{"fine.py", "FINE = 'ok'\n"}}));
    auto good = sync_lock(lock_of({owner, fine}));
    REQUIRE(good.has_value());
    CHECK(run(venv + "/bin/python -c 'import fine, owner.core, solo; print(fine.FINE)'") == "ok\n");
    CHECK(tree_digest(decoy) == decoy_before);
  }
};

const char* const kIntruder = "`intruder-1.0-py3-none-any.whl`";

}  // namespace

// Class 1: a file where a folder is.

TEST_CASE("hostile: a file over another distribution's package folder is refused",
          "[install][hostile]") {
  Env env;
  lock::LockedFile bad = env.wheel(spec_of("intruder", "1.0", {{"owner", "not a folder\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {str_cat("`owner` of wheel ", kIntruder), "installs a file at `",
                      "/owner` is a folder", "which this sync keeps: it belongs to `owner 1.0`",
                      "never replaces a folder it does not own as a whole",
                      "nothing was changed in"});
}

TEST_CASE("hostile: `.data/data/bin` as a file is refused (the venv's own folder)",
          "[install][hostile]") {
  Env env;
  lock::LockedFile bad =
      env.wheel(spec_of("intruder", "1.0", {{"intruder-1.0.data/data/bin", "#!/bin/sh\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {str_cat("`intruder-1.0.data/data/bin` of wheel ", kIntruder),
                      "installs a file at `bin`", "is a folder (one of the environment's own)"});
  CHECK(fs::exists(env.venv + "/bin/python"));
}

TEST_CASE("hostile: a file over the venv's own files (bin/python, pyvenv.cfg) is refused",
          "[install][hostile]") {
  Env env;
  SECTION("a script named python") {
    lock::LockedFile bad = env.wheel(
        spec_of("intruder", "1.0", {{"intruder-1.0.data/scripts/python", "#!python\n", true}}));
    env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                       {str_cat("`intruder-1.0.data/scripts/python` of wheel ", kIntruder),
                        "would replace `", "/bin/python` (no installed distribution records it)"});
  }
  SECTION("data named pyvenv.cfg") {
    lock::LockedFile bad = env.wheel(
        spec_of("intruder", "1.0", {{"intruder-1.0.data/data/pyvenv.cfg", "home = /tmp\n"}}));
    env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                       {"would replace `", "/pyvenv.cfg` (no installed distribution records it)"});
  }
}

TEST_CASE("hostile: replacing a file of another, kept distribution is refused",
          "[install][hostile]") {
  Env env;
  lock::LockedFile bad =
      env.wheel(spec_of("intruder", "1.0", {{"owner/core.py", "CORE = 'hijacked'\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {str_cat("`owner/core.py` of wheel ", kIntruder), "/owner/core.py` (it belongs to `owner 1.0`)",
                      "only the files of a distribution this sync upgrades or removes"});
}

TEST_CASE("hostile: a file another distribution ships byte for byte is left as it is",
          "[install][hostile]") {
  Env env;
  // As every nvidia-* wheel ships `nvidia/__init__.py`: the second one, synced later, finds it.
  lock::LockedFile first = env.wheel(spec_of("ns_a", "1.0", {{"ns/__init__.py", ""}, {"ns/a.py", "A = 1\n"}}));
  lock::LockedFile second = env.wheel(spec_of("ns_b", "1.0", {{"ns/__init__.py", ""}, {"ns/b.py", "B = 2\n"}}));
  REQUIRE(env.sync_lock(lock_of({env.owner, first})).has_value());
  auto report = env.sync_lock(lock_of({env.owner, first, second}));
  REQUIRE(report.has_value());
  CHECK(run(env.venv + "/bin/python -c 'import ns.a, ns.b; print(ns.a.A + ns.b.B)'") == "3\n");
  std::ifstream record(env.site + "/ns_b-1.0.dist-info/RECORD");
  std::string text((std::istreambuf_iterator<char>(record)), {});
  CHECK(text.find("ns/__init__.py,") != std::string::npos);
  // Different bytes at the same path are still refused.
  lock::LockedFile third = env.wheel(spec_of("ns_c", "1.0", {{"ns/__init__.py", "X = 1\n"}}));
  env.expect_refused(lock_of({env.owner, first, second, third}), ErrorCode::kInvalidInput,
                     {"`ns/__init__.py` of wheel `ns_c-1.0-py3-none-any.whl` would replace `",
                      "(it belongs to `ns-a 1.0`)"});
}

// Class 1, the reverse: a folder where a file is.

TEST_CASE("hostile: a folder over another distribution's module file is refused",
          "[install][hostile]") {
  Env env;
  lock::LockedFile bad =
      env.wheel(spec_of("intruder", "1.0", {{"solo.py/__init__.py", "X = 1\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {str_cat("`solo.py/__init__.py` of wheel ", kIntruder), "/solo.py` is a file, not a folder",
                      "it belongs to `owner 1.0`"});
}

TEST_CASE("hostile: a folder over the venv's pyvenv.cfg is refused", "[install][hostile]") {
  Env env;
  lock::LockedFile bad = env.wheel(
      spec_of("intruder", "1.0", {{"intruder-1.0.data/data/pyvenv.cfg/x", "x\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {"installs `pyvenv.cfg/x`", "/pyvenv.cfg` is a file, not a folder",
                      "no installed distribution records it"});
}

TEST_CASE("hostile: one wheel's file where another wheel of the plan puts a folder",
          "[install][hostile]") {
  Env env;
  lock::LockedFile first = env.wheel(spec_of("first", "1.0", {{"clash", "a file\n"}}));
  lock::LockedFile second =
      env.wheel(spec_of("second", "1.0", {{"clash/inner.py", "INNER = 1\n"}}));
  env.expect_refused(lock_of({env.owner, first, second}), ErrorCode::kInvalidInput,
                     {"`clash` of wheel `first-1.0-py3-none-any.whl` installs a file at `",
                      "`clash/inner.py` of wheel `second-1.0-py3-none-any.whl` installs", "inside it"});
}

// Class 1: symlinks on the way.

TEST_CASE("hostile: a symlinked folder inside the venv is not written through",
          "[install][hostile]") {
  Env env;
  fs::create_directory_symlink("owner", env.site + "/alias");  // inside the venv
  lock::LockedFile bad = env.wheel(spec_of("intruder", "1.0", {{"alias/evil.py", "EVIL = 1\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {str_cat("`alias/evil.py` of wheel ", kIntruder), "through `",
                      "/alias`, a symlink wvlock did not create"});
  CHECK_FALSE(fs::exists(env.site + "/owner/evil.py"));
}

TEST_CASE("hostile: a symlink into a decoy folder outside the venv is refused",
          "[install][hostile]") {
  Env env;
  fs::create_directory_symlink(env.decoy + "/sub", env.site + "/outlink");
  lock::LockedFile bad = env.wheel(spec_of("intruder", "1.0", {{"outlink/evil.py", "EVIL = 2\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {"/outlink` is a symlink leading outside the environment",
                      "refusing to write `"});
}

TEST_CASE("hostile: a symlink the user placed is not replaced", "[install][hostile]") {
  Env env;
  fs::create_symlink(env.decoy + "/secret.txt", env.site + "/thing.py");
  lock::LockedFile bad = env.wheel(spec_of("intruder", "1.0", {{"thing.py", "T = 1\n"}}));
  env.expect_refused(lock_of({env.owner, bad}), ErrorCode::kInvalidInput,
                     {str_cat("`thing.py` of wheel ", kIntruder), "would replace `",
                      "/thing.py` (no installed distribution records it)"});
  CHECK(fs::is_symlink(env.site + "/thing.py"));
}

TEST_CASE("hostile: a RECORD listing another distribution's folder removes only files",
          "[install][hostile]") {
  Env env;
  lock::LockedFile lister = env.wheel(spec_of("lister", "1.0", {{"lister.py", "L = 1\n"}}));
  REQUIRE(env.sync_lock(lock_of({env.owner, lister})).has_value());
  // A RECORD edited (or written by a careless tool) to list `owner/` and the site folder.
  std::ofstream(env.site + "/lister-1.0.dist-info/RECORD", std::ios::app) << "owner/,,\n.,,\n";
  const std::string decoy_before = tree_digest(env.decoy);
  auto report = env.sync_lock(lock_of({env.owner}));  // removes lister
  REQUIRE(report.has_value());
  CHECK(report->plan.count(PlanAction::kRemove) == 1);
  CHECK_FALSE(fs::exists(env.site + "/lister.py"));
  CHECK_FALSE(fs::exists(env.site + "/lister-1.0.dist-info"));
  CHECK(fs::exists(env.site + "/owner/core.py"));
  CHECK(run(env.venv + "/bin/python -c 'import owner.core; print(owner.core.CORE)'") == "1\n");
  CHECK(tree_digest(env.decoy) == decoy_before);
}

TEST_CASE("hostile: an upgrade may turn its own module into a package and back",
          "[install][hostile]") {
  Env env;
  // 1.0 has the module file `shape` (no suffix, a data file), 2.0 a folder there, 3.0 a file.
  lock::LockedFile v1 = env.wheel(spec_of("shape", "1.0", {{"shape", "one\n"}, {"shape.py", "V = 1\n"}}));
  lock::LockedFile v2 = env.wheel(spec_of("shape", "2.0", {{"shape/data.txt", "two\n"},
                                                           {"shape/deep/more.txt", "two\n"},
                                                           {"shape.py", "V = 2\n"}}));
  lock::LockedFile v3 = env.wheel(spec_of("shape", "3.0", {{"shape", "three\n"}, {"shape.py", "V = 3\n"}}));
  REQUIRE(env.sync_lock(lock_of({env.owner, v1})).has_value());
  REQUIRE(env.sync_lock(lock_of({env.owner, v2})).has_value());
  CHECK(fs::is_regular_file(env.site + "/shape/deep/more.txt"));
  const std::string at_two = tree_digest(env.venv);

  SECTION("a failure midway rolls the folder back") {
    RealFileSystem real;
    // 2.0's RECORD lists 9 files: all trashed, the folder removed, one new file placed.
    test::FaultyFileSystem faulty(real, 10);
    SyncOptions options;
    options.file_system = &faulty;
    auto failed = env.sync_lock(lock_of({env.owner, v3}), options);
    REQUIRE_FALSE(failed.has_value());
    CHECK(failed.error().message == "simulated failure after 10 renames");
    CHECK(tree_digest(env.venv) == at_two);
  }
  auto report = env.sync_lock(lock_of({env.owner, v3}));
  REQUIRE(report.has_value());
  std::ifstream in(env.site + "/shape");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text == "three\n");
  CHECK(run(env.venv + "/bin/python -c 'import shape; print(shape.V)'") == "3\n");
}

TEST_CASE("hostile: a folder a user put files into is not replaced by an upgrade",
          "[install][hostile]") {
  Env env;
  lock::LockedFile v2 = env.wheel(spec_of("owner", "2.0", {{"owner", "now a file\n"}, {"solo.py", "SOLO = 2\n"}}));
  std::ofstream(env.site + "/owner/notes.txt") << "mine\n";
  env.expect_refused(lock_of({v2}), ErrorCode::kInvalidInput,
                     {"`owner` of wheel `owner-2.0-py3-none-any.whl` installs a file at `",
                      "it holds `", "owner/notes.txt`, which this sync keeps: no installed "
                      "distribution records it"});
}

// Class 7 at sync: inconsistent name/version.

TEST_CASE("hostile: a lock entry whose version differs from its wheel's is refused",
          "[install][hostile][consistency]") {
  Env env;
  lock::LockedFile gamma = env.wheel(spec_of("gamma", "1.0", {{"gamma.py", "G = 1\n"}}));
  SECTION("version") {
    // The lockfile reader refuses it (lock::validate); sync refuses it too when handed one.
    auto lockfile = lock_of_entries({{"", "", env.owner}, {"gamma", "2.0", gamma}}, false);
    auto valid = lock::validate(lockfile, "test.toml");
    REQUIRE_FALSE(valid.has_value());
    CHECK(valid.error().message.find("is not a wheel of gamma 2.0") != std::string::npos);
    env.expect_refused(lockfile,
                       ErrorCode::kIntegrity,
                       {"inconsistent version: the lock's entry `gamma 2.0` chooses the wheel "
                        "`gamma-1.0-py3-none-any.whl`, which is version `1.0`"});
  }
  SECTION("name") {
    auto lockfile = lock_of_entries({{"", "", env.owner}, {"delta", "1.0", gamma}}, false);
    REQUIRE_FALSE(lock::validate(lockfile, "test.toml").has_value());
    env.expect_refused(lockfile,
                       ErrorCode::kIntegrity,
                       {"inconsistent name: the lock's entry `delta` chooses the wheel "
                        "`gamma-1.0-py3-none-any.whl`, which is named `gamma`"});
  }
}

TEST_CASE("hostile: a fresh venv is not created for an inconsistent lock",
          "[install][hostile][consistency]") {
  test::TempDir dir;
  lock::LockedFile gamma =
      test::locked_file(test::build_wheel(spec_of("gamma", "1.0", {{"gamma.py", "G = 1\n"}}),
                                          dir.file("wheels")));
  LocalWheelStore store("");
  SyncOptions options;
  options.venv = dir.file("venv");
  auto report = sync(options, lock_of_entries({{"gamma", "1.1", gamma}}, false), live_host(), store);
  REQUIRE_FALSE(report.has_value());
  CHECK(report.error().message.find("inconsistent version") != std::string::npos);
  CHECK_FALSE(fs::exists(options.venv));
}

TEST_CASE("hostile: METADATA or the dist-info folder disagreeing with the file name",
          "[install][hostile][consistency]") {
  Env env;
  WheelSpec gamma = spec_of("gamma", "1.0", {{"gamma.py", "G = 1\n"}});
  std::string expected;
  SECTION("METADATA Version") {
    gamma.metadata = "Metadata-Version: 2.1\nName: gamma\nVersion: 2.0\n\n";
    expected = "wheel `gamma-1.0-py3-none-any.whl` has inconsistent version: the file name says "
               "`1.0`, METADATA says `2.0`";
  }
  SECTION("METADATA Name") {
    gamma.metadata = "Metadata-Version: 2.1\r\nName: Delta\r\nVersion: 1.0\r\n\r\n";
    expected = "wheel `gamma-1.0-py3-none-any.whl` has inconsistent name: the file name says "
               "`gamma`, METADATA says `Delta`";
  }
  SECTION("METADATA without Version") {
    gamma.metadata = "Metadata-Version: 2.1\nName: gamma\n\nVersion: 1.0\n";  // in the body
    expected = "`gamma-1.0.dist-info/METADATA` has no Version field";
  }
  SECTION("the dist-info folder's version") {
    gamma.dist_info_stem = "gamma-2.0";
    expected = "has inconsistent version: the file name says `1.0`, its folder "
               "`gamma-2.0.dist-info` says `2.0`";
  }
  lock::LockedFile bad = env.wheel(gamma);
  const ErrorCode code = expected.find("no Version") != std::string::npos
                             ? ErrorCode::kInvalidInput
                             : ErrorCode::kIntegrity;
  env.expect_refused(lock_of({env.owner, bad}), code, {expected});
}

TEST_CASE("hostile: equal versions in another spelling are consistent",
          "[install][hostile][consistency]") {
  Env env;
  WheelSpec gamma = spec_of("gamma", "1.0", {{"gamma.py", "G = 1\n"}});
  gamma.metadata = "Metadata-Version: 2.1\nName: Gamma\nVersion: 1.0.0\n\n";
  lock::LockedFile file = env.wheel(gamma);
  auto report = env.sync_lock(lock_of_entries({{"", "", env.owner}, {"gamma", "1.00", file}}));
  REQUIRE(report.has_value());
  CHECK(run(env.venv + "/bin/python -c 'import gamma; print(gamma.G)'") == "1\n");
}

TEST_CASE("hostile: one distribution twice in a plan is refused", "[install][hostile][consistency]") {
  Env env;
  lock::LockedFile one = env.wheel(spec_of("gamma", "1.0", {{"gamma.py", "G = 1\n"}}));
  lock::LockedFile two = env.wheel(spec_of("gamma", "2.0", {{"gamma.py", "G = 2\n"}}));
  env.expect_refused(
      lock_of_entries({{"", "", env.owner}, {"", "", one}, {"", "", two}}, /*validated=*/false),
      ErrorCode::kInvalidInput,
      {"the plan for target `cpu` installs the distribution `gamma` twice (`gamma 1.0` and "
       "`gamma 2.0`)"});
}

}  // namespace wv::install
