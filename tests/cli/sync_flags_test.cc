// `wvlock sync` and `wvlock targets` with uv's flags, end to end in real venvs on a small
// project of the fixture ecosystem: default groups, each group and extra flag's effect on what
// is installed, `--inexact`, downgrades counted as such, `--python` (a version found by asking
// interpreters, a venv of another Python recreated, a refused one left as it was), no new
// `.venv` after a failed sync, one target table, and both `--json` shapes.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;

using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

using wv::test::kNoGpu;

// `M.m` of the test interpreter (/usr/bin/python3): the Python the project's targets are for.
std::string python_minor() { return wv::test::test_python_minor(); }

// A minor version no target is for: one above the test interpreter's.
std::string other_minor() {
  const std::string minor = python_minor();
  const std::size_t dot = minor.find('.');
  return minor.substr(0, dot + 1) + std::to_string(std::stoi(minor.substr(dot + 1)) + 1);
}

// Two targets for this host that differ only in the extra they lock: `cpu` (declared first,
// so selected) and `cpu-socks`.
std::string project(const std::string& tool_lines = "",
                    const std::string& requests = "requests>=2.32") {
  return "[project]\nname = \"flags\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n"
         "dependencies = [\"" + requests + "\"]\n\n"
         "[project.optional-dependencies]\nsocks = [\"pysocks>=1.7\"]\n\n"
         "[dependency-groups]\ndev = [\"pytest>=8\"]\nlint = [\"ruff>=0.13\"]\n"
         "docs = [\"colorama>=0.4\"]\n\n"
         "[tool.wvlock]\npython = \"" + python_minor() + "\"\nindex-url = \"../generated/simple\"\n" +
         tool_lines +
         "\n[[tool.wvlock.target]]\nname = \"cpu\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
         "\n[[tool.wvlock.target]]\nname = \"cpu-socks\"\nplatform = \"linux-x86_64\"\n"
         "glibc = \"2.28\"\nextras = [\"socks\"]\n";
}

struct Flags : wv::test::ProjectCopy {
  std::string venv;
  explicit Flags(const std::string& pyproject = project()) : ProjectCopy("flags", pyproject) {
    venv = dir + "/.venv";
    Run lock = wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
  }
  Run sync(const std::string& arguments) const {
    return wvlock(kNoGpu, "sync " + arguments);
  }
  // The environment's distributions, `name==version` sorted, one a line.
  std::string installed() const {
    return python(venv, "import importlib.metadata as m\n"
                        "print('\\n'.join(sorted(d.metadata['Name'].lower() + '==' + d.version "
                        "for d in m.distributions())))\n");
  }
  bool has(const std::string& name) const {
    const std::string listing = "\n" + installed();
    return listing.find("\n" + name + "==") != std::string::npos;
  }
  std::string site() const {
    return venv + "/lib/python" + python_minor() + "/site-packages";
  }
};

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

// A folder holding `python<minor>`: /usr/bin/python3 reporting another version to whoever asks
// it (wvlock's one question to an interpreter prints `key=value` lines). It stands for an
// interpreter of another Python on a machine that may have only one.
std::string fake_python(const std::string& folder, const std::string& minor) {
  fs::create_directories(folder);
  const std::string path = folder + "/python" + minor;
  std::ofstream(path) << "#!/bin/sh\n'" WV_TEST_PYTHON "' \"$@\" | sed -e 's/^version=.*/version="
                      << minor << ".0/' -e 's/^python_version=.*/python_version=" << minor
                      << "/' -e 's/^python_full_version=.*/python_full_version=" << minor
                      << ".0/' -e 's|^base_executable=.*|base_executable=" << path << "|'\n";
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  return path;
}

}  // namespace

