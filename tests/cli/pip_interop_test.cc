// pip reads an environment wvlock synced as its own: Debian's pip (scripts/setup.sh installs
// python3-pip) freezes find-links wheels as `name==version` and only the path wheel as
// `name @ file://`, `pip inspect` sees REQUESTED on direct requirements alone, and
// `pip uninstall` removes one package's files by its RECORD and nothing else, after which
// `wvlock sync` puts it back.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/cli/cli_support.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

namespace {

// <tmp>/wheels: Debian's setuptools and wheel (the project's build backend); <tmp>/generated:
// the fixture ecosystem (its find-links folder); <tmp>/app: a project with index-like
// dependencies, a dev group and a vendored wheel named by path.
struct PipProject {
  wv::test::TempDir tmp;
  std::string app = tmp.path() + "/app";

  PipProject() {
    const char* build = std::getenv("WV_BUILD_DIR");
    REQUIRE(build);
    fs::create_directory_symlink(std::string(build) + "/fixtures/ecosystem", tmp.path() + "/generated");
    fs::create_directories(tmp.path() + "/wheels");
    for (const auto& entry : fs::directory_iterator("/usr/share/python-wheels")) {
      const std::string leaf = entry.path().filename().string();
      if (leaf.rfind("setuptools-", 0) == 0 || leaf.rfind("wheel-", 0) == 0) {
        fs::copy_file(entry.path(), tmp.path() + "/wheels/" + leaf);
      }
    }
    fs::create_directories(app + "/vendor");
    fs::copy_file(tmp.path() + "/generated/find-links/termcolor-3.1.0-py3-none-any.whl",
                  app + "/vendor/termcolor-3.1.0-py3-none-any.whl");
    wv::test::write_text(app + "/pyproject.toml",
          "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n"
          "[project]\nname = \"app\"\nversion = \"0.1.0\"\n"
          "dependencies = [\"requests\", \"tqdm\", \"termcolor\"]\n\n"
          "[dependency-groups]\ndev = [\"colorama\"]\n\n"
          "[tool.wvlock]\nfind-links = [\"../wheels\", \"../generated/find-links\"]\n\n"
          "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
          "python = \"" + python_minor() + "\"\n\n"
          "[tool.wvlock.sources]\ntermcolor = { path = \"vendor/termcolor-3.1.0-py3-none-any.whl\" }\n");
    wv::test::write_text(app + "/src/app/__init__.py", "def main():\n    print('app')\n");
  }
  static std::string python_minor() { return wv::test::test_python_minor(); }
  Run wvlock(const std::string& arguments) const {
    return shell(app, "'" WVLOCK_BINARY "' --cache-dir '" + tmp.path() + "/cache' " + arguments);
  }
  // Debian's pip, run by the test Python, working on the environment's interpreter.
  Run pip(const std::string& arguments) const {
    return shell(app, "'" WV_TEST_PYTHON "' -m pip --disable-pip-version-check --python "
                      ".venv/bin/python " + arguments);
  }
  std::string site() const { return app + "/.venv/lib/python" + python_minor() + "/site-packages"; }

