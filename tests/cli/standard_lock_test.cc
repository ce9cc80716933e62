// Any PEP 751 lock installs (docs/lockfile.md, "Installing any pylock.toml"): locks in the shapes
// PEP 751's example, uv's `export --format pylock.toml` and `pip lock` write, made at test time over
// the fixture wheels, and our own exports, installed with `wvlock sync --lockfile` by the standard's
// rules. What we choose (packages and files) is packaging 26.4's Pylock.select() for the same
// environment, extras and groups (tests/cli/pylock_select.py); bad locks are refused with nothing
// changed; an export installs the same files as syncing the universal lock to its target.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "src/base/sha256.h"
#include "src/base/str.h"
#include "tests/cli/cli_support.h"
#include "lock/lockfile.h"
#include "tests/support/skip.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using wv::test::kNoGpu;
using wv::test::ProjectCopy;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;
using wv::test::write_text;

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

std::string simple_index() {
  return std::string(std::getenv("WV_BUILD_DIR")) + "/fixtures/ecosystem/simple";
}

// One fixture file as a lock names it.
struct FixtureFile {
  std::string name;
  std::string path;  ///< absolute
  std::string sha256;
  std::uint64_t size = 0;
};

FixtureFile fixture(const std::string& path) {
  auto digest = wv::sha256_file_hex(path);
  REQUIRE(digest);
  return FixtureFile{fs::path(path).filename().string(), path, *digest, fs::file_size(path)};
}

// The wheels (and the sdist, when there is one) of `package` `version` in the fixture index.
struct Release {
  std::vector<FixtureFile> wheels;
  std::optional<FixtureFile> sdist;
};

Release release(const std::string& package, const std::string& version) {
  Release out;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(simple_index() + "/" + package)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string stem = package;
  std::replace(stem.begin(), stem.end(), '-', '_');
  for (const std::string& name : names) {
    const std::string path = simple_index() + "/" + package + "/" + name;
    if (name.rfind(stem + "-" + version + "-", 0) == 0 && ends_with(name, ".whl")) {
      out.wheels.push_back(fixture(path));
    } else if (name == stem + "-" + version + ".tar.gz") {
      out.sdist = fixture(path);
    }
  }
  REQUIRE(!out.wheels.empty());
  return out;
}

std::string file_url(const std::string& path) { return "file://" + path; }

// `{ name = ..., url = ..., size = ..., hashes = { sha256 = ... } }` (uv's inline shape).
std::string inline_file(const FixtureFile& file, const std::string& location,
                        bool with_upload_time = true) {
  return "{ name = \"" + file.name + "\", " + location + ", " +
         (with_upload_time ? "upload-time = 2025-01-25T11:30:10Z, " : "") +
         "size = " + std::to_string(file.size) + ", hashes = { sha256 = \"" + file.sha256 + "\" } }";
}

std::string url_of(const FixtureFile& file) { return "url = \"" + file_url(file.path) + "\""; }

std::string wheels_inline(const std::vector<FixtureFile>& wheels) {
  std::string out = "wheels = [\n";
  for (const FixtureFile& wheel : wheels) out += "  " + inline_file(wheel, url_of(wheel)) + ",\n";
  return out + "]\n";
}

// PEP 751's example (the PEP's "Example" section), its files made local: the same keys, an
// `environments` list, a Python pin, per-package requires-python, attestation identities,
// a package with wheels for many platforms and tools' own tables.
std::string pep751_example() {
  const Release idna = release("idna", "3.10");
  const Release charset = release("charset-normalizer", "3.4.3");
  return "lock-version = '1.0'\n"
         "environments = [\"sys_platform == 'win32'\", \"sys_platform == 'linux'\", "
         "\"sys_platform == 'darwin'\"]\n"
         "requires-python = '>=3.11'\n"
         "created-by = 'mousebender'\n\n"
         "[[packages]]\nname = 'idna'\nversion = '3.10'\nrequires-python = '>=3.6'\n" +
         wheels_inline(idna.wheels) +
         "[[packages.attestation-identities]]\nenvironment = 'release-pypi'\nkind = 'GitHub'\n"
         "repository = 'kjd/idna'\nworkflow = 'deploy.yml'\n\n"
         "[[packages]]\nname = 'charset-normalizer'\nversion = '3.4.3'\nrequires-python = '>=3.11'\n" +
         wheels_inline(charset.wheels) +
         "\n[packages.tool.mousebender]\nnote = 'ignored by installers'\n\n"
         "[tool.mousebender]\ncommand = ['.', 'lock', '--platform', 'cpython3.12-windows-x64', "
         "'idna', 'charset-normalizer']\nrun-on = 2025-03-06T12:28:57.760769\n";
}

