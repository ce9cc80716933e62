// Conformance: markers and requirements against packaging 26.4's answers in
// conformance/pep-current/{markers,marker-environments,requirements}.jsonl (every line, every field,
// every evaluation case including the ones where the reference raises).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/pkg/marker.h"
#include "src/pkg/requirement.h"
#include "tests/support/conformance.h"

namespace {

using nlohmann::json;
using wv::pkg::MarkerEnvironment;
using wv::pkg::PreparedEnvironment;

// Prints the first few failures so a regression is readable, then only counts.
void report(int& failed, const std::string& what) {
  if (++failed <= 20) std::cerr << "FAIL " << what << "\n";
}

std::string text_or_null(const json& value) {
  return value.is_null() ? std::string("<null>") : value.get<std::string>();
}

std::map<int, MarkerEnvironment> read_environments(const std::string& path) {
  std::map<int, MarkerEnvironment> environments;
  const bool readable = wv::test::for_each_line(path, [&](std::string_view line, int) {
    const json entry = json::parse(line);
    const json& v = entry.at("values");
    MarkerEnvironment env;
    env.implementation_name = v.at("implementation_name");
    env.implementation_version = v.at("implementation_version");
    env.os_name = v.at("os_name");
    env.platform_machine = v.at("platform_machine");
    env.platform_python_implementation = v.at("platform_python_implementation");
    env.platform_release = v.at("platform_release");
    env.platform_system = v.at("platform_system");
    env.platform_version = v.at("platform_version");
    env.python_full_version = v.at("python_full_version");
    env.python_version = v.at("python_version");
    env.sys_platform = v.at("sys_platform");
    environments[entry.at("env").get<int>()] = env;
  });
  REQUIRE(readable);
  return environments;
}

}  // namespace

TEST_CASE("pep508: markers match packaging 26.4 (markers.jsonl)", "[pkg][pep508][conformance]") {
  const std::optional<std::string> dir = wv::test::conformance_dir();
  if (!dir) return;
  const std::map<int, MarkerEnvironment> environments =
      read_environments(*dir + "/pep-current/marker-environments.jsonl");
  REQUIRE(environments.size() == 4);
  std::map<int, PreparedEnvironment> prepared;
  for (const auto& [index, env] : environments) prepared.emplace(index, PreparedEnvironment(env));

  int passed = 0;
  int failed = 0;
  int cases = 0;
  const bool readable = wv::test::for_each_line(
      *dir + "/pep-current/markers.jsonl", [&](std::string_view line, int number) {
        const json entry = json::parse(line);
        const std::string input = entry.at("marker");
        const std::string where = "line " + std::to_string(number) + " `" + input + "`";
        wv::Result<wv::pkg::Marker> marker = wv::pkg::parse_marker(input);
        if (!entry.at("valid").get<bool>()) {
          if (marker) {
            report(failed, where + ": expected invalid, parsed as `" + marker->to_string() + "`");
          } else {
            ++passed;
          }
          return;
        }
        if (!marker) {
          report(failed, where + ": expected valid: " + marker.error().to_string());
          return;
        }
        bool ok = true;
        if (marker->to_string() != entry.at("normalized").get<std::string>()) {
          report(failed, where + ": normalized `" + marker->to_string() + "`, expected `" +
                             entry.at("normalized").get<std::string>() + "`");
          ok = false;
        }
        for (const json& c : entry.at("cases")) {
          ++cases;
          const int env = c.at("env").get<int>();
          const std::string extra = c.at("extra").is_null() ? "" : c.at("extra").get<std::string>();
          wv::pkg::MarkerContext context;
          context.environment = &prepared.at(env);
          if (!extra.empty()) context.extras = std::span<const std::string>(&extra, 1);
          const wv::Result<bool> result = marker->evaluate(context);
          const std::string label = where + " env " + std::to_string(env) + " extra `" + extra + "`";
          if (c.contains("error")) {
            const std::string kind = c.at("error");
            // The reference's exception class; our messages name the same failure.
            const std::string phrase = kind == "InvalidVersion"        ? "invalid version"
                                       : kind == "UndefinedComparison" ? "undefined comparison"
                                                                       : "undefined environment name";
            if (result) {
              report(failed, label + ": expected error " + kind + ", got " +
                                 (*result ? "true" : "false"));
              ok = false;
            } else if (result.error().message.find(phrase) == std::string::npos) {
              report(failed, label + ": expected " + kind + ", got: " + result.error().message);
              ok = false;
            }
          } else if (!result) {
            report(failed, label + ": unexpected error: " + result.error().message);
            ok = false;
          } else if (*result != c.at("result").get<bool>()) {
            report(failed, label + ": got " + (*result ? "true" : "false"));
            ok = false;
          }
        }
        if (ok) ++passed;
      });
  REQUIRE(readable);
  std::cout << "markers.jsonl: " << cases << " evaluation cases checked\n";
  wv::test::print_tally("markers.jsonl", passed, failed);
  CHECK(passed > 0);
  REQUIRE(failed == 0);
}

TEST_CASE("pep508: requirements match packaging 26.4 (requirements.jsonl)",
          "[pkg][pep508][conformance]") {
  const std::optional<std::string> dir = wv::test::conformance_dir();
  if (!dir) return;
  int passed = 0;
  int failed = 0;
  const bool readable = wv::test::for_each_line(
      *dir + "/pep-current/requirements.jsonl", [&](std::string_view line, int number) {
        const json entry = json::parse(line);
        const std::string input = entry.at("input");
        const std::string where = "line " + std::to_string(number) + " `" + input + "`";
        wv::Result<wv::pkg::Requirement> requirement = wv::pkg::parse_requirement(input);
        if (!entry.at("valid").get<bool>()) {
          if (requirement) {
            report(failed, where + ": expected invalid, parsed as `" + requirement->to_string() + "`");
          } else {
            ++passed;
          }
          return;
        }
        if (!requirement) {
          report(failed, where + ": expected valid: " + requirement.error().to_string());
          return;
        }
        std::vector<std::string> mismatches;
        auto expect = [&](const char* field, const std::string& got, const std::string& want) {
          if (got != want) mismatches.push_back(std::string(field) + " `" + got + "` != `" + want + "`");
        };
        expect("name", requirement->name, entry.at("name"));
        expect("extras", json(requirement->extras).dump(), entry.at("extras").dump());
        expect("specifier", requirement->specifier.to_string(), entry.at("specifier"));
        expect("url", requirement->url ? *requirement->url : "<null>", text_or_null(entry.at("url")));
        expect("marker", requirement->marker.is_empty() ? "<null>" : requirement->marker.to_string(),
               text_or_null(entry.at("marker")));
        expect("normalized", requirement->to_string(), entry.at("normalized"));
        if (mismatches.empty()) {
          ++passed;
        } else {
          std::string text = where;
          for (const std::string& m : mismatches) text += "; " + m;
          report(failed, text);
        }
      });
  REQUIRE(readable);
  wv::test::print_tally("requirements.jsonl", passed, failed);
  CHECK(passed > 0);
  REQUIRE(failed == 0);
}