  // Every file of the environment (byte code aside) with its content.
  std::map<std::string, std::string> files() const {
    std::map<std::string, std::string> out;
    const std::string root = app + "/.venv";
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_symlink() || !it->is_regular_file()) continue;
      const std::string rel = it->path().lexically_relative(root).generic_string();
      if (rel.find("__pycache__/") != std::string::npos) continue;
      out[rel] = slurp(it->path().string());
    }
    return out;
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("cli pip: pip freezes, inspects and uninstalls what wvlock synced as its own",
          "[cli][pip][build]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));  // scripts/setup.sh installs them
  REQUIRE(shell("/", "'" WV_TEST_PYTHON "' -m pip --version").status == 0);  // python3-pip
  PipProject project;
  Run lock = project.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  Run sync = project.wvlock("sync --group dev --python '" WV_TEST_PYTHON "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(sync.out.find("packages: 9 installed,") != std::string::npos);

  // freeze: find-links wheels by name and version, the path wheel by its file, the project as
  // an editable folder.
  Run freeze = project.pip("freeze");
  INFO(freeze.out << freeze.err);
  REQUIRE(freeze.status == 0);
  std::set<std::string> pinned;
  bool vendored = false;
  bool editable = false;
  for (const std::string& line : lines_of(freeze.out)) {
    std::smatch match;
    if (std::regex_match(line, match, std::regex("([a-z0-9-]+)==([0-9.]+)"))) {
      pinned.insert(match[1]);
    } else if (line.rfind("termcolor @ file://" + project.app +
                              "/vendor/termcolor-3.1.0-py3-none-any.whl", 0) == 0) {
      vendored = true;
    } else if (line == "-e " + project.app) {
      editable = true;
    } else {
      CHECK(line == "# Editable install with no version control (app==0.1.0)");
    }
  }
  CHECK(pinned == std::set<std::string>{"certifi", "charset-normalizer", "colorama", "idna",
                                        "requests", "tqdm", "urllib3"});
  CHECK(vendored);
  CHECK(editable);

  // inspect: `requested` for the project, its dependencies and the dev group's, not for what
  // they pull in; every one installed by wvlock.
  Run inspect = project.pip("inspect");
  REQUIRE(inspect.status == 0);
  std::map<std::string, bool> requested;
  const nlohmann::json inspected = nlohmann::json::parse(inspect.out);
  for (const auto& item : inspected["installed"]) {
    const std::string name = item["metadata"]["name"];
    requested[name] = item["requested"];
    CHECK(item["installer"] == "wvlock");
    CHECK(item.contains("direct_url") == (name == "app" || name == "termcolor"));
  }
  CHECK(requested == std::map<std::string, bool>{
                         {"app", true}, {"certifi", false}, {"charset-normalizer", false},
                         {"colorama", true}, {"idna", false}, {"requests", true},
                         {"termcolor", true}, {"tqdm", true}, {"urllib3", false}});
  Run check = project.pip("check");
  CHECK(check.status == 0);

  // uninstall: exactly the files tqdm's RECORD lists go, every other file stays as it was.
  const std::map<std::string, std::string> before = project.files();
  std::set<std::string> recorded;
  const fs::path site = fs::path(project.site()).lexically_relative(project.app + "/.venv");
  for (const std::string& row : lines_of(slurp(project.site() + "/tqdm-4.67.1.dist-info/RECORD"))) {
    recorded.insert((site / row.substr(0, row.find(','))).lexically_normal().generic_string());
  }
  CHECK(recorded.count("bin/tqdm") == 1);
  Run uninstall = project.pip("uninstall -y tqdm");
  INFO(uninstall.out << uninstall.err);
  REQUIRE(uninstall.status == 0);
  const std::map<std::string, std::string> after = project.files();
  std::set<std::string> gone;
  for (const auto& [rel, content] : before) {
    auto it = after.find(rel);
    if (it == after.end()) gone.insert(rel);
    else CHECK(it->second == content);
  }
  CHECK(gone == recorded);
  CHECK(after.size() == before.size() - recorded.size());
  CHECK_FALSE(fs::exists(project.site() + "/tqdm"));

  // sync puts it back, and pip sees the same environment as before.
  Run again = project.wvlock("sync --group dev");
  INFO(again.out << again.err);
  REQUIRE(again.status == 0);
  CHECK(again.out.find("+ tqdm 4.67.1") != std::string::npos);
  CHECK(again.out.find("packages: 1 installed, 0 upgraded, 0 downgraded, 0 reinstalled, 0 removed, "
                       "8 kept as they are") != std::string::npos);
  CHECK(project.files() == before);
  CHECK(project.pip("freeze").out == freeze.out);
}

TEST_CASE("cli pip: the requirements export installs with pip --require-hashes, and its "
          "follow-up line installs the project folder",
          "[cli][pip][export][build]") {
  REQUIRE(fs::exists("/usr/share/python-wheels"));
  REQUIRE(shell("/", "'" WV_TEST_PYTHON "' -m pip --version").status == 0);
  PipProject project;
  REQUIRE(project.wvlock("lock").status == 0);
  Run exported = project.wvlock("export --target linux --group dev --format requirements "
                                "--output requirements.txt");
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const std::string text = slurp(project.app + "/requirements.txt");
  INFO(text);
  // Every file came from a folder: pip is told so, and where they are.
  CHECK(text.find("--no-index\n") != std::string::npos);
  CHECK(text.find("--find-links " + fs::path(project.tmp.path() + "/generated/find-links").lexically_normal().string()) !=
        std::string::npos);
  // The vendored wheel is its path, with its hash; the project folder is not a hashed line.
  CHECK(text.find("\nvendor/termcolor-3.1.0-py3-none-any.whl \\\n    --hash=sha256:") != std::string::npos);
  const std::string follow = "#   pip install --no-deps -e .\n";
  CHECK(text.find(follow) != std::string::npos);

  // A fresh venv: pip installs the hashed file as it is, then the follow-up line (offline:
  // the build backend from the folder of Debian's wheels).
  REQUIRE(shell(project.app, "'" WV_TEST_PYTHON "' -m venv fresh").status == 0);
  const std::string pip = "fresh/bin/python -m pip --disable-pip-version-check ";
  Run hashed = shell(project.app, pip + "install --require-hashes -r requirements.txt");
  INFO(hashed.out << hashed.err);
  REQUIRE(hashed.status == 0);
  Run rest = shell(project.app, pip + "install --no-index --find-links ../wheels --no-deps -e .");
  INFO(rest.out << rest.err);
  REQUIRE(rest.status == 0);
  Run check = shell(project.app, pip + "check");
  INFO(check.out);
  CHECK(check.status == 0);
  CHECK(shell(project.app, "fresh/bin/python -c 'import app, requests, tqdm, termcolor, colorama'").status == 0);
}