// `uv export --format pylock.toml`'s shape: `index`, inline `sdist` and `wheels` with url,
// upload-time, size and hashes, platform markers, and markers on extras and groups.
std::string uv_shaped() {
  const Release certifi = release("certifi", "2025.8.3");
  const Release colorama = release("colorama", "0.4.6");
  const Release idna = release("idna", "3.10");
  const Release iniconfig = release("iniconfig", "2.1.0");
  const Release markupsafe = release("markupsafe", "3.0.2");
  const Release requests = release("requests", "2.32.5");
  const Release tqdm = release("tqdm", "4.67.1");
  const std::string index = "index = \"" + file_url(simple_index()) + "\"\n";
  std::string out = "lock-version = \"1.0\"\ncreated-by = \"uv\"\nrequires-python = \">=3.11\"\n"
                    "extras = [\"fast\"]\ndependency-groups = [\"dev\"]\n\n";
  auto package = [&](const std::string& name, const std::string& version, const std::string& marker,
                     const Release& files) {
    out += "[[packages]]\nname = \"" + name + "\"\nversion = \"" + version + "\"\n";
    if (!marker.empty()) out += "marker = \"" + marker + "\"\n";
    out += index;
    if (files.sdist) out += "sdist = " + inline_file(*files.sdist, url_of(*files.sdist)) + "\n";
    out += wheels_inline(files.wheels) + "\n";
  };
  package("certifi", "2025.8.3", "", certifi);
  package("colorama", "0.4.6", "sys_platform == 'win32'", colorama);
  package("idna", "3.10", "", idna);
  package("iniconfig", "2.1.0", "'dev' in dependency_groups", iniconfig);
  package("markupsafe", "3.0.2", "'fast' in extras and python_full_version >= '3.11'", markupsafe);
  package("requests", "2.32.5", "", requests);
  package("tqdm", "4.67.1", "sys_platform == 'linux' or 'dev' in dependency_groups", tqdm);
  return out;
}

// `pip lock`'s shape: tables of tables, `[[packages.wheels]]` with `[packages.wheels.hashes]`;
// one wheel by a `path` relative to the lock's folder (copied into `dir/wheels`).
std::string pip_shaped(const std::string& dir) {
  const Release certifi = release("certifi", "2025.8.3");
  const Release idna = release("idna", "3.10");
  fs::create_directories(dir + "/wheels");
  fs::copy_file(idna.wheels.front().path, dir + "/wheels/" + idna.wheels.front().name,
                fs::copy_options::overwrite_existing);
  std::string out = "lock-version = \"1.0\"\ncreated-by = \"pip\"\n\n";
  out += "[[packages]]\nname = \"certifi\"\nversion = \"2025.8.3\"\n\n[[packages.wheels]]\nname = \"" +
         certifi.wheels.front().name + "\"\nurl = \"" + file_url(certifi.wheels.front().path) +
         "\"\n\n[packages.wheels.hashes]\nsha256 = \"" + certifi.wheels.front().sha256 + "\"\n\n";
  out += "[[packages]]\nname = \"idna\"\nversion = \"3.10\"\n\n[[packages.wheels]]\nname = \"" +
         idna.wheels.front().name + "\"\npath = \"wheels/" + idna.wheels.front().name +
         "\"\n\n[packages.wheels.hashes]\nsha256 = \"" + idna.wheels.front().sha256 + "\"\n";
  return out;
}

