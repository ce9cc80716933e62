#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "src/base/limits.h"

using wv::Limit;

namespace {

// Restores the defaults when a test case ends, whatever it set.
struct LimitsGuard {
  ~LimitsGuard() { wv::reset_limit_values(); }
};

}  // namespace

TEST_CASE("limits: every limit has a unique name, a default within its maximum and a variable",
          "[base][limits]") {
  std::set<std::string> names;
  std::set<std::string> variables;
  int index = 0;
  for (const wv::LimitSpec& spec : wv::limit_specs()) {
    INFO(spec.name);
    CHECK(static_cast<int>(spec.id) == index++);
    CHECK(names.insert(std::string(spec.name)).second);
    CHECK(variables.insert(wv::limit_environment_variable(spec.id)).second);
    CHECK(spec.default_value >= 1);
    CHECK(spec.default_value <= spec.maximum);
    CHECK(wv::find_limit(spec.name) == spec.id);
    CHECK(wv::limit_value(spec.id) == spec.default_value);
  }
  CHECK(wv::limit_environment_variable(Limit::kPageBytes) == "WVLOCK_LIMIT_PAGE_BYTES");
  CHECK(wv::limit_environment_variable(Limit::kSolverSteps) == "WVLOCK_LIMIT_SOLVER_STEPS");
  CHECK_FALSE(wv::find_limit("page_bytes").has_value());
}

TEST_CASE("limits: --limit settings take numbers with byte suffixes and refuse the rest",
          "[base][limits]") {
  LimitsGuard guard;
  REQUIRE(wv::apply_limit_setting("page-bytes=128MiB"));
  CHECK(wv::limit_value(Limit::kPageBytes) == (std::uint64_t{128} << 20));
  REQUIRE(wv::apply_limit_setting("download-bytes=2G"));
  CHECK(wv::limit_value(Limit::kDownloadBytes) == (std::uint64_t{2} << 30));
  REQUIRE(wv::apply_limit_setting("solver-steps=1000"));
  CHECK(wv::limit_value(Limit::kSolverSteps) == 1000);

  auto unknown = wv::apply_limit_setting("pages=10");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("where NAME is one of page-bytes, ") != std::string::npos);
  CHECK_FALSE(wv::apply_limit_setting("page-bytes"));
  // Suffixes belong to byte limits; zero, junk and overflow are refused with the range.
  auto suffix = wv::apply_limit_setting("solver-steps=10K");
  REQUIRE_FALSE(suffix);
  CHECK(suffix.error().message ==
        "--limit solver-steps: `10K` is not a valid solver-steps limit: expected a whole number "
        "of steps from 1 to 1099511627776");
  CHECK_FALSE(wv::apply_limit_setting("page-bytes=0"));
  CHECK_FALSE(wv::apply_limit_setting("page-bytes=-1"));
  CHECK_FALSE(wv::apply_limit_setting("page-bytes=99999999999999999999999"));
  CHECK_FALSE(wv::apply_limit_setting("page-bytes=5000000TiB"));
  // A recursion bound may not be raised past what the stack can take.
  CHECK_FALSE(wv::apply_limit_setting("marker-depth=1000000"));
  CHECK(wv::limit_value(Limit::kMarkerDepth) == 100);
}

TEST_CASE("limits: WVLOCK_LIMIT_* variables set limits and name themselves in errors",
          "[base][limits]") {
  LimitsGuard guard;
  std::map<std::string, std::string> environment{{"WVLOCK_LIMIT_WHEEL_ENTRIES", "42"},
                                                 {"WVLOCK_LIMIT_JSON_DEPTH", ""}};
  auto getenv = [&](const char* name) -> const char* {
    auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  };
  REQUIRE(wv::apply_limit_environment(getenv));
  CHECK(wv::limit_value(Limit::kWheelEntries) == 42);
  CHECK(wv::limit_value(Limit::kJsonDepth) == 64);  // empty: unset

  environment["WVLOCK_LIMIT_TOML_BYTES"] = "lots";
  auto bad = wv::apply_limit_environment(getenv);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.rfind("WVLOCK_LIMIT_TOML_BYTES: `lots` is not a valid", 0) == 0);
}

TEST_CASE("limits: a limit error names the limit, the sizes and how to raise it",
          "[base][limits]") {
  wv::Error error = wv::limit_error(Limit::kPageBytes, "project page `x`", 2000, 1000);
  CHECK(error.code == wv::ErrorCode::kLimit);
  CHECK(error.message == "project page `x` is 2000 bytes, over the page-bytes limit of 1000 bytes");
  REQUIRE(error.notes.size() == 1);
  CHECK(error.notes[0] ==
        "raise it with `--limit page-bytes=N` or WVLOCK_LIMIT_PAGE_BYTES=N");

  LimitsGuard guard;
  wv::set_limit_value(Limit::kSolverSteps, 7);
  wv::Error unknown_size = wv::limit_error(Limit::kSolverSteps, "the resolution", std::nullopt);
  CHECK(unknown_size.message == "the resolution is over the solver-steps limit of 7 steps");
}