TEST_CASE("cli sync flags: the lock records default-groups and sync installs them",
          "[cli][sync][flags]") {
  SECTION("absent: dev") {
    Flags flags;
    CHECK(flags.lockfile().find("default-groups = [\"dev\"]\n") != std::string::npos);
    Run sync = flags.sync("--python '" WV_TEST_PYTHON "'");
    INFO(sync.out << sync.err);
    REQUIRE(sync.status == 0);
    CHECK(flags.has("pytest"));
    CHECK(flags.has("requests"));
    CHECK_FALSE(flags.has("ruff"));
  }
  SECTION("a list") {
    Flags flags(project("default-groups = [\"lint\", \"docs\"]\n"));
    CHECK(flags.lockfile().find("default-groups = [\n  \"docs\",\n  \"lint\",\n]\n") !=
          std::string::npos);
    REQUIRE(flags.sync("").status == 0);
    CHECK(flags.has("ruff"));
    CHECK(flags.has("colorama"));
    CHECK_FALSE(flags.has("pytest"));
  }
  SECTION("all") {
    Flags flags(project("default-groups = \"all\"\n"));
    REQUIRE(flags.sync("").status == 0);
    CHECK(flags.has("ruff"));
    CHECK(flags.has("colorama"));
    CHECK(flags.has("pytest"));
  }
  SECTION("a group the project does not declare") {
    wv::test::ProjectCopy copy("flags", project("default-groups = [\"test\"]\n"));
    Run lock = copy.wvlock("", "lock");
    CHECK(lock.status == 2);
    CHECK(lock.err.find("`tool.wvlock.default-groups` names group `test`, which "
                        "`[dependency-groups]` does not declare: declared groups are `dev`, "
                        "`docs`, `lint`") != std::string::npos);
  }
}

TEST_CASE("cli sync flags: each group flag changes what the environment holds",
          "[cli][sync][flags]") {
  Flags flags;
  REQUIRE(flags.sync("--python '" WV_TEST_PYTHON "'").status == 0);
  REQUIRE(flags.has("pytest"));

  Run no_dev = flags.sync("--no-dev");
  INFO(no_dev.out << no_dev.err);
  REQUIRE(no_dev.status == 0);
  CHECK(no_dev.out.find("  - pytest ") != std::string::npos);
  CHECK_FALSE(flags.has("pytest"));
  CHECK(flags.has("requests"));

  REQUIRE(flags.sync("--group lint").status == 0);
  CHECK(flags.has("pytest"));
  CHECK(flags.has("ruff"));

  REQUIRE(flags.sync("--no-default-groups --group docs").status == 0);
  CHECK_FALSE(flags.has("pytest"));
  CHECK_FALSE(flags.has("ruff"));
  CHECK(flags.has("colorama"));

  REQUIRE(flags.sync("--all-groups --no-group lint").status == 0);
  CHECK(flags.has("pytest"));
  CHECK(flags.has("colorama"));
  CHECK_FALSE(flags.has("ruff"));

  // Only the group: not the project's dependencies.
  Run only = flags.sync("--only-group lint");
  INFO(only.out << only.err);
  REQUIRE(only.status == 0);
  CHECK(flags.installed() == "ruff==0.14.0\n");

  Run unknown = flags.sync("--group nosuch");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("`--group nosuch`: the project declares no dependency group `nosuch`; it "
                         "declares `dev`, `docs`, `lint`") != std::string::npos);
  CHECK(flags.installed() == "ruff==0.14.0\n");
}

TEST_CASE("cli sync flags: --only-group leaves out the project itself", "[cli][sync][flags]") {
  const std::string text = project() + "\n[build-system]\nrequires = [\"setuptools>=61\"]\n"
                                       "build-backend = \"setuptools.build_meta\"\n";
  Flags flags(text);
  Run planned = flags.sync("--dry-run --python '" WV_TEST_PYTHON "'");
  INFO(planned.out << planned.err);
  REQUIRE(planned.status == 0);
  CHECK(planned.out.find("  + flags 0.1.0") != std::string::npos);
  // Installing the group alone builds nothing: the project is not installed.
  Run only = flags.sync("--only-group docs --python '" WV_TEST_PYTHON "'");
  INFO(only.out << only.err);
  REQUIRE(only.status == 0);
  CHECK(only.out.find("+ flags") == std::string::npos);
  CHECK(flags.installed() == "colorama==0.4.6\n");
}

