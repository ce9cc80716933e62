// The conventions every command shares (DESIGN.md §4): help that describes and does nothing,
// every option a help text lists accepted by its command, colour only when asked, target names
// compared normalized, and `tree`/`why --json` shapes that parse.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;
using wv::test::Run;

// The command names `wvlock help` lists.
std::vector<std::string> command_names(const wv::test::ProjectCopy& project) {
  Run help = project.wvlock("", "help");
  REQUIRE(help.status == 0);
  std::vector<std::string> names;
  std::istringstream lines(help.out.substr(help.out.find("commands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

// Each option line of a command's help: the flag, and a sample value when it takes one.
std::vector<std::pair<std::string, std::string>> listed_options(const std::string& help) {
  std::vector<std::pair<std::string, std::string>> options;
  const std::regex option_line(R"(^  (?:-\w, )?(--[a-z][a-z-]*)(?: ([A-Z][A-Z|_-]*))?(?:  |$))");
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_search(line, match, option_line) || match[1] == "--help") continue;
    options.emplace_back(match[1], match[2].matched ? "x" : "");
  }
  return options;
}

}  // namespace

TEST_CASE("cli help: CMD --help and help CMD describe the command and do nothing else",
          "[cli][help]") {
  wv::test::ProjectCopy project("example");
  const std::vector<std::string> names = command_names(project);
  REQUIRE(names.size() >= 10);
  for (const std::string& name : names) {
    INFO(name);
    Run flag = project.wvlock("", name + " --help");
    Run command = project.wvlock("", "help " + name);
    CHECK(flag.status == 0);
    CHECK(flag.out == command.out);
    CHECK_THAT(flag.out, Catch::StartsWith("usage: wvlock " + name));
    CHECK(flag.err.empty());
  }
  // Nothing ran: no lock written, no environment made.
  CHECK_FALSE(fs::exists(project.dir + "/pylock.toml"));
  CHECK_FALSE(fs::exists(project.dir + "/.venv"));
  CHECK_THAT(project.wvlock("", "sync -h").out, Catch::Contains("--no-install-project"));

  Run unknown = project.wvlock("", "help nosuch");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown command `nosuch`"));
  Run overview = project.wvlock("", "--help");
  CHECK(overview.status == 0);
  CHECK_THAT(overview.out, Catch::Contains("wvlock help COMMAND"));
}

TEST_CASE("cli help: every option a command's help lists is one the command accepts",
          "[cli][help]") {
  // In an empty folder each command fails early for want of a project, never on its arguments.
  wv::test::TempDir empty;
  wv::test::ProjectCopy project("example");
  std::size_t checked = 0;
  for (const std::string& name : command_names(project)) {
    Run help = project.wvlock("", "help " + name);
    for (const auto& [flag, value] : listed_options(help.out)) {
      std::string arguments = name + " " + flag + (value.empty() ? "" : " " + value);
      if (name == "why") arguments += " numpy";
      INFO(arguments);
      Run run = wv::test::shell(empty.path(), "'" WVLOCK_BINARY "' " + arguments);
      CHECK_THAT(run.err, !Catch::Contains("unexpected argument"));
      CHECK_THAT(run.err, !Catch::Contains("needs a value"));
      ++checked;
    }
  }
  CHECK(checked >= 25);
}

TEST_CASE("cli colour: --color always paints diagnostics, never and NO_COLOR do not",
          "[cli][color]") {
  wv::test::TempDir empty;
  auto run = [&](const std::string& environment, const std::string& arguments) {
    return wv::test::shell(empty.path(), environment + " '" WVLOCK_BINARY "' " + arguments);
  };
  Run always = run("", "--color always check");
  CHECK(always.status != 0);
  CHECK_THAT(always.err, Catch::StartsWith("\x1b[1;31merror:\x1b[0m"));
  CHECK_THAT(run("", "--color never check").err, Catch::StartsWith("error:"));
  CHECK_THAT(run("NO_COLOR=1", "check").err, Catch::StartsWith("error:"));
  // stderr is not a terminal here, so auto means none.
  CHECK_THAT(run("", "check").err, Catch::StartsWith("error:"));
  CHECK(run("", "--color sometimes check").status == 2);
}

TEST_CASE("cli targets: names are compared normalized, so `CPU` is the target `cpu`",
          "[cli][targets]") {
  wv::test::ProjectCopy project("example");
  std::string pyproject = wv::test::slurp(project.dir + "/pyproject.toml");
  // A second target whose name differs from the first only in case is a duplicate.
  std::ofstream(project.dir + "/pyproject.toml")
      << pyproject << "\n[[tool.wvlock.target]]\nname = \"CPU\"\nplatform = \"linux-x86_64\"\n";
  Run duplicate = project.wvlock("", "lock");
  CHECK(duplicate.status == 2);
  CHECK_THAT(duplicate.err, Catch::Contains("duplicate target name `CPU` (the same as `cpu`"));

  std::ofstream(project.dir + "/pyproject.toml") << pyproject;
  REQUIRE(project.wvlock("", "lock").status == 0);
  Run upper = project.wvlock("", "tree --target CPU");
  CHECK(upper.status == 0);
  CHECK_THAT(upper.out, Catch::StartsWith("cpu\n"));
  CHECK(project.wvlock("", "why numpy --target Cpu").status == 0);
}

TEST_CASE("cli tree: --depth, --invert and --package", "[cli][inspect]") {
  wv::test::ProjectCopy project("example");
  REQUIRE(project.wvlock("", "lock").status == 0);
  Run full = project.wvlock("", "tree --target cpu");
  REQUIRE(full.status == 0);
  // --depth 1: the roots alone, each at one level below the target.
  Run roots = project.wvlock("", "tree --target cpu --depth 1");
  REQUIRE(roots.status == 0);
  CHECK(roots.out.find("\n  torch==") != std::string::npos);
  CHECK(roots.out.find("\n    ") == std::string::npos);
  CHECK(full.out.find("\n    ") != std::string::npos);
  Run none = project.wvlock("", "tree --target cpu --depth 0");
  CHECK(none.out == "cpu\n");
  CHECK(project.wvlock("", "tree --depth deep").status == 2);
  // --invert --package filelock: filelock, then what needs it, up to what the project asks for.
  Run inverted = project.wvlock("", "tree --target cpu --invert --package FileLock");
  INFO(inverted.out);
  REQUIRE(inverted.status == 0);
  CHECK(inverted.out.rfind("cpu\n  filelock==", 0) == 0);
  CHECK(inverted.out.find("\n    torch==") != std::string::npos);
  CHECK(inverted.out.find("(the project)") != std::string::npos);
  // Inverted without --package, every line at the first level is a leaf: a package that
  // depends on nothing, which the plain tree shows without children.
  Run leaves = project.wvlock("", "tree --target cpu --invert --depth 1");
  REQUIRE(leaves.status == 0);
  CHECK(leaves.out.find("  filelock==") != std::string::npos);
  CHECK(leaves.out.find("  torch==") == std::string::npos);
  Run json = project.wvlock("", "tree --json --target cpu --invert --package filelock");
  nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json& start = doc["targets"][0]["roots"][0];
  CHECK(start["name"] == "filelock");
  CHECK(start["dependents"][0]["name"] == "torch");
}

TEST_CASE("cli tree and why --json: the documented shapes", "[cli][json]") {
  wv::test::ProjectCopy project("example");
  REQUIRE(project.wvlock("", "lock").status == 0);
  Run tree = project.wvlock("", "tree --json --target cpu");
  REQUIRE(tree.status == 0);
  nlohmann::json doc = nlohmann::json::parse(tree.out);
  CHECK(doc["version"] == 1);
  REQUIRE(doc["targets"].size() == 1);
  CHECK(doc["targets"][0]["name"] == "cpu");
  // Every node has the documented keys, and a package is expanded once.
  std::map<std::string, int> expanded;
  std::set<std::string> names;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& node) {
    for (const char* key : {"name", "version", "extra", "via", "repeated", "dependencies"}) {
      CHECK(node.contains(key));
    }
    names.insert(node["name"].get<std::string>());
    if (!node["repeated"].get<bool>()) expanded[node["name"].get<std::string>() + node["extra"].dump()]++;
    for (const nlohmann::json& child : node["dependencies"]) walk(child);
  };
  for (const nlohmann::json& root : doc["targets"][0]["roots"]) walk(root);
  CHECK(expanded.count("torch" + std::string("null")) == 1);
  for (const auto& [name, count] : expanded) CHECK(count == 1);
  // The text tree names the same packages.
  Run text = project.wvlock("", "tree --target cpu");
  for (const std::string& name : names) CHECK_THAT(text.out, Catch::Contains("  " + name));

  Run why = project.wvlock("", "why --json numpy");
  REQUIRE(why.status == 0);
  nlohmann::json answer = nlohmann::json::parse(why.out);
  CHECK(answer["version"] == 1);
  CHECK(answer["package"] == "numpy");
  for (const nlohmann::json& target : answer["targets"]) {
    CHECK(target["needed"] == true);
    CHECK(target["via"].get<std::string>().rfind("the project", 0) == 0);
    CHECK(target["chain"].back()["name"] == "numpy");
  }
  Run absent = project.wvlock("", "why --json nosuch");
  CHECK(absent.status == 1);
  nlohmann::json none = nlohmann::json::parse(absent.out);
  CHECK(none["targets"][0]["needed"] == false);
  CHECK(none["targets"][0]["chain"].empty());
  CHECK(none["targets"][0]["via"].is_null());
  // Any spelling of a name is the name; text that is no name is refused with its position.
  Run spelled = project.wvlock("", "why --json NumPy");
  REQUIRE(spelled.status == 0);
  CHECK(nlohmann::json::parse(spelled.out)["package"] == "numpy");
  Run invalid = project.wvlock("", "why 'num py'");
  CHECK(invalid.status == 2);
  CHECK(invalid.err.find("error: wvlock why: invalid package name `num py`") != std::string::npos);
  CHECK(invalid.err.find("\n       ^") != std::string::npos);
}

TEST_CASE("cli cache clean: names a package by any spelling, refuses text that is no name",
          "[cli][cache]") {
  wv::test::ProjectCopy project("example");
  const std::string cache = "--cache-dir '" + project.tmp.path() + "/cache' ";
  Run spelled = project.wvlock("", cache + "cache clean Num_Py");
  INFO(spelled.err);
  CHECK(spelled.status == 0);
  Run invalid = project.wvlock("", cache + "cache clean 'num py'");
  CHECK(invalid.status == 2);
  CHECK(invalid.err.find("error: `wvlock cache clean`: invalid package name `num py`") !=
        std::string::npos);
}
