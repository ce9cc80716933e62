// Tests for the workspace table of targets/project_file.h: `[tool.wvlock.workspace]` and uv's
// `[tool.uv.workspace]` members and exclude with their positions, `workspace = true` sources,
// and the errors a reader reports at line and column.
#include <catch2/catch.hpp>

#include "targets/project_file.h"
#include "tests/support/package_name.h"

namespace wv::targets {
namespace {

constexpr std::string_view kRoot = R"toml([project]
name = "root"
version = "1.0"

[tool.wvlock.workspace]
members = ["packages/*", "tools/cli"]
exclude = ["packages/old"]

[tool.wvlock.sources]
core = { workspace = true }
)toml";

std::string error_of(std::string_view text) {
  Result<ProjectConfig> config = parse_project_file(text, "pyproject.toml");
  REQUIRE_FALSE(config);
  CHECK(config.error().code == ErrorCode::kInvalidInput);
  return config.error().message;
}

}  // namespace

TEST_CASE("workspace config: members, exclude and workspace sources with their positions",
          "[targets][workspace]") {
  Result<ProjectConfig> config = parse_project_file(kRoot, "pyproject.toml");
  INFO((config ? "" : config.error().message));
  REQUIRE(config);
  REQUIRE(config->workspace);
  REQUIRE(config->workspace->members.size() == 2);
  CHECK(config->workspace->members[0].glob == "packages/*");
  CHECK(config->workspace->members[0].line == 6);
  CHECK(config->workspace->members[0].column == 12);
  CHECK(config->workspace->members[1].glob == "tools/cli");
  CHECK(config->workspace->members[1].column == 26);
  REQUIRE(config->workspace->exclude.size() == 1);
  CHECK(config->workspace->exclude[0].glob == "packages/old");
  CHECK(config->name_line == 2);
  CHECK(config->name_column == 8);
  REQUIRE(config->sources.count("core"_pkg));
  const SourceEntry& core = config->sources.at("core"_pkg).front();
  CHECK(core.kind == SourceEntry::Kind::kWorkspace);
  CHECK(core.line == 10);
  CHECK(core.column == 8);
  // A workspace source is no folder of its own: the CLI maps it to the member.
  CHECK_FALSE(direct_source(*config, core));

  // The cheap reader sees the same table, and nothing in a file without one.
  auto table = parse_workspace_table(kRoot, "pyproject.toml");
  REQUIRE(table);
  REQUIRE(*table);
  CHECK(**table == *config->workspace);
  auto none = parse_workspace_table("[project]\nname = \"x\"\n", "pyproject.toml");
  REQUIRE(none);
  CHECK_FALSE(*none);
}

TEST_CASE("workspace config: uv's table and sources are read; wvlock's table wins",
          "[targets][workspace]") {
  Result<ProjectConfig> uv = parse_project_file(
      "[project]\nname = \"root\"\n[tool.uv.workspace]\nmembers = [\"libs/*\"]\n"
      "[tool.uv.sources]\ncore = { workspace = true }\n",
      "pyproject.toml");
  INFO((uv ? "" : uv.error().message));
  REQUIRE(uv);
  REQUIRE(uv->workspace);
  CHECK(uv->workspace->members.at(0).glob == "libs/*");
  CHECK(uv->sources.at("core"_pkg).front().kind == SourceEntry::Kind::kWorkspace);
  CHECK(uv->warnings.empty());

  Result<ProjectConfig> both = parse_project_file(
      "[tool.uv.workspace]\nmembers = [\"libs/*\"]\n[tool.wvlock.workspace]\nmembers = [\"pkgs/*\"]\n",
      "pyproject.toml");
  REQUIRE(both);
  CHECK(both->workspace->members.at(0).glob == "pkgs/*");
}

TEST_CASE("workspace config: malformed tables are errors at line and column",
          "[targets][workspace]") {
  CHECK(error_of("[tool.wvlock]\nworkspace = 1\n") ==
        "`pyproject.toml`:2:13: `tool.wvlock.workspace` must be a table");
  CHECK(error_of("[tool.wvlock.workspace]\nmembers = \"packages/*\"\n") ==
        "`pyproject.toml`:2:11: `tool.wvlock.workspace.members` must be an array of globs");
  CHECK(error_of("[tool.wvlock.workspace]\nmembers = [\"/abs\"]\n") ==
        "`pyproject.toml`:2:12: `tool.wvlock.workspace.members` entries are globs relative to "
        "the workspace root, not `/abs`");
  CHECK(error_of("[tool.wvlock.workspace]\nmembers = [1]\n") ==
        "`pyproject.toml`:2:12: `tool.wvlock.workspace.members` must be a string");
  const std::string unknown = error_of("[tool.wvlock.workspace]\nmember = [\"a\"]\n");
  CHECK(unknown.find("`pyproject.toml`:2:1:") == 0);
  CHECK(unknown.find("`member`") != std::string::npos);
}

}  // namespace wv::targets