TEST_CASE("cli sync flags: extras are the selected target's, and a wrong one is named",
          "[cli][sync][flags]") {
  Flags flags;
  Run nosuch = flags.sync("--extra nosuch --python '" WV_TEST_PYTHON "'");
  CHECK(nosuch.status == 2);
  CHECK(nosuch.err.find("`--extra nosuch`: the project declares no extra `nosuch`; it declares "
                        "`socks`") != std::string::npos);
  CHECK_FALSE(fs::exists(flags.venv));

  // cpu is selected and locks no extra; cpu-socks does.
  Run other = flags.sync("--extra socks --python '" WV_TEST_PYTHON "'");
  CHECK(other.status == 2);
  CHECK(other.err.find("`--extra socks`: the selected target `cpu` locks no extra `socks`; its "
                       "extras are none") != std::string::npos);
  CHECK(other.err.find("extra `socks` is locked by cpu-socks") != std::string::npos);
  CHECK_FALSE(fs::exists(flags.venv));

  Run socks = flags.sync("--target cpu-socks --extra socks --python '" WV_TEST_PYTHON "'");
  INFO(socks.out << socks.err);
  REQUIRE(socks.status == 0);
  CHECK(flags.has("pysocks"));
  REQUIRE(flags.sync("--all-extras").status == 0);
  CHECK_FALSE(flags.has("pysocks"));  // cpu, selected again, locks none
}

TEST_CASE("cli sync flags: --inexact keeps a hand-installed package, a plain sync removes it",
          "[cli][sync][flags]") {
  Flags flags;
  REQUIRE(flags.sync("--python '" WV_TEST_PYTHON "'").status == 0);
  // A distribution another installer put there, with its RECORD.
  const std::string info = flags.site() + "/handmade-1.0.dist-info";
  fs::create_directories(info);
  std::ofstream(flags.site() + "/handmade.py") << "VALUE = 1\n";
  std::ofstream(info + "/METADATA") << "Metadata-Version: 2.1\nName: handmade\nVersion: 1.0\n";
  std::ofstream(info + "/INSTALLER") << "pip\n";
  std::ofstream(info + "/RECORD") << "handmade.py,,\nhandmade-1.0.dist-info/METADATA,,\n"
                                     "handmade-1.0.dist-info/INSTALLER,,\n"
                                     "handmade-1.0.dist-info/RECORD,,\n";
  Run kept = flags.sync("--inexact");
  INFO(kept.out << kept.err);
  REQUIRE(kept.status == 0);
  CHECK(kept.out.find("  = handmade 1.0 (not in the lock; kept: --inexact)\n") != std::string::npos);
  CHECK(kept.out.find("0 removed") != std::string::npos);
  CHECK(kept.out.find("(1 not in the lock: --inexact)") != std::string::npos);
  CHECK(flags.has("handmade"));
  CHECK(fs::exists(flags.site() + "/handmade.py"));

  Run exact = flags.sync("");
  REQUIRE(exact.status == 0);
  CHECK(exact.out.find("  - handmade 1.0\n") != std::string::npos);
  CHECK_FALSE(flags.has("handmade"));
  CHECK_FALSE(fs::exists(flags.site() + "/handmade.py"));
}

