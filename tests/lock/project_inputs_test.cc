// Tests for lock/project_inputs.h: a project read from a real pyproject.toml (and a workspace
// member beside it) gives the requirements, one context per target (extras, pinned indexes,
// direct sources, members as editable folders), the input-hash lines and the path sources'
// metadata files with their digests, read through the file system passed in; a direct
// reference in constraints or overrides is refused at its place.
#include "lock/project_inputs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "lock/resolve.h"
#include "src/base/sha256.h"
#include "tests/support/package_name.h"
#include "tests/support/temp_dir.h"

namespace wv::lock {
namespace {

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// Records every path read, so a test can tell the reads went through it.
class RecordingFileSystem final : public ForwardingFileSystem {
 public:
  explicit RecordingFileSystem(FileSystem& inner) : ForwardingFileSystem(inner) {}
  using FileSystem::read_file;
  Result<std::string> read_file(const std::string& path, Limit limit,
                                std::uint64_t max_bytes) const override {
    read.insert(path);
    return ForwardingFileSystem::read_file(path, limit, max_bytes);
  }
  mutable std::set<std::string> read;
};

constexpr const char* kRoot = R"toml([project]
name = "App"
version = "1.0"
dependencies = ["numpy>=2", "helper @ https://example.invalid/helper-1.0.tar.gz", "core"]
[project.optional-dependencies]
GPU = ["torch>=2.8"]

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[tool.wvlock]
python = "3.12"
find-links = ["wheels/"]

[[tool.wvlock.index]]
name = "pytorch-cu128"
url = "https://download.pytorch.org/whl/cu128"
explicit = true

[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
glibc = "2.28"

[[tool.wvlock.target]]
name = "h100"
platform = "linux-x86_64"
glibc = "2.28"
extras = ["GPU"]
nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }

[tool.wvlock.sources]
torch = { index = "pytorch-cu128", targets = ["h100"] }
lib = { path = "lib" }
core = { workspace = true }
)toml";

constexpr const char* kLib = "[project]\nname = \"lib\"\nversion = \"0.1\"\n";
constexpr const char* kCore = R"toml([project]
name = "Core"
version = "0.2"
[project.optional-dependencies]
Fast = ["orjson"]
[tool.wvlock.sources]
six = { git = "https://example.invalid/six.git", tag = "v1" }
)toml";

struct Project {
  test::TempDir dir;
  targets::ProjectConfig config;
  std::vector<targets::WorkspaceMember> members;
};

// The root above, with `lib/` as a path source and `packages/core` as a member.
void make_project(Project& project, const std::string& extra_wvlock = "") {
  const std::string& dir = project.dir.path();
  std::string root = kRoot;
  if (!extra_wvlock.empty()) {
    root.insert(root.find("find-links"), extra_wvlock + "\n");
  }
  write(dir + "/pyproject.toml", root);
  write(dir + "/lib/pyproject.toml", kLib);
  write(dir + "/packages/core/pyproject.toml", kCore);
  RealFileSystem file_system;
  auto config = targets::read_project_file(file_system, dir + "/pyproject.toml");
  REQUIRE(config);
  project.config = std::move(*config);
  auto member_config = targets::parse_project_file(kCore, dir + "/packages/core/pyproject.toml");
  REQUIRE(member_config);
  project.members.push_back({"core"_pkg, dir + "/packages/core", "packages/core", std::move(*member_config)});
}

std::vector<std::string> names(const std::vector<pkg::Requirement>& requirements) {
  std::vector<std::string> out;
  for (const pkg::Requirement& requirement : requirements) out.push_back(requirement.to_string());
  return out;
}

}  // namespace

TEST_CASE("project inputs: requirements, target contexts and members", "[lock][project-inputs]") {
  Project project;
  make_project(project);
  RealFileSystem real;
  auto inputs = project_inputs(project.config, project.members, real, true);
  REQUIRE(inputs);
  const ProjectRequirements& requirements = inputs->requirements;
  CHECK(requirements.name == "App");
  CHECK(requirements.package_version == "1.0");
  CHECK(names(requirements.dependencies) ==
        std::vector<std::string>{"numpy>=2", "helper @ https://example.invalid/helper-1.0.tar.gz",
                                 "core"});
  REQUIRE(requirements.optional_dependencies.count("gpu"_pkg));
  CHECK(names(requirements.optional_dependencies.at("gpu"_pkg)) == std::vector<std::string>{"torch>=2.8"});
  CHECK(names(requirements.workspace_members) == std::vector<std::string>{"core[fast]"});

  REQUIRE(inputs->targets.size() == 2);
  const TargetContext& cpu = inputs->targets[0];
  const TargetContext& h100 = inputs->targets[1];
  CHECK(cpu.name == "cpu");
  CHECK(h100.name == "h100");
  CHECK(cpu.extras.empty());
  CHECK(h100.extras == std::vector<wv::pkg::ExtraName>{"gpu"_pkg});
  // The index entry pins torch on the target it names only.
  CHECK(cpu.pinned_indexes.empty());
  CHECK(h100.pinned_indexes == std::map<wv::pkg::PackageName, std::string>{{"torch"_pkg, "pytorch-cu128"}});
  for (const TargetContext* target : {&cpu, &h100}) {
    REQUIRE(target->direct_sources.count("lib"_pkg));
    CHECK(target->direct_sources.at("lib"_pkg).kind == pkg::DirectKind::kDirectory);
    CHECK(target->direct_sources.at("lib"_pkg).location == project.dir.path() + "/lib");
    REQUIRE(target->direct_sources.count("helper"_pkg));
    CHECK(target->direct_sources.at("helper"_pkg).kind == pkg::DirectKind::kArchive);
    REQUIRE(target->direct_sources.count("core"_pkg));
    CHECK(target->direct_sources.at("core"_pkg).kind == pkg::DirectKind::kDirectory);
    CHECK(target->direct_sources.at("core"_pkg).editable);
    CHECK(target->direct_sources.at("core"_pkg).location == project.dir.path() + "/packages/core");
    // The member's git entry serves the whole lock.
    REQUIRE(target->direct_sources.count("six"_pkg));
    CHECK(target->direct_sources.at("six"_pkg).kind == pkg::DirectKind::kGit);
  }
}

