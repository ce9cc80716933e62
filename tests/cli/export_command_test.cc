// `wvlock export`: a target's extras and groups kept (or narrowed), the PEP 751 markers that
// select them, the requirements format with the same selection, and the `--json` summary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.h"
#include "lock/lockfile.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using wv::test::ProjectCopy;
using wv::test::Run;

struct LockedExample : ProjectCopy {
  LockedExample() : ProjectCopy("example") {
    Run lock = wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
  }
  wv::lock::Lockfile model() const {
    auto lockfile = wv::lock::read_lockfile(lockfile_text(), "pylock.toml");
    REQUIRE(lockfile);
    return std::move(*lockfile);
  }
  std::string lockfile_text() const { return lockfile(); }
};

// The `packages` of a summary as name==version, in order.
std::vector<std::string> listed(const json& summary) {
  std::vector<std::string> out;
  for (const json& package : summary["packages"]) {
    out.push_back(package["name"].get<std::string>() + "==" + package["version"].get<std::string>());
  }
  return out;
}

std::vector<std::string> closure(const wv::lock::Lockfile& lockfile, const std::string& target,
                                 const wv::lock::Selection& selection) {
  std::vector<std::string> out;
  for (const auto* package : lockfile.selected_closure(target, selection)) {
    out.push_back(package->name.str() + "==" + package->version);
  }
  return out;
}

}  // namespace