TEST_CASE("cli sync flags: a downgrade is counted and shown as one", "[cli][sync][flags]") {
  Flags flags;
  REQUIRE(flags.sync("--python '" WV_TEST_PYTHON "'").status == 0);
  REQUIRE(flags.has("requests"));
  CHECK(flags.installed().find("requests==2.32.5\n") != std::string::npos);
  std::ofstream(flags.dir + "/pyproject.toml") << project("", "requests==2.32.0");
  REQUIRE(flags.wvlock("", "lock").status == 0);
  Run planned = flags.sync("--dry-run --json");
  REQUIRE(planned.status == 0);
  const nlohmann::json plan = nlohmann::json::parse(planned.out);
  bool seen = false;
  for (const auto& package : plan["packages"]) {
    if (package["name"] != "requests") continue;
    seen = true;
    CHECK(package["action"] == "downgrade");
    CHECK(package["from"] == "2.32.5");
    CHECK(package["to"] == "2.32.0");
    CHECK(package["wheel"] == "requests-2.32.0-py3-none-any.whl");
  }
  CHECK(seen);
  Run down = flags.sync("");
  INFO(down.out << down.err);
  REQUIRE(down.status == 0);
  CHECK(down.out.find("  ~ requests 2.32.5 -> 2.32.0 (downgrade, requests-2.32.0-py3-none-any.whl)\n") !=
        std::string::npos);
  CHECK(down.out.find("packages: 0 installed, 0 upgraded, 1 downgraded, 0 reinstalled, 0 removed, ") !=
        std::string::npos);
  CHECK(flags.installed().find("requests==2.32.0\n") != std::string::npos);
}

TEST_CASE("cli sync flags: --python takes a version and recreates a venv of another Python",
          "[cli][sync][flags][python]") {
  Flags flags;
  const std::string minor = python_minor();
  SECTION("a version request finds the interpreter") {
    Run sync = flags.sync("--python " + minor);
    INFO(sync.out << sync.err);
    REQUIRE(sync.status == 0);
    CHECK(sync.out.find("  environment: created with Python " + minor + ".") != std::string::npos);
    CHECK(flags.has("requests"));
    Run none = flags.sync("--python 2.1");
    CHECK(none.status == 2);
    CHECK(none.err.find("no Python 2.1 found for `--python 2.1`") != std::string::npos);
  }
  SECTION("a venv whose interpreter reports another version is recreated") {
    // The machine may have one Python only, so the "other" venv is one whose bin/python
    // reports another version (a wrapper around the same interpreter): what this shows is
    // that a venv that does not meet `--python` is replaced, and kept without `--python`.
    REQUIRE(flags.sync("--python '" WV_TEST_PYTHON "'").status == 0);
    const std::string wrapper = fake_python(flags.tmp.path() + "/fake", other_minor());
    fs::remove(flags.venv + "/bin/python");
    fs::copy_file(wrapper, flags.venv + "/bin/python");
    std::ofstream(flags.venv + "/marker") << "the old environment\n";

    Run kept = flags.sync("");  // without --python the venv is used as it is: it fits no target
    INFO(kept.out << kept.err);
    CHECK(kept.status == 1);
    CHECK(kept.err.find("python " + other_minor()) != std::string::npos);
    CHECK(fs::exists(flags.venv + "/marker"));

    Run recreated = flags.sync("--python " + minor);
    INFO(recreated.out << recreated.err);
    REQUIRE(recreated.status == 0);
    CHECK(recreated.out.find("  environment: recreated with Python " + minor + ".") !=
          std::string::npos);
    CHECK(recreated.out.find("replacing Python " + other_minor() + ".0") != std::string::npos);
    CHECK_FALSE(fs::exists(flags.venv + "/marker"));
    CHECK(slurp(flags.venv + "/pyvenv.cfg").find("version = " + minor + ".") != std::string::npos);
    CHECK(flags.has("requests"));
    CHECK(flags.has("pytest"));
    // Nothing left beside it.
    for (const auto& entry : fs::directory_iterator(flags.dir)) {
      CHECK(entry.path().filename().string().find(".wvlock-swap") == std::string::npos);
    }
    Run again = flags.sync("--python " + minor);
    CHECK(again.out.find("environment:") == std::string::npos);
    CHECK(again.out.find("0 installed") != std::string::npos);
  }
  SECTION("a Python no target is for: the existing venv stays as it was") {
    REQUIRE(flags.sync("--python '" WV_TEST_PYTHON "'").status == 0);
    const std::string before = flags.installed();
    std::ofstream(flags.venv + "/marker") << "the old environment\n";
    const std::string fake = flags.tmp.path() + "/fake";
    fake_python(fake, other_minor());
    Run refused = flags.wvlock(kNoGpu + "PATH='" + fake + "':\"$PATH\"",
                               "sync --python " + other_minor());
    INFO(refused.out << refused.err);
    CHECK(refused.status == 1);
    CHECK(refused.err.find("no target of the lock fits this host") != std::string::npos);
    CHECK(fs::exists(flags.venv + "/marker"));
    CHECK(flags.installed() == before);
  }
}

