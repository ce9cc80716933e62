// A target declared with several Pythons is one locked target per Python (`cpu-py3.11`,
// `cpu-py3.12`); each records the name it was declared with as `declared-name`, which the
// reader gives back, and a target of one Python writes none (its lock's bytes do not change).
#include <catch2/catch.hpp>

#include "tests/support/package_name.h"
#include "lock/lockfile.h"

namespace {

using wv::lock::LockedPackage;
using wv::lock::LockedTarget;
using wv::lock::Lockfile;

LockedTarget pair(const std::string& python, const std::string& declared_name) {
  const std::string name = declared_name.empty() ? "cpu" : declared_name + "-py" + python;
  LockedTarget target{.name = name,
                      .marker = "platform_machine == \"x86_64\" and python_version == \"" +
                                python + "\" and sys_platform == \"linux\""};
  target.declared = *wv::targets::target_from_facts(
      name, {{"platform", "linux-x86_64"}, {"glibc", "2.28"}, {"python", python}});
  target.declared.declared_name = declared_name;
  target.roots = {"six==1.17.0"};
  return target;
}

Lockfile lock_of(std::vector<LockedTarget> targets) {
  Lockfile lockfile;
  lockfile.requires_python = ">=3.10";
  lockfile.input_hash = "xxh3-128:00112233445566778899aabbccddeeff";
  LockedPackage six{.name = "six"_pkg, .version = "1.17.0", .index = "https://example.org/simple"};
  six.wheels.push_back({.name = "six-1.17.0-py2.py3-none-any.whl",
                        .url = "https://example.org/f/six-1.17.0-py2.py3-none-any.whl",
                        .size = 11, .sha256 = std::string(64, 'a')});
  for (const LockedTarget& target : targets) {
    six.targets[target.name] = {{"six-1.17.0-py2.py3-none-any.whl"}, {}};
    lockfile.environments.push_back(target.marker);
  }
  lockfile.packages = {six};
  lockfile.targets = std::move(targets);
  return lockfile;
}

}  // namespace

TEST_CASE("lockfile: (target, Python) pairs keep their declared name", "[lock][lockfile][python_pairs]") {
  Lockfile lockfile = lock_of({pair("3.11", "cpu"), pair("3.12", "cpu")});
  const std::string text = wv::lock::write_lockfile(lockfile);
  CHECK(text.find("[[tool.wvlock.target]]\nname = \"cpu-py3.11\"\ndeclared-name = \"cpu\"\n") !=
        std::string::npos);
  // A name with a dot is a quoted TOML key.
  CHECK(text.find("[packages.tool.wvlock.targets.\"cpu-py3.12\"]") != std::string::npos);
  CHECK(text.find("python = \"3.12\"") != std::string::npos);  // the pair's Python fact
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  REQUIRE(read);
  REQUIRE(read->find_target("cpu-py3.12") != nullptr);
  CHECK(read->find_target("cpu-py3.12")->declared.declared_name == "cpu");
  CHECK(*read->find_target("cpu-py3.11")->declared.profile.python_version.value ==
        wv::targets::MajorMinor{3, 11});
  CHECK(wv::lock::write_lockfile(*read) == text);

  std::string bad = text;
  bad.replace(bad.find("declared-name = \"cpu\""), 21, "declared-name = \"a b\"");
  auto refused = wv::lock::read_lockfile(bad, "pylock.toml");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("invalid target name `a b`") != std::string::npos);
}

TEST_CASE("lockfile: a target of one Python writes no declared name", "[lock][lockfile][python_pairs]") {
  const std::string text = wv::lock::write_lockfile(lock_of({pair("3.11", "")}));
  CHECK(text.find("declared-name") == std::string::npos);
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  REQUIRE(read);
  CHECK(read->find_target("cpu")->declared.declared_name.empty());
}
