// PEP 751's installation rules on hand-written locks without targets (install/standard_select.h).
#include <catch2/catch.hpp>

#include "tests/support/package_name.h"
#include "src/install/standard_select.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::install {
namespace {

using targets::FactSource;
using targets::HostProfile;

HostProfile linux_host(targets::MajorMinor python = {3, 12}) {
  HostProfile host;
  host.os.set(targets::OsKind::kLinux, FactSource::kUname);
  host.arch.set("x86_64", FactSource::kUname);
  host.libc.set(targets::LibcKind::kGlibc, FactSource::kLibc);
  host.libc_version.set({2, 35}, FactSource::kLibc);
  host.python_version.set(python, FactSource::kDeclared);
  host.x86_64_level.set(3, FactSource::kCpuid);
  return host;
}

std::string wheel(const std::string& name) {
  return "{ name = \"" + name + "\", url = \"https://example.org/" + name +
         "\", hashes = { sha256 = \"" + std::string(64, 'a') + "\" } }";
}

lock::Lockfile read(const std::string& body, const std::string& head = "") {
  auto lockfile = lock::read_lockfile("lock-version = \"1.0\"\ncreated-by = \"test\"\n" + head + body,
                                      "pylock.toml");
  INFO((lockfile ? "" : lockfile.error().message));
  REQUIRE(lockfile);
  REQUIRE(is_standard_lock(*lockfile));
  return std::move(*lockfile);
}

// "name file" per chosen package ("name build" for one built from source).
std::vector<std::string> chosen(const TargetChoice& selection) {
  std::vector<std::string> out;
  for (const ChosenWheel& wheel : selection.wheels) {
    out.push_back(wheel.package->name.str() + " " + (wheel.file ? wheel.file->name : "build"));
  }
  return out;
}

const char* kNumpy =
    "[[packages]]\nname = \"numpy\"\nversion = \"2.3.3\"\nwheels = [\n";

}  // namespace

TEST_CASE("standard select: the best tag wins, else the sdist, else a selection failure",
          "[install][standard]") {
  lock::Lockfile lockfile = read(
      std::string(kNumpy) + wheel("numpy-2.3.3-cp312-cp312-manylinux_2_17_x86_64.whl") + ",\n" +
      wheel("numpy-2.3.3-cp312-cp312-manylinux_2_28_x86_64.whl") + ",\n" +
      wheel("numpy-2.3.3-cp312-cp312-macosx_14_0_arm64.whl") + ",\n" +
      wheel("numpy-2.3.3-cp312-cp312-win_amd64.whl") + "]\n"
      "sdist = " + wheel("numpy-2.3.3.tar.gz") + "\n");
  auto selection = select_standard(lockfile, linux_host(), {});
  REQUIRE(selection);
  CHECK(chosen(*selection) ==
        std::vector<std::string>{"numpy numpy-2.3.3-cp312-cp312-manylinux_2_28_x86_64.whl"});
  // Another Python: no wheel fits, the sdist is built.
  selection = select_standard(lockfile, linux_host({3, 11}), {});
  REQUIRE(selection);
  CHECK(chosen(*selection) == std::vector<std::string>{"numpy build"});
  lockfile.packages.front().sdist.reset();
  auto refused = select_standard(lockfile, linux_host({3, 11}), {});
  REQUIRE(!refused);
  CHECK(refused.error().code == ErrorCode::kUnavailable);
  CHECK(refused.error().message.find("no wheel of numpy 2.3.3 at packages[0]") != std::string::npos);
}

TEST_CASE("standard select: markers see the extras and dependency groups as sets; the default "
          "groups apply unless other groups are given", "[install][standard]") {
  lock::Lockfile lockfile = read(
      "[[packages]]\nname = \"a\"\nversion = \"1\"\nwheels = [" + wheel("a-1-py3-none-any.whl") + "]\n"
      "[[packages]]\nname = \"b\"\nversion = \"1\"\nmarker = \"'x' in extras\"\nwheels = [" +
          wheel("b-1-py3-none-any.whl") + "]\n"
      "[[packages]]\nname = \"c\"\nversion = \"1\"\nmarker = \"'dev' in dependency_groups and "
      "sys_platform == 'linux'\"\nwheels = [" + wheel("c-1-py3-none-any.whl") + "]\n"
      "[[packages]]\nname = \"d\"\nversion = \"1\"\nmarker = \"'default' in dependency_groups\"\n"
      "wheels = [" + wheel("d-1-py3-none-any.whl") + "]\n"
      "[[packages]]\nname = \"e\"\nversion = \"1\"\nmarker = \"sys_platform == 'win32'\"\nwheels = [" +
          wheel("e-1-py3-none-any.whl") + "]\n"
      "[[packages.tool.other]]\nanything = 1\n",
      "extras = [\"x\"]\ndependency-groups = [\"dev\"]\ndefault-groups = [\"default\"]\n");
  auto names = [&](const InstallRequest& request) {
    SelectOptions options;
    REQUIRE(apply_install_request(lockfile, request, options));
    auto selection = select_standard(lockfile, linux_host(), options);
    REQUIRE(selection);
    std::string out;
    for (const ChosenWheel& wheel : selection->wheels) out += wheel.package->name.str();
    return out;
  };
  CHECK(names({}) == "ad");
  InstallRequest extra;
  extra.extras = {"x"_pkg};
  CHECK(names(extra) == "abd");
  InstallRequest dev;
  dev.groups = {"dev"_pkg};
  CHECK(names(dev) == "acd");
  InstallRequest none;
  none.no_default_groups = true;
  CHECK(names(none) == "a");
  // A default group that `dependency-groups` does not list (as PEP 751 advises) can be named.
  InstallRequest named;
  named.no_default_groups = true;
  named.groups = {"default"_pkg};
  CHECK(names(named) == "ad");
}