TEST_CASE("cli sync flags: a failed sync leaves no new .venv and prints one table",
          "[cli][sync][flags]") {
  Flags flags;
  const std::string fake = flags.tmp.path() + "/fake";
  fake_python(fake, other_minor());
  const std::string path = kNoGpu + "PATH='" + fake + "':\"$PATH\" ";

  SECTION("no target fits the interpreter") {
    Run refused = flags.wvlock(path, "sync --python " + other_minor());
    INFO(refused.err);
    CHECK(refused.status == 1);
    CHECK_FALSE(fs::exists(flags.venv));
    CHECK(occurrences(refused.err, "TARGET") == 1);
    CHECK(occurrences(refused.err, "host: ") == 1);
    CHECK(refused.err.find("python " + other_minor()) != std::string::npos);
    CHECK(refused.err.find("unknown") == std::string::npos);
    CHECK(refused.out.empty());
  }
  SECTION("a refused --target") {
    Run refused = flags.wvlock(path, "sync --target cpu-socks --python " + other_minor());
    CHECK(refused.status == 1);
    CHECK_FALSE(fs::exists(flags.venv));
    CHECK(occurrences(refused.err, "TARGET") == 1);
  }
  SECTION("another sync holds the environment") {
    // A folder another sync is creating: it holds the lock and nothing else yet.
    fs::create_directories(flags.venv);
    const std::string holder = flags.dir + "/hold.py";
    std::ofstream(holder) << "import fcntl, os, sys, time\n"
                             "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
                             "fcntl.flock(fd, fcntl.LOCK_EX)\n"
                             "open(sys.argv[2], 'w').close()\n"
                             "time.sleep(30)\n";
    shell(flags.dir, "('" WV_TEST_PYTHON "' hold.py .venv/.wvlock.lock held & echo $! > holder.pid)");
    for (int i = 0; i < 100 && !fs::exists(flags.dir + "/held"); ++i) shell(flags.dir, "sleep 0.1");
    REQUIRE(fs::exists(flags.dir + "/held"));
    Run busy = flags.sync("--python '" WV_TEST_PYTHON "'");
    shell(flags.dir, "kill $(cat holder.pid)");
    INFO(busy.err);
    CHECK(busy.status == 1);
    CHECK(busy.err.find("another `wvlock sync` is changing") != std::string::npos);
    CHECK(busy.err.find("TARGET") == std::string::npos);
    CHECK(busy.err.find("host: ") == std::string::npos);
    CHECK_FALSE(fs::exists(flags.venv + "/pyvenv.cfg"));
    CHECK_FALSE(fs::exists(flags.venv + "/bin"));
  }
}