TEST_CASE("project inputs: the input-hash lines and the source trees' files",
          "[lock][project-inputs]") {
  Project project;
  make_project(project);
  RealFileSystem real;
  RecordingFileSystem recording(real);
  auto inputs = project_inputs(project.config, project.members, recording, true);
  REQUIRE(inputs);
  auto kind = [](targets::SourceEntry::Kind k) { return std::to_string(static_cast<int>(k)); };
  const std::vector<std::string> expected = {
      "find-links:wheels/",
      std::string("source-tree:core\npyproject.toml\n") + kCore,
      std::string("source-tree:lib\npyproject.toml\n") + kLib,
      "workspace-member:packages/core",
      "member-source:packages/core:six=" + kind(targets::SourceEntry::Kind::kGit) +
          ",https://example.invalid/six.git,v1,,,,,,,",
      "source:lib=" + kind(targets::SourceEntry::Kind::kPath) + ",lib,,,,,,,,",
      "project-package",
      "index:pytorch-cu128=https://download.pytorch.org/whl/cu128,explicit",
  };
  CHECK(inputs->inputs == expected);
  CHECK(inputs->input_files == std::map<std::string, std::string>{
                                   {"lib/pyproject.toml", "sha256:" + sha256_hex(kLib)},
                                   {"packages/core/pyproject.toml", "sha256:" + sha256_hex(kCore)}});
  CHECK(recording.read.count(project.dir.path() + "/lib/pyproject.toml"));
  CHECK(recording.read.count(project.dir.path() + "/packages/core/pyproject.toml"));

  // A source tree's metadata edited: its digest and the input-hash change with it.
  write(project.dir.path() + "/lib/pyproject.toml", std::string(kLib) + "description = \"x\"\n");
  auto edited = project_inputs(project.config, project.members, real, true);
  REQUIRE(edited);
  CHECK(edited->input_files.at("lib/pyproject.toml") != inputs->input_files.at("lib/pyproject.toml"));
  CHECK(input_hash(edited->requirements, edited->targets, edited->inputs) !=
        input_hash(inputs->requirements, inputs->targets, inputs->inputs));
}

TEST_CASE("project inputs: a freshness check's contexts give the lock's input-hash",
          "[lock][project-inputs]") {
  Project project;
  make_project(project);
  RealFileSystem real;
  auto lock = project_inputs(project.config, project.members, real, true);
  auto check = project_inputs(project.config, project.members, real, false);
  REQUIRE(lock);
  REQUIRE(check);
  CHECK(input_hash(check->requirements, check->targets, check->inputs) ==
        input_hash(lock->requirements, lock->targets, lock->inputs));
  // Without the member, its lines, its file and its editable source are gone.
  auto alone = project_inputs(project.config, {}, real, true);
  REQUIRE(alone);
  CHECK(alone->inputs.size() == lock->inputs.size() - 3);
  CHECK_FALSE(alone->input_files.count("packages/core/pyproject.toml"));
  CHECK_FALSE(alone->targets[0].direct_sources.count("core"_pkg));
  CHECK(alone->requirements.workspace_members.empty());
}

TEST_CASE("project inputs: direct references in constraints and overrides are refused",
          "[lock][project-inputs]") {
  for (const char* key : {"constraint-dependencies", "override-dependencies"}) {
    Project project;
    make_project(project, std::string(key) + " = [\"numpy<3\", \"six @ https://example.invalid/six.whl\"]");
    RealFileSystem real;
    auto inputs = project_inputs(project.config, project.members, real, true);
    REQUIRE_FALSE(inputs);
    CHECK(inputs.error().code == ErrorCode::kInvalidInput);
    CHECK(inputs.error().message ==
          project.dir.path() + "/pyproject.toml: " + key +
              ": `six @ https://example.invalid/six.whl` is a direct reference; constraints and "
              "overrides take version specifiers (a source goes in `[tool.wvlock.sources]`)");
  }
}

TEST_CASE("project inputs: a project with no target is refused", "[lock][project-inputs]") {
  Project project;
  make_project(project);
  project.config.targets.clear();
  RealFileSystem real;
  auto inputs = project_inputs(project.config, project.members, real, true);
  REQUIRE_FALSE(inputs);
  CHECK(inputs.error().message.find("pyproject.toml: no target to lock for") != std::string::npos);
}

}  // namespace wv::lock
