// Several Pythons per target (targets/python_pairs.h): `python = ["3.11", "3.12"]` in
// `[tool.wvlock]` or a target gives one target per Python, named `NAME-pyM.m`; one Python keeps
// the name; the caller's default answers only for targets that declare none; bad values are
// errors naming file, line and column.
#include <catch2/catch.hpp>

#include <string>

#include "targets/project_file.h"
#include "targets/python_pairs.h"
#include "tests/support/package_name.h"

namespace wv::targets {
namespace {

const std::string kHead =
    "[project]\nname = \"p\"\nrequires-python = \">=3.10\"\n\n[tool.wvlock]\n";

std::string target(const std::string& name, const std::string& extra = "") {
  return "\n[[tool.wvlock.target]]\nname = \"" + name + "\"\nplatform = \"linux-x86_64\"\n" + extra;
}

std::vector<std::string> names(const ProjectConfig& config) {
  std::vector<std::string> out;
  for (const Target& t : config.targets) out.push_back(t.name);
  return out;
}

MajorMinor python_of(const Target& t) { return *t.profile.python_version.value; }

std::string error_of(const std::string& text, const DefaultPythons& defaults = {}) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml", defaults);
  REQUIRE_FALSE(config);
  return config.error().message;
}

TEST_CASE("python pairs: a list in [tool.wvlock] gives one target per Python",
          "[targets][python_pairs]") {
  Result<ProjectConfig> config = parse_project_file(
      kHead + "python = [\"3.11\", \"3.12\"]\n" + target("cpu") +
          target("gpu", "nvidia = { cuda-driver = \"12.8\", compute-capability = \"9.0\" }\n"),
      "pyproject.toml");
  REQUIRE(config);
  CHECK(names(*config) ==
        std::vector<std::string>{"cpu-py3.11", "cpu-py3.12", "gpu-py3.11", "gpu-py3.12"});
  const Target& gpu312 = config->targets[3];
  CHECK(python_of(gpu312) == MajorMinor{3, 12});
  CHECK(gpu312.profile.python_version.source == FactSource::kDeclared);
  CHECK(gpu312.declared_name == "gpu");
  CHECK(*gpu312.profile.cuda_driver_version.value == MajorMinor{12, 8});
  CHECK(python_of(config->targets[0]) == MajorMinor{3, 11});
  CHECK(answers_to(gpu312, "gpu"));
  CHECK(answers_to(gpu312, "GPU-py3.12"));
  CHECK_FALSE(answers_to(gpu312, "cpu"));
}

TEST_CASE("python pairs: one Python keeps the name; a target's own python wins",
          "[targets][python_pairs]") {
  Result<ProjectConfig> config = parse_project_file(
      kHead + "python = [\"3.11\", \"3.12\"]\n" + target("mac", "python = \"3.12\"\n") +
          target("one", "python = [\"3.11\"]\n") + target("two", "python = [\"3.12\", \"3.13\"]\n"),
      "pyproject.toml");
  REQUIRE(config);
  CHECK(names(*config) == std::vector<std::string>{"mac", "one", "two-py3.12", "two-py3.13"});
  CHECK(config->targets[0].declared_name.empty());
  CHECK(python_of(config->targets[0]) == MajorMinor{3, 12});
  CHECK(python_of(config->targets[1]) == MajorMinor{3, 11});
}

TEST_CASE("python pairs: the caller's default answers only for targets without python",
          "[targets][python_pairs]") {
  int asked = 0;
  std::string requires_python;
  DefaultPythons defaults = [&](const ProjectConfig& config) -> Result<std::vector<MajorMinor>> {
    ++asked;
    requires_python = config.requires_python.value_or("");
    return std::vector<MajorMinor>{{3, 11}, {3, 12}};
  };
  Result<ProjectConfig> config =
      parse_project_file(kHead + target("a") + target("b") + target("c", "python = \"3.13\"\n"),
                         "pyproject.toml", defaults);
  REQUIRE(config);
  CHECK(asked == 1);  // once per file
  CHECK(requires_python == ">=3.10");  // [project] is read first
  CHECK(names(*config) == std::vector<std::string>{"a-py3.11", "a-py3.12", "b-py3.11", "b-py3.12", "c"});

  asked = 0;
  config = parse_project_file(kHead + "python = \"3.12\"\n" + target("a"), "pyproject.toml", defaults);
  REQUIRE(config);
  CHECK(asked == 0);
  CHECK(names(*config) == std::vector<std::string>{"a"});

  // The default's error is the file's.
  DefaultPythons failing = [](const ProjectConfig&) -> Result<std::vector<MajorMinor>> {
    return make_error(ErrorCode::kInvalidInput, "no interpreter satisfies requires-python");
  };
  CHECK(error_of(kHead + target("a"), failing) == "no interpreter satisfies requires-python");
  // Without a default, a target with no Python is refused as before.
  CHECK(error_of(kHead + target("a")).find("has no Python version") != std::string::npos);
}

TEST_CASE("python pairs: sources name a target by its declared name", "[targets][python_pairs]") {
  Result<ProjectConfig> config = parse_project_file(
      kHead + "python = [\"3.11\", \"3.12\"]\n"
              "[[tool.wvlock.index]]\nname = \"cu\"\nurl = \"cu/simple\"\nexplicit = true\n"
              "[tool.wvlock.sources]\ntorch = { index = \"cu\", targets = [\"gpu\"] }\n" +
          target("cpu") + target("gpu"),
      "pyproject.toml");
  REQUIRE(config);
  CHECK(applicable_source(*config, "torch"_pkg, *config->find_target("gpu-py3.11")) != nullptr);
  CHECK(applicable_source(*config, "torch"_pkg, *config->find_target("gpu-py3.12")) != nullptr);
  CHECK(applicable_source(*config, "torch"_pkg, *config->find_target("cpu-py3.11")) == nullptr);
}

TEST_CASE("python pairs: bad values are errors with file, line and column",
          "[targets][python_pairs]") {
  CHECK(error_of(kHead + "python = []\n" + target("a")) ==
        "`pyproject.toml`:6:10: `tool.wvlock.python` must not be empty");
  std::string message = error_of(kHead + "python = [\"3.11\", \"3.11\"]\n" + target("a"));
  CHECK(message == "`pyproject.toml`:6:19: `tool.wvlock.python` lists Python 3.11 twice");
  message = error_of(kHead + "python = [\"3.11\", \"three\"]\n" + target("a"));
  CHECK(message.rfind("`pyproject.toml`:6:19: `tool.wvlock.python`:", 0) == 0);
  message = error_of(kHead + "python = 3.12\n" + target("a"));
  CHECK(message.rfind("`pyproject.toml`:6:10: `tool.wvlock.python` must be a Python version", 0) == 0);
  message = error_of(kHead + target("a", "python = [\"3.12\", 3]\n"));
  CHECK(message.rfind("`pyproject.toml`:10:19: `python` must be a string", 0) == 0);
  // An expanded name that another target already has.
  message = error_of(kHead + "python = [\"3.11\", \"3.12\"]\n" + target("gpu-py3.11", "python = \"3.11\"\n") +
                     target("gpu"));
  CHECK(message.find("duplicate target name `gpu-py3.11`") != std::string::npos);
  CHECK(message.rfind("`pyproject.toml`:13:1:", 0) == 0);
}

}  // namespace
}  // namespace wv::targets