// ---- the oracle -----------------------------------------------------------------------------

std::optional<std::string> packaging_oracle() {
  const fs::path dir = WV_SOURCE_DIR "/../shared/oracles/packaging-26.4";
  std::error_code error;
  if (!fs::exists(dir / "packaging" / "pylock.py", error)) return std::nullopt;
  return fs::canonical(dir, error).string();
}

#define NEED_ORACLE()                                                                         \
  auto oracle = packaging_oracle();                                                           \
  if (!oracle) WV_SKIP("packaging 26.4 not found at " WV_SOURCE_DIR "/../shared/oracles");    \
  if (shell("/tmp", "'" WV_TEST_PYTHON "' -c 'import tomllib'").status != 0) {                \
    WV_SKIP(WV_TEST_PYTHON " has no tomllib (Python 3.11 or newer is needed)");               \
  }

struct Choice {
  std::vector<std::string> extras;
  std::vector<std::string> groups;
};

std::string flags_of(const Choice& choice) {
  std::string out;
  for (const std::string& extra : choice.extras) out += " --extra " + extra;
  for (const std::string& group : choice.groups) out += " --group " + group;
  return out;
}

// A variant label dropped from a wheel file name (packaging parses none).
std::string without_label(const std::string& file) {
  std::vector<std::string_view> parts = wv::split(std::string_view(file).substr(0, file.size() - 4), '-');
  if (!ends_with(file, ".whl") || parts.size() < 6) return file;
  if (parts.size() == 6 && !parts[2].empty() && std::isdigit(static_cast<unsigned char>(parts[2][0]))) {
    return file;  // a build tag, not a label
  }
  return file.substr(0, file.size() - 4 - parts.back().size() - 1) + ".whl";
}

// What `wvlock sync --dry-run --json` chooses: "name==version" and "name file", the file a
// wheel's name or, for a build, the sdist's name or the kind of source; or its error.
struct Ours {
  int status = 0;
  std::vector<std::string> packages;
  std::vector<std::string> files;
  json standard;
  std::string error;
};

Ours our_choice(const ProjectCopy& project, const std::string& environment, const std::string& lock,
                const Choice& choice, bool strip_labels) {
  const std::string venv = project.tmp.path() + "/dry-venv";
  Run run = project.wvlock(environment, "sync --dry-run --json --no-install-project --lockfile " +
                                                     lock + " --venv '" + venv + "'" + flags_of(choice));
  INFO(run.err);
  Ours ours;
  ours.status = run.status;
  json document = json::parse(run.out);
  ours.standard = document["standard"];
  if (run.status != 0) {
    ours.error = run.err;
    return ours;
  }
  for (const json& item : document["packages"]) {
    if (item["action"] == "remove") continue;
    const std::string name = item["name"];
    ours.packages.push_back(name + "==" + (item["to"].is_null() ? "None" : item["to"].get<std::string>()));
    std::string file = item["wheel"].is_null() ? "" : item["wheel"].get<std::string>();
    for (const char* kind : {"sdist:", "archive:"}) {
      if (file.rfind(kind, 0) == 0) file = std::string(kind) == "sdist:" ? file.substr(6) : "archive";
    }
    if (file.rfind("git:", 0) == 0) file = "vcs";
    if (file.rfind("directory:", 0) == 0 || file.rfind("editable:", 0) == 0) file = "directory";
    ours.files.push_back(name + " " + (strip_labels ? without_label(file) : file));
  }
  std::sort(ours.packages.begin(), ours.packages.end());
  std::sort(ours.files.begin(), ours.files.end());
  return ours;
}