TEST_CASE("cli sync flags: sync --json and targets --json", "[cli][sync][flags][json]") {
  Flags flags;
  SECTION("a plan") {
    Run planned = flags.sync("--dry-run --json --python '" WV_TEST_PYTHON "'");
    INFO(planned.err);
    REQUIRE(planned.status == 0);
    const nlohmann::ordered_json plan = nlohmann::ordered_json::parse(planned.out);
    CHECK(plan.begin().key() == "version");
    CHECK(plan["version"] == 1);
    CHECK(plan["dry_run"] == true);
    CHECK(plan["target"]["name"] == "cpu");
    CHECK(plan["target"]["reason"].is_string());
    CHECK(fs::weakly_canonical(plan["venv"]["path"].get<std::string>()) ==
          fs::weakly_canonical(flags.venv));
    CHECK(plan["venv"]["change"] == "created");
    CHECK(plan["python"]["version"].get<std::string>().rfind(python_minor() + ".", 0) == 0);
    CHECK(plan["groups"] == nlohmann::ordered_json::array({"dev"}));
    CHECK(plan["error"].is_null());
    bool requests = false;
    for (const auto& package : plan["packages"]) {
      CHECK(package["action"] == "install");
      CHECK(package["from"].is_null());
      if (package["name"] == "requests") {
        requests = true;
        CHECK(package["to"] == "2.32.5");
        CHECK(package["wheel"] == "requests-2.32.5-py3-none-any.whl");
      }
    }
    CHECK(requests);
    CHECK_FALSE(fs::exists(flags.venv));

    Run synced = flags.sync("--json");
    REQUIRE(synced.status == 0);
    const nlohmann::json done = nlohmann::json::parse(synced.out);
    CHECK(done["dry_run"] == false);
    CHECK(done["packages"].size() == plan["packages"].size());
    // Every wheel extracted into the project copy's fresh cache, then placed from it.
    CHECK(done["install"]["cache_hits"] == 0);
    CHECK(done["install"]["extracted"] == plan["packages"].size());
    const auto& files = done["install"]["files"];
    CHECK(files["cloned"].get<int>() + files["hardlinked"].get<int>() + files["copied"].get<int>() > 0);
    CHECK(files["written"].get<int>() >= 2 * static_cast<int>(plan["packages"].size()));
    CHECK(plan["install"]["extracted"] == 0);
    Run again = flags.sync("--json");
    // The document outlives the loop (a range over a temporary's member would dangle).
    const nlohmann::json resynced = nlohmann::json::parse(again.out);
    for (const auto& package : resynced["packages"]) {
      CHECK(package["action"] == "keep");
      CHECK(package["from"] == package["to"]);
    }
  }
  SECTION("a refused selection") {
    const std::string fake = flags.tmp.path() + "/fake";
    fake_python(fake, other_minor());
    Run refused = flags.wvlock(kNoGpu + "PATH='" + fake + "':\"$PATH\"",
                               "sync --json --python " + other_minor());
    CHECK(refused.status == 1);
    const nlohmann::json document = nlohmann::json::parse(refused.out);
    CHECK(document["target"].is_null());
    CHECK(document["error"] == "no target of the lock fits this host");
    REQUIRE(document["targets"].size() == 2);
    for (const auto& target : document["targets"]) {
      CHECK(target["status"] == "does-not-fit");
      CHECK(target["reasons"][0] == "the environment has Python " + other_minor() +
                                        ", the target is for Python " + python_minor());
    }
    CHECK(document["python"]["version"] == other_minor() + ".0");
  }
  SECTION("targets") {
    Run targets = flags.wvlock(kNoGpu, "targets --json --python '" WV_TEST_PYTHON "'");
    INFO(targets.err);
    REQUIRE(targets.status == 0);
    const nlohmann::ordered_json document = nlohmann::ordered_json::parse(targets.out);
    CHECK(document.begin().key() == "version");
    CHECK(document["selected"] == "cpu");
    CHECK(document["host"]["summary"].get<std::string>().find("python " + python_minor()) !=
          std::string::npos);
    CHECK(document["host"]["facts"]["python_version"]["value"] == python_minor());
    REQUIRE(document["targets"].size() == 2);
    CHECK(document["targets"][0]["name"] == "cpu");
    CHECK(document["targets"][0]["status"] == "selected");
    CHECK(document["targets"][1]["status"] == "fits");
    CHECK(document["targets"][1]["reasons"].size() == 1);

    const std::string fake = flags.tmp.path() + "/fake";
    fake_python(fake, other_minor());
    Run none = flags.wvlock(kNoGpu + "PATH='" + fake + "':\"$PATH\"",
                            "targets --json --python " + other_minor());
    CHECK(none.status == 1);
    const nlohmann::json refused = nlohmann::json::parse(none.out);
    CHECK(refused["selected"].is_null());
    CHECK(refused["targets"][0]["status"] == "does-not-fit");
  }
}