TEST_CASE("standard select: requires-python and environments exclude an interpreter (exit 1); two "
          "entries of one name are an error naming both (exit 2)", "[install][standard]") {
  const std::string a = "[[packages]]\nname = \"a\"\nversion = \"1\"\nwheels = [" +
                        wheel("a-1-py3-none-any.whl") + "]\n";
  auto old = select_standard(read(a, "requires-python = \">=3.13\"\n"), linux_host(), {});
  REQUIRE(!old);
  CHECK(old.error().code == ErrorCode::kUnavailable);
  CHECK(old.error().message.find("Python 3.12.0 does not satisfy the lock's `requires-python = "
                                 "\">=3.13\"`") != std::string::npos);
  auto elsewhere = select_standard(
      read(a, "environments = [\"sys_platform == 'darwin'\", \"sys_platform == 'win32'\"]\n"),
      linux_host(), {});
  REQUIRE(!elsewhere);
  CHECK(elsewhere.error().code == ErrorCode::kUnavailable);
  CHECK(elsewhere.error().message.find("satisfies none of the lock's `environments`") != std::string::npos);
  auto fits = select_standard(read(a, "environments = [\"sys_platform == 'win32'\", "
                                      "\"sys_platform == 'linux'\"]\n"),
                              linux_host(), {});
  CHECK(fits);
  auto package_python = select_standard(
      read("[[packages]]\nname = \"a\"\nversion = \"1\"\nrequires-python = \"<3\"\nwheels = [" +
           wheel("a-1-py3-none-any.whl") + "]\n"),
      linux_host(), {});
  REQUIRE(!package_python);
  CHECK(package_python.error().message.find("package `a` at packages[0]") != std::string::npos);

  const std::string twice =
      a + "[[packages]]\nname = \"a\"\nversion = \"2\"\nmarker = \"os_name == 'posix'\"\nwheels = [" +
      wheel("a-2-py3-none-any.whl") + "]\n";
  auto ambiguous = select_standard(read(twice), linux_host(), {});
  REQUIRE(!ambiguous);
  CHECK(ambiguous.error().code == ErrorCode::kInvalidInput);
  CHECK(ambiguous.error().message.find("two entries of `a` are selected for this environment: a 1 "
                                       "at packages[0] (line 3) and a 2 at packages[1]") !=
        std::string::npos);
  // Exclusive markers narrow them down to one.
  // (The selection points into the lock: it must outlive it.)
  const lock::Lockfile narrowed =
      read(a + "[[packages]]\nname = \"a\"\nversion = \"2\"\nmarker = \"os_name == 'nt'\"\n"
               "wheels = [" + wheel("a-2-py3-none-any.whl") + "]\n");
  auto exclusive = select_standard(narrowed, linux_host(), {});
  REQUIRE(exclusive);
  CHECK(chosen(*exclusive) == std::vector<std::string>{"a a-1-py3-none-any.whl"});
}

TEST_CASE("standard select: another tool's source trees read as PEP 751 writes them, and bad "
          "locks are bad input", "[install][standard]") {
  // uv's project entry: a directory with no version; one with a version (packaging accepts it).
  lock::Lockfile lockfile = read(
      "[[packages]]\nname = \"project\"\ndirectory = { path = \".\", editable = true }\n"
      "[[packages]]\nname = \"lib\"\nversion = \"1.0\"\ndirectory = { path = \"lib\" }\n");
  auto selection = select_standard(lockfile, linux_host(), {});
  REQUIRE(selection);
  CHECK(chosen(*selection) == std::vector<std::string>{"lib build", "project build"});

  auto bad = [](const std::string& text) {
    auto refused = lock::read_lockfile(text, "pylock.toml");
    REQUIRE(!refused);
    CHECK(refused.error().code == ErrorCode::kInvalidInput);
    return refused.error().message;
  };
  CHECK(bad("lock-version = \"2.0\"\ncreated-by = \"x\"\npackages = []\n")
            .find("lock-version `2.0` is not supported") != std::string::npos);
  CHECK(bad("lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nname = \"a\"\nversion = \"1\"\n"
            "wheels = [{ name = \"a-1-py3-none-any.whl\", url = \"https://x/a-1-py3-none-any.whl\" }]\n")
            .find("`hashes` is required") != std::string::npos);
  CHECK(bad("lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nname = \"a\"\nversion = \"1\"\n"
            "marker = \"sys_platform = 'linux'\"\nwheels = [" + wheel("a-1-py3-none-any.whl") + "]\n")
            .find("`marker`") != std::string::npos);
}

}  // namespace wv::install