TEST_CASE("cli export --json: the file is written as without it and stdout summarises it",
          "[cli][export]") {
  LockedExample example;
  const wv::lock::Lockfile lockfile = example.model();
  Run plain = example.wvlock("", "export --target a100");
  REQUIRE(plain.status == 0);
  const std::string without_json = wv::test::slurp(example.dir + "/pylock.a100.toml");
  CHECK(plain.out.empty());

  Run run = example.wvlock("", "export --target a100 --json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(wv::test::slurp(example.dir + "/pylock.a100.toml") == without_json);
  json summary = json::parse(run.out);
  CHECK(nlohmann::ordered_json::parse(run.out).begin().key() == "version");
  CHECK(summary["version"] == 1);
  CHECK(summary["target"] == "a100");
  CHECK(summary["format"] == "pylock");
  CHECK(summary["output"] == "pylock.a100.toml");
  // The whole target: the extra it locked and every group.
  CHECK(summary["extras"] == json::array({"cuda"}));
  CHECK(summary["groups"] == json::array({"dev"}));
  CHECK(listed(summary) == closure(lockfile, "a100", {{"cuda"}, {"dev"}}));
  std::map<std::string, json> by_name;
  for (const json& package : summary["packages"]) by_name[package["name"]] = package;
  CHECK(by_name.at("flash-attn")["wheel"] ==
        lockfile.find_package_for_target(*wv::pkg::parse_package_name("flash-attn"), "a100")->targets.at("a100").wheels.front());
  CHECK(by_name.at("torch")["wheel"].get<std::string>().find("cuda12.8") != std::string::npos);
  CHECK_FALSE(by_name.at("torch").contains("source"));
  CHECK(by_name.count("pytest") == 1);

  // The PEP 751 file says which packages only the extra or the group needs.
  CHECK(without_json.find("extras = [\"cuda\"]\ndependency-groups = [\"dev\"]\ndefault-groups = [\"dev\"]\n") !=
        std::string::npos);
  CHECK(without_json.find("name = \"flash-attn\"\nversion = \"2.8.3\"\nmarker = \"\\\"cuda\\\" in extras\"") !=
        std::string::npos);
  CHECK(without_json.find("name = \"pytest\"\nversion = \"8.4.2\"\nmarker = \"\\\"dev\\\" in dependency_groups\"") !=
        std::string::npos);
  CHECK(without_json.find("[tool.wvlock") == std::string::npos);
  CHECK(wv::lock::read_lockfile(without_json, "pylock.a100.toml"));

  // Narrowed: no extra, no group; the requirements format with the same selection.
  Run narrowed = example.wvlock("", "export --target a100 --no-extras --no-groups --format "
                                    "requirements --output req.txt --json");
  INFO(narrowed.err);
  REQUIRE(narrowed.status == 0);
  json small = json::parse(narrowed.out);
  CHECK(small["format"] == "requirements");
  CHECK(small["output"] == "req.txt");
  CHECK(small["extras"] == json::array());
  CHECK(small["groups"] == json::array());
  CHECK(listed(small) == closure(lockfile, "a100", {}));
  const std::string requirements = wv::test::slurp(example.dir + "/req.txt");
  CHECK(requirements.find("\ntorch==2.9.0 \\\n    --hash=sha256:") != std::string::npos);
  CHECK(requirements.find("flash-attn") == std::string::npos);
  CHECK(requirements.find("pytest") == std::string::npos);
  Run group_only = example.wvlock("", "export --target a100 --no-extras --group dev --format "
                                      "requirements");
  REQUIRE(group_only.status == 0);
  CHECK(group_only.out.find("\npytest==8.4.2 \\\n") != std::string::npos);
  CHECK(group_only.out.find("flash-attn") == std::string::npos);
}

TEST_CASE("cli export: what cannot be exported is a usage error", "[cli][export]") {
  LockedExample example;
  Run to_stdout = example.wvlock("", "export --target cpu --output - --json");
  CHECK(to_stdout.status == 2);
  CHECK(to_stdout.err.find("--json prints the summary on stdout") != std::string::npos);
  CHECK(to_stdout.out.empty());
  Run requirements = example.wvlock("", "export --target cpu --format requirements --json");
  CHECK(requirements.status == 2);
  CHECK(requirements.out.empty());
  Run not_locked = example.wvlock("", "export --target cpu --extra cuda");
  CHECK(not_locked.status == 2);
  CHECK(not_locked.err.find("target `cpu` did not lock extra `cuda` (it locked: none)") !=
        std::string::npos);
  Run unknown_group = example.wvlock("", "export --target cpu --group docs");
  CHECK(unknown_group.status == 2);
  CHECK(unknown_group.err.find("did not lock dependency group `docs` (it locked: dev)") !=
        std::string::npos);
  // Any spelling of an extra is the extra; text that is no name is refused with its position.
  Run spelled = example.wvlock("", "export --target cpu --extra CUDA");
  CHECK(spelled.status == 2);
  CHECK(spelled.err.find("did not lock extra `cuda`") != std::string::npos);
  Run invalid = example.wvlock("", "export --target cpu --extra 'cu da'");
  CHECK(invalid.status == 2);
  CHECK(invalid.err.find("error: `--extra`: invalid extra or group name `cu da`") !=
        std::string::npos);
  CHECK(invalid.err.find("\n      ^") != std::string::npos);
  Run contradiction = example.wvlock("", "export --target h100 --extra cuda --no-extras");
  CHECK(contradiction.status == 2);
  CHECK_FALSE(fs::exists(example.dir + "/pylock.cpu.toml"));
  CHECK_FALSE(fs::exists(example.dir + "/pylock.h100.toml"));
}

TEST_CASE("cli export --json: a package built from source names its source", "[cli][export]") {
  ProjectCopy project("sdist", R"([project]
name = "app"
version = "1.0"
requires-python = ">=3.11"
dependencies = ["docopt", "tqdm"]

[tool.wvlock]
python = "3.11"
index-url = "../generated/simple"

[[tool.wvlock.target]]
name = "linux"
platform = "linux-x86_64"
glibc = "2.28"
)");
  REQUIRE(project.wvlock("", "lock").status == 0);
  Run run = project.wvlock("", "export --target linux --output out.toml --json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  json summary = json::parse(run.out);
  REQUIRE(summary["packages"].size() == 2);
  CHECK(summary["packages"][0] == json({{"name", "docopt"}, {"version", "0.6.2"},
                                        {"source", "docopt-0.6.2.tar.gz"}}));
  CHECK(summary["packages"][1] == json({{"name", "tqdm"}, {"version", "4.67.1"},
                                        {"wheel", "tqdm-4.67.1-py3-none-any.whl"}}));
  CHECK(wv::test::slurp(project.dir + "/out.toml").find("sdist = { name = \"docopt-0.6.2.tar.gz\"") !=
        std::string::npos);
}