json oracle_select(const ProjectCopy& project, const std::string& oracle, const std::string& lock,
                   const json& standard, const Choice& choice, bool strip_labels) {
  json request = {{"lock", lock},
                  {"strip_variant_labels", strip_labels},
                  {"environment", standard["environment"]},
                  {"tags", standard["tags"]},
                  {"selections", json::array()}};
  // No `--group`: the lock's default-groups on both sides (packaging's `None`).
  request["selections"].push_back({{"extras", choice.extras},
                                   {"groups", choice.groups.empty() ? json() : json(choice.groups)}});
  std::ofstream(project.dir + "/select-request.json") << request.dump();
  Run run = shell(project.dir, "PYTHONPATH='" + oracle + "' '" WV_TEST_PYTHON "' '" WV_SOURCE_DIR
                               "/tests/cli/pylock_select.py' select-request.json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  return json::parse(run.out);
}

// Ours against the oracle's for one lock, environment and choice. Returns whether we installed
// anything (a refused environment on both sides counts as agreement).
bool agrees(const ProjectCopy& project, const std::string& oracle, const std::string& lock,
            const std::string& environment, const Choice& choice, bool strip_labels = false,
            const std::string& project_name = "") {
  Ours ours = our_choice(project, environment, lock, choice, strip_labels);
  INFO(lock << " with " << environment << flags_of(choice) << "\n" << ours.error);
  REQUIRE(ours.standard.is_object());
  json answer = oracle_select(project, oracle, lock, ours.standard, choice, strip_labels);
  INFO(answer.dump());
  REQUIRE(answer.contains("selections"));
  const json& selected = answer["selections"][0];
  if (selected.contains("error")) {
    CHECK(ours.status == 1);
    return false;
  }
  REQUIRE(ours.status == 0);
  std::vector<std::string> packages, files;
  for (const std::string& package : selected["packages"].get<std::vector<std::string>>()) {
    if (project_name.empty() || package.rfind(project_name + "==", 0) != 0) packages.push_back(package);
  }
  for (const std::string& file : selected["files"].get<std::vector<std::string>>()) {
    if (project_name.empty() || file.rfind(project_name + " ", 0) != 0) files.push_back(file);
  }
  CHECK(ours.packages == packages);
  CHECK(ours.files == files);
  return !packages.empty();
}

// Other machines, by detection overrides (docs/targets.md, "Overrides").
const std::string kMac = kNoGpu + "WVLOCK_OVERRIDE_OS=macos WVLOCK_OVERRIDE_ARCH=aarch64 "
                                  "WVLOCK_OVERRIDE_MACOS=14.0 ";
const std::vector<std::string> kEnvironments = {
    kNoGpu,
    kNoGpu + "WVLOCK_OVERRIDE_ARCH=aarch64 ",
    kMac,
    kNoGpu + "WVLOCK_OVERRIDE_OS=windows WVLOCK_OVERRIDE_ARCH=x86_64 ",
    kNoGpu + "WVLOCK_OVERRIDE_PYTHON=3.13 ",
    kNoGpu + "WVLOCK_OVERRIDE_PYTHON=3.10 ",
};

// The host each example target is for (detection overrides): its GPU, or none.
std::string host_of(const std::string& target) {
  if (target == "a100") {
    return "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "
           "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=8.0 ";
  }
  if (target == "h100") {
    return "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "
           "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=9.0 ";
  }
  if (target == "mi300") {
    return "WVLOCK_OVERRIDE_CUDA_DRIVER= WVLOCK_OVERRIDE_CUDA_ARCH= "
           "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH=gfx942 AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION=6.4 ";
  }
  return target == "mac" ? kMac : kNoGpu;
}

// A folder with no pyproject.toml holding a lock: the deploy folder of a standard lock.
struct DeployFolder : ProjectCopy {
  DeployFolder() : ProjectCopy("deploy", "x") { fs::remove(dir + "/pyproject.toml"); }
  void write(const std::string& name, const std::string& text) const { write_text(dir + "/" + name, text); }
  // A digest of every file under `path`, to prove nothing changed.
  std::string digest(const std::string& path) const {
    return shell(dir, "(cd '" + path + "' && find . -type f -not -name '*.pyc' | LC_ALL=C sort "
                      "| xargs sha256sum | sha256sum)").out;
  }
};

// dist-info folder -> its RECORD, for every distribution of `venv`, without the REQUESTED
// marker: a standard lock does not say which packages were asked for (PEP 751 has no roots), so
// none is marked; the universal lock marks its target's roots.
std::map<std::string, std::string> records(const std::string& venv) {
  std::map<std::string, std::string> out;
  for (const auto& lib : fs::directory_iterator(venv + "/lib")) {
    const fs::path site = lib.path() / "site-packages";
    if (!fs::exists(site)) continue;
    for (const auto& entry : fs::directory_iterator(site)) {
      if (!ends_with(entry.path().filename().string(), ".dist-info")) continue;
      std::string record;
      const std::string text = slurp((entry.path() / "RECORD").string());
      for (std::string_view line : wv::split(text, '\n')) {
        if (line.find(".dist-info/REQUESTED,") == std::string_view::npos) record += std::string(line) + "\n";
      }
      out[entry.path().filename().string()] = record;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("standard locks: PEP 751's example, uv's and pip's shapes install with sync --lockfile "
          "in a folder without pyproject.toml", "[cli][pylock][standard]") {
  DeployFolder deploy;
  deploy.write("pylock.toml", pep751_example());
  deploy.write("pylock.uv.toml", uv_shaped());
  deploy.write("pylock.pip.toml", pip_shaped(deploy.dir));
  const std::string venv = deploy.dir + "/.venv";

  SECTION("the PEP's example") {
    Run sync = deploy.wvlock(kNoGpu, "sync --lockfile pylock.toml");
    INFO(sync.out << sync.err);
    REQUIRE(sync.status == 0);
    CHECK(sync.out.find("by PEP 751's rules") != std::string::npos);
    // The venv is the project folder's `.venv`, as `uv pip sync` uses the current one's.
    CHECK(deploy.python(venv, "import idna, charset_normalizer; print('ok')\n") == "ok\n");
    // A re-sync keeps everything.
    Run again = deploy.wvlock(kNoGpu, "sync --lockfile pylock.toml");
    CHECK(again.out.find("0 installed") != std::string::npos);
  }
  SECTION("uv's shape, with an extra and a group") {
    Run plain = deploy.wvlock(kNoGpu, "sync --lockfile pylock.uv.toml");
    INFO(plain.out << plain.err);
    REQUIRE(plain.status == 0);
    CHECK(deploy.python(venv, "import importlib.util as u\nprint([bool(u.find_spec(m)) for m in "
                              "('certifi', 'idna', 'requests', 'markupsafe', 'iniconfig', 'colorama')])\n") ==
          "[True, True, True, False, False, False]\n");
    Run more = deploy.wvlock(kNoGpu, "sync --lockfile pylock.uv.toml --extra fast --group dev");
    INFO(more.out << more.err);
    REQUIRE(more.status == 0);
    CHECK(deploy.python(venv, "import importlib.util as u\nprint([bool(u.find_spec(m)) for m in "
                              "('markupsafe', 'iniconfig', 'colorama')])\n") == "[True, True, False]\n");
    // An extra the lock does not declare is refused.
    Run unknown = deploy.wvlock(kNoGpu, "sync --lockfile pylock.uv.toml --extra nope");
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("`--extra nope`") != std::string::npos);
  }
  SECTION("pip's shape, a wheel by a path relative to the lock's folder, the lock elsewhere") {
    fs::create_directories(deploy.tmp.path() + "/elsewhere");
    Run sync = shell(deploy.tmp.path() + "/elsewhere",
                     "WVLOCK_CACHE_DIR='" + deploy.tmp.path() + "/cache' " + kNoGpu + "'" WVLOCK_BINARY
                     "' sync --lockfile ../deploy/pylock.pip.toml");
    INFO(sync.out << sync.err);
    REQUIRE(sync.status == 0);
    CHECK(deploy.python(deploy.tmp.path() + "/elsewhere/.venv", "import certifi, idna; print('ok')\n") ==
          "ok\n");
  }
  SECTION("a file named like no PEP 751 lock is refused") {
    fs::copy_file(deploy.dir + "/pylock.toml", deploy.dir + "/lock.toml");
    Run run = deploy.wvlock(kNoGpu, "sync --lockfile lock.toml");
    CHECK(run.status == 2);
    CHECK(run.err.find("`pylock.toml` or `pylock.NAME.toml`") != std::string::npos);
  }
  SECTION("targets shows what the standard's rules select") {
    Run run = deploy.wvlock(kNoGpu, "targets --lockfile pylock.uv.toml --group dev");
    INFO(run.err);
    REQUIRE(run.status == 0);
    CHECK(run.out.find("the lock declares no targets") != std::string::npos);
    CHECK(run.out.find("iniconfig 2.1.0") != std::string::npos);
  }
}

TEST_CASE("standard locks: a lock that excludes this interpreter is a selection failure naming "
          "the fact", "[cli][pylock][standard]") {
  DeployFolder deploy;
  const Release idna = release("idna", "3.10");
  const std::string package = "[[packages]]\nname = \"idna\"\nversion = \"3.10\"\n" + wheels_inline(idna.wheels);
  deploy.write("pylock.old.toml", "lock-version = \"1.0\"\ncreated-by = \"x\"\nrequires-python = \"<3.8\"\n" + package);
  deploy.write("pylock.win.toml", "lock-version = \"1.0\"\ncreated-by = \"x\"\n"
                                  "environments = [\"sys_platform == 'win32'\"]\n" + package);
  Run old = deploy.wvlock(kNoGpu, "sync --lockfile pylock.old.toml");
  CHECK(old.status == 1);
  CHECK(old.err.find("does not satisfy the lock's `requires-python = \"<3.8\"`") != std::string::npos);
  Run win = deploy.wvlock(kNoGpu, "sync --lockfile pylock.win.toml");
  CHECK(win.status == 1);
  CHECK(win.err.find("satisfies none of the lock's `environments`") != std::string::npos);
  CHECK(!fs::exists(deploy.dir + "/.venv"));
}

TEST_CASE("standard locks: bad locks are refused with the PEP's words and nothing changed; an "
          "absolute path outside the lock's folder installs and the plan names it",
          "[cli][pylock][standard]") {
  DeployFolder deploy;
  const Release idna310 = release("idna", "3.10");
  const Release idna311 = release("idna", "3.11");
  const Release certifi = release("certifi", "2025.8.3");
  const std::string head = "lock-version = \"1.0\"\ncreated-by = \"x\"\n";
  auto entry = [](const std::string& name, const std::string& version, const std::string& wheels,
                  const std::string& marker = "") {
    return "[[packages]]\nname = \"" + name + "\"\nversion = \"" + version + "\"\n" +
           (marker.empty() ? "" : "marker = \"" + marker + "\"\n") + wheels + "\n";
  };
  // A good lock installed first: the bad ones must leave this environment as it is.
  deploy.write("pylock.toml", head + entry("certifi", "2025.8.3", wheels_inline(certifi.wheels)));
  Run good = deploy.wvlock(kNoGpu, "sync");
  INFO(good.out << good.err);
  REQUIRE(good.status == 0);
  const std::string venv = deploy.dir + "/.venv";
  const std::string before = deploy.digest(venv);

  struct Bad {
    const char* what;
    std::string text;
    const char* words;
  };
  const FixtureFile& wheel = idna310.wheels.front();
  const std::vector<Bad> bad = {
      {"two entries for this environment",
       head + entry("idna", "3.10", wheels_inline(idna310.wheels), "sys_platform == 'linux'") +
           entry("idna", "3.11", wheels_inline(idna311.wheels), "os_name == 'posix'"),
       "MUST narrow down to a single entry"},
      {"lock-version 2.0", "lock-version = \"2.0\"\ncreated-by = \"x\"\n" +
                               entry("idna", "3.10", wheels_inline(idna310.wheels)),
       "lock-version `2.0` is not supported"},
      {"a wheel with no hash",
       head + entry("idna", "3.10", "wheels = [{ name = \"" + wheel.name + "\", url = \"" +
                                        file_url(wheel.path) + "\" }]\n"),
       "`hashes` is required"},
      {"a marker that does not parse",
       head + entry("idna", "3.10", wheels_inline(idna310.wheels), "sys_platform = 'linux'"),
       "`marker`"},
  };
  for (const Bad& lock : bad) {
    SECTION(lock.what) {
      deploy.write("pylock.bad.toml", lock.text);
      Run run = deploy.wvlock(kNoGpu, "sync --lockfile pylock.bad.toml");
      INFO(run.out << run.err);
      CHECK(run.status == 2);
      CHECK(run.err.rfind("error: ", 0) == 0);
      CHECK(run.err.find(lock.words) != std::string::npos);
      CHECK(deploy.digest(venv) == before);
      CHECK(slurp(deploy.dir + "/pylock.bad.toml") == lock.text);
    }
  }
  SECTION("an absolute path outside the lock's folder") {
    const std::string text =
        head + entry("certifi", "2025.8.3", wheels_inline(certifi.wheels)) +
        entry("idna", "3.10", "wheels = [" + inline_file(wheel, "path = \"" + wheel.path + "\"") + "]\n");
    deploy.write("pylock.abs.toml", text);
    Run run = deploy.wvlock(kNoGpu, "sync --lockfile pylock.abs.toml");
    INFO(run.out << run.err);
    REQUIRE(run.status == 0);
    CHECK(run.out.find("from " + wheel.path + ", outside the lockfile's folder") != std::string::npos);
    CHECK(deploy.python(venv, "import idna; print('ok')\n") == "ok\n");
    Run json_run = deploy.wvlock(kNoGpu, "sync --dry-run --json --reinstall --lockfile pylock.abs.toml");
    INFO(json_run.out << json_run.err);
    REQUIRE(json_run.status == 0);
    std::map<std::string, json> outside;
    const json document = json::parse(json_run.out);
    for (const json& item : document["packages"]) outside[item["name"].get<std::string>()] = item["outside_path"];
    CHECK(outside["idna"] == wheel.path);
    CHECK(outside["certifi"].is_null());
  }
}

TEST_CASE("standard locks oracle: for PEP 751's example, uv's and pip's shapes, in several "
          "environments, with and without extras and groups, our packages and files are "
          "packaging's Pylock.select()'s", "[cli][pylock][standard][oracle]") {
  NEED_ORACLE();
  DeployFolder deploy;
  deploy.write("pylock.toml", pep751_example());
  deploy.write("pylock.uv.toml", uv_shaped());
  deploy.write("pylock.pip.toml", pip_shaped(deploy.dir));
  int installed = 0, refused = 0;
  for (const std::string& environment : kEnvironments) {
    for (const char* lock : {"pylock.toml", "pylock.pip.toml"}) {
      (agrees(deploy, *oracle, lock, environment, {}) ? installed : refused)++;
    }
    for (const Choice& choice : std::vector<Choice>{{}, {{"fast"}, {}}, {{}, {"dev"}}, {{"fast"}, {"dev"}}}) {
      (agrees(deploy, *oracle, "pylock.uv.toml", environment, choice) ? installed : refused)++;
    }
  }
  // Both outcomes were met: some environments install, some are refused (Python 3.10).
  CHECK(installed > 0);
  CHECK(refused > 0);
}

TEST_CASE("standard locks oracle: every export of both examples, selected by our standard rules, "
          "is packaging's Pylock.select()", "[cli][pylock][standard][oracle]") {
  NEED_ORACLE();
  for (const char* example : {"example", "example-pytorch"}) {
    ProjectCopy project(example);
    Run lock = project.wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
    auto lockfile = wv::lock::read_lockfile(project.lockfile(), "pylock.toml");
    REQUIRE(lockfile);
    // packaging parses no variant label: the example's are dropped on both sides.
    const bool strip = std::string(example) == "example";
    for (const wv::lock::LockedTarget& target : lockfile->targets) {
      const std::string file = "pylock." + target.name + ".toml";
      Run exported = project.wvlock("", "export --target " + target.name + " --output " + file);
      REQUIRE(exported.status == 0);
      Choice extras;
      for (const auto& [extra, roots] : target.extra_roots) extras.extras.push_back(extra);
      const std::string name = lockfile->project() ? lockfile->project()->name.str() : "";
      for (const std::string& environment : {host_of(target.name), kMac}) {
        agrees(project, *oracle, file, environment, extras, strip, name);
        Choice with_groups = extras;
        for (const auto& [group, roots] : target.group_roots) with_groups.groups.push_back(group);
        agrees(project, *oracle, file, environment, with_groups, strip, name);
      }
    }
  }
}

TEST_CASE("standard locks: each export of both examples installs with sync --lockfile and the "
          "extras its target locks, the same files (by RECORD) as syncing the universal lock to "
          "that target", "[cli][pylock][standard]") {
  int compared = 0;
  for (const char* example : {"example", "example-pytorch"}) {
    ProjectCopy project(example);
    Run lock = project.wvlock("", "lock");
    REQUIRE(lock.status == 0);
    auto lockfile = wv::lock::read_lockfile(project.lockfile(), "pylock.toml");
    REQUIRE(lockfile);
    for (const wv::lock::LockedTarget& target : lockfile->targets) {
      const std::string file = "pylock." + target.name + ".toml";
      Run exported = project.wvlock("", "export --target " + target.name + " --output " + file);
      REQUIRE(exported.status == 0);
      std::string extras;
      for (const auto& [extra, roots] : target.extra_roots) extras += " --extra " + extra;
      INFO(example << " target " << target.name);
      if (target.declared.platform == "linux-x86_64") {
        // One venv path for both (scripts' shebangs name it), made anew for each.
        const std::string venv = project.tmp.path() + "/venv-" + target.name;
        Run a = project.wvlock(host_of(target.name), "sync --frozen --no-install-project --target " +
                                                         target.name + " --venv '" + venv + "'");
        INFO(a.out << a.err);
        REQUIRE(a.status == 0);
        const auto universal = records(venv);
        fs::remove_all(venv);
        Run b = project.wvlock(host_of(target.name), "sync --lockfile " + file + extras + " --venv '" + venv + "'");
        INFO(b.out << b.err);
        REQUIRE(b.status == 0);
        const auto standard = records(venv);
        for (const auto& [dist_info, record] : universal) {
          INFO(dist_info);
          CHECK(standard.count(dist_info) == 1);
          if (standard.count(dist_info)) CHECK(standard.at(dist_info) == record);
        }
        CHECK(universal.size() == standard.size());
        CHECK(standard.size() > 3);
        ++compared;
      } else if (target.declared.platform == "macos-arm64") {
        // Not installable here: the plans agree, package by package and wheel by wheel.
        auto plan = [&](const std::string& arguments) {
          Run run = project.wvlock(kMac, "sync --dry-run --json --venv '" + project.tmp.path() +
                                            "/mac-venv' " + arguments);
          INFO(run.err);
          REQUIRE(run.status == 0);
          std::set<std::string> out;
          const json document = json::parse(run.out);
          for (const json& item : document["packages"]) {
            out.insert(item["name"].get<std::string>() + " " + item["to"].get<std::string>() + " " +
                       (item["wheel"].is_null() ? "" : item["wheel"].get<std::string>()));
          }
          return out;
        };
        CHECK(plan("--frozen --no-install-project --target " + target.name) == plan("--lockfile " + file + extras));
        ++compared;
      }
    }
  }
  CHECK(compared >= 6);
}