TEST_CASE("cli sync flags: the help of sync and targets lists every flag", "[cli][sync][flags]") {
  Run sync = shell("/", "'" WVLOCK_BINARY "' sync --help");
  REQUIRE(sync.status == 0);
  for (const char* flag :
       {"--target", "--no-verify-target", "--extra", "--all-extras", "--group", "--no-group",
        "--only-group", "--all-groups", "--no-default-groups", "--no-dev", "--inexact", "--locked",
        "--frozen", "--dry-run", "--reinstall", "--no-install-project", "--no-editable",
        "--no-build", "--venv", "--python", "--json"}) {
    INFO(flag);
    CHECK(sync.out.find(std::string("  ") + flag + " ") != std::string::npos);
  }
  Run targets = shell("/", "'" WVLOCK_BINARY "' targets --help");
  REQUIRE(targets.status == 0);
  for (const char* flag : {"--target", "--no-verify-target", "--extra", "--all-extras", "--group",
                           "--no-group", "--only-group", "--all-groups", "--no-default-groups",
                           "--no-dev", "--frozen", "--venv", "--python", "--json"}) {
    INFO(flag);
    CHECK(targets.out.find(std::string("  ") + flag + " ") != std::string::npos);
  }
}

TEST_CASE("cli sync: -q is quiet wherever it is written, and global options go after the command",
          "[cli][sync][flags]") {
  Flags project;
  // After the command, as uv takes it: nothing on stdout, nothing on stderr.
  Run quiet = project.wvlock(kNoGpu, "sync -q");
  INFO(quiet.err);
  REQUIRE(quiet.status == 0);
  CHECK(quiet.out.empty());
  CHECK(quiet.err.empty());
  CHECK(fs::exists(project.venv + "/bin/python"));
  // Before it, the same.
  Run before = project.wvlock(kNoGpu, "-q sync --reinstall");
  REQUIRE(before.status == 0);
  CHECK(before.out.empty());
  CHECK(before.err.empty());
  // --json is data, not chatter: -q keeps it.
  Run json = project.wvlock(kNoGpu, "sync --dry-run --json -q");
  REQUIRE(json.status == 0);
  CHECK(nlohmann::json::parse(json.out).contains("packages"));
  // Global options that take values work after the command too.
  Run elsewhere = wv::test::shell(project.tmp.path(), "WVLOCK_CACHE_DIR='" + project.tmp.path() +
                                  "/cache' " + kNoGpu + " '" WVLOCK_BINARY "' sync --offline --project flags --color never");
  INFO(elsewhere.err);
  CHECK(elsewhere.status == 0);
  CHECK(elsewhere.out.find("kept as they are") != std::string::npos);
}

TEST_CASE("cli sync flags: an extra and a group meet the command line in any spelling",
          "[cli][sync][flags][extras]") {
  // pyproject spells them `CUDA_Extra` and `Lint.Tools`; the flags and the lock spell their
  // normal form (PEP 685, PEP 735).
  std::string text = project();
  text.replace(text.find("socks = ["), 5, "CUDA_Extra");
  text.replace(text.find("lint = ["), 4, "\"Lint.Tools\"");
  text.replace(text.find("extras = [\"socks\"]"), 18, "extras = [\"CUDA_Extra\"]");
  Flags flags(text);
  CHECK(flags.lockfile().find("extras = [\"cuda-extra\"]\n") != std::string::npos);
  Run sync = flags.sync("--target cpu-socks --extra cuda-extra --group lint-tools --python '"
                        WV_TEST_PYTHON "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(flags.has("pysocks"));
  CHECK(flags.has("ruff"));
  Run written = flags.sync("--target cpu-socks --extra CUDA_Extra --no-group Lint.Tools");
  INFO(written.out << written.err);
  REQUIRE(written.status == 0);
  CHECK(flags.has("pysocks"));
  CHECK_FALSE(flags.has("ruff"));
}
