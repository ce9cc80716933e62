// solve(): preferences, provider failures, unavailable versions and report wording hooks.
#include "solver/solve.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "semver.h"
#include "solver/offline_provider.h"
#include "solver/report.h"
#include "solver/state_impl.h"

namespace {

using namespace wv::solver;
using namespace wv::solver::test;
using Provider = OfflineProvider<std::string, SemVer>;
using Deps = std::vector<std::pair<std::string, SemRanges>>;
using Options = SolveOptions<std::string, SemVer>;

Provider registry() {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", SemRanges::full()}});
  p.add_dependencies("foo", v(1), Deps{{"bar", caret(1)}});
  p.add_dependencies("foo", v(2), Deps{{"bar", caret(2)}});
  p.add_dependencies("bar", v(1), {});
  p.add_dependencies("bar", v(1, 5), {});
  p.add_dependencies("bar", v(2), {});
  return p;
}

// A provider over another one that fails when asked about one package.
struct FlakyProvider {
  using Package = std::string;
  using Set = SemRanges;
  using Reason = std::string;
  using Error = std::string;
  using Priority = Provider::Priority;

  Provider inner;
  std::string broken;

  Priority prioritize(const std::string& p, const Set& s, const PackageStatistics& stats) const {
    return inner.prioritize(p, s, stats);
  }
  ProviderResult<std::optional<SemVer>, Error> choose_version(const std::string& p, const Set& s) {
    if (p == broken) return Failure<Error>{"the index for `" + p + "` did not answer"};
    return inner.choose_version(p, s).value();
  }
  ProviderResult<Dependencies<std::string, Set, Reason>, Error> get_dependencies(
      const std::string& p, const SemVer& version) {
    return inner.get_dependencies(p, version).value();
  }
};

// Names packages and ranges its own way, as lock/ does for Python.
struct ShoutingFormatter : DefaultReportFormatter<std::string, SemRanges, std::string> {
  std::string package_text(const std::string& p) const override { return "`" + p + "`"; }
  std::string set_text(const std::string&, const SemRanges& s) const override {
    return "in {" + s.to_string() + "}";
  }
};

}  // namespace

TEST_CASE("solve: newest versions are chosen by default", "[solver][solve]") {
  Provider p = registry();
  auto result = solve(p, std::string("root"), v(1));
  auto& solution = std::get<Solution<std::string, SemVer>>(result);
  CHECK(*solution.find("foo") == v(2));
  CHECK(*solution.find("bar") == v(2));
}

TEST_CASE("solve: preferred versions are tried first", "[solver][solve]") {
  Provider p = registry();
  Options options;
  options.preferred = {{"foo", v(1)}, {"bar", v(1)}};
  auto result = solve(p, std::string("root"), v(1), options);
  auto& solution = std::get<Solution<std::string, SemVer>>(result);
  CHECK(*solution.find("foo") == v(1));
  CHECK(*solution.find("bar") == v(1));
}

TEST_CASE("solve: a preference outside the range or unknown to the provider is ignored",
          "[solver][solve]") {
  Provider p = registry();
  Options options;
  options.preferred = {{"foo", v(2)}, {"bar", v(1)}};  // bar 1 is outside ^2 once foo 2 is chosen
  auto result = solve(p, std::string("root"), v(1), options);
  auto& solution = std::get<Solution<std::string, SemVer>>(result);
  CHECK(*solution.find("foo") == v(2));
  CHECK(*solution.find("bar") == v(2));

  options.preferred = {{"foo", v(1, 7)}};  // no such version
  auto again = solve(p, std::string("root"), v(1), options);
  CHECK(*std::get<Solution<std::string, SemVer>>(again).find("foo") == v(2));
}

TEST_CASE("solve: a provider failure stops the solve and is returned", "[solver][solve]") {
  FlakyProvider p{registry(), "bar"};
  auto result = solve(p, std::string("root"), v(1));
  auto* failure = std::get_if<ProviderFailure<std::string>>(&result);
  REQUIRE(failure != nullptr);
  CHECK(failure->error == "the index for `bar` did not answer");
}

TEST_CASE("solve: an unavailable version is skipped and its reason reported", "[solver][solve]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", SemRanges::higher_than(v(2))}});
  p.add_unavailable("foo", v(2), "it has no wheel for cp312");
  p.add_dependencies("foo", v(1), {});
  auto result = solve(p, std::string("root"), v(1));
  auto* failure = std::get_if<NoSolution<std::string, SemRanges, std::string>>(&result);
  REQUIRE(failure != nullptr);
  failure->tree.collapse_no_versions();
  CHECK(report(failure->tree) ==
        "Because foo >=2.0.0 is unavailable because it has no wheel for cp312 and root depends on "
        "foo >=2.0.0, version solving failed.");

  p.add_dependencies("foo", v(3), {});
  auto solved = solve(p, std::string("root"), v(1));
  CHECK(*std::get<Solution<std::string, SemVer>>(solved).find("foo") == v(3));
}

TEST_CASE("solve: a missing package reads as \"no versions\"", "[solver][solve][report]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"ghost", caret(1)}});
  auto result = solve(p, std::string("root"), v(1));
  auto& failure = std::get<NoSolution<std::string, SemRanges, std::string>>(result);
  failure.tree.collapse_no_versions();
  CHECK(report(failure.tree) ==
        "Because no versions of ghost match >=1.0.0 <2.0.0 and root depends on ghost >=1.0.0 "
        "<2.0.0, version solving failed.");
}

TEST_CASE("solve: the formatter names packages and ranges", "[solver][solve][report]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", caret(1)}});
  p.add_dependencies("foo", v(1), Deps{{"bar", caret(2)}});
  p.add_dependencies("foo", v(1, 1), Deps{{"bar", caret(2)}});
  p.add_dependencies("bar", v(1), {});
  auto result = solve(p, std::string("root"), v(1));
  auto& failure = std::get<NoSolution<std::string, SemRanges, std::string>>(result);
  failure.tree.collapse_no_versions();
  CHECK(report(failure.tree, ShoutingFormatter()) ==
        "Because no versions of `bar` match in {>=2.0.0 <3.0.0} and every version of `foo` "
        "depends on `bar` in {>=2.0.0 <3.0.0}, `foo` is forbidden.\n"
        "So, because `root` depends on `foo` in {>=1.0.0 <2.0.0}, version solving failed.");
}

TEST_CASE("solve: conflict statistics reach the provider's priority", "[solver][solve]") {
  // Three chains that all have to walk down to version 2 (the benchmark's backtracking case).
  struct Recording : Provider {
    std::uint32_t most_conflicts = 0;
    Priority prioritize(const std::string& p, const SemRanges& s, const PackageStatistics& stats) {
      most_conflicts = std::max(most_conflicts, stats.conflict_count());
      return Provider::prioritize(p, s, stats);
    }
  };
  Recording p;
  Deps root{{"limit", SemRanges::full()}};
  for (int v_ = 1; v_ <= 10; ++v_) p.add_dependencies("shared", v(v_), {});
  p.add_dependencies("limit", v(1), Deps{{"shared", SemRanges::strictly_lower_than(v(3))}});
  for (int i = 0; i < 3; ++i) {
    std::string chain = "p" + std::to_string(i), pin = "q" + std::to_string(i);
    root.emplace_back(chain, SemRanges::full());
    for (int v_ = 1; v_ <= 10; ++v_) {
      p.add_dependencies(chain, v(v_), Deps{{pin, SemRanges::singleton(v(v_))}});
      p.add_dependencies(pin, v(v_), Deps{{"shared", SemRanges::higher_than(v(v_))}});
    }
  }
  p.add_dependencies("root", v(1), root);
  SolveStatistics stats;
  Options options;
  options.statistics = &stats;
  auto result = solve(p, std::string("root"), v(1), options);
  auto& solution = std::get<Solution<std::string, SemVer>>(result);
  for (int i = 0; i < 3; ++i) CHECK(*solution.find("p" + std::to_string(i)) == v(2));
  CHECK(stats.conflicts > 0);
  CHECK(stats.decisions >= solution.packages.size());
  CHECK(p.most_conflicts > 0);
}

TEST_CASE("solve: a version that depends on its own package", "[solver][solve]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", SemRanges::full()}});
  p.add_dependencies("foo", v(2), Deps{{"foo", SemRanges::strictly_lower_than(v(2))}});  // never
  p.add_dependencies("foo", v(1), Deps{{"foo", SemRanges::singleton(v(1))}});            // harmless
  auto result = solve(p, std::string("root"), v(1));
  auto& solution = std::get<Solution<std::string, SemVer>>(result);
  CHECK(*solution.find("foo") == v(1));

  p.add_dependencies("root", v(1), Deps{{"foo", SemRanges::higher_than(v(2))}});
  auto failed = solve(p, std::string("root"), v(1));
  CHECK(std::holds_alternative<NoSolution<std::string, SemRanges, std::string>>(failed));
}

TEST_CASE("solve: several constraints on one package are intersected", "[solver][solve]") {
  Provider p;
  p.add_dependencies(
      "root", v(1),
      Deps{{"foo", SemRanges::higher_than(v(1))}, {"foo", SemRanges::strictly_lower_than(v(3))}});
  for (int major = 1; major <= 4; ++major) p.add_dependencies("foo", v(major), {});
  auto result = solve(p, std::string("root"), v(1));
  CHECK(*std::get<Solution<std::string, SemVer>>(result).find("foo") == v(2));
}

TEST_CASE("solve: max_steps stops a long search at the same place every time",
          "[solver][limits]") {
  // A chain of 30 packages: at least 30 steps (one decision each) are needed.
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"p0", SemRanges::full()}});
  for (int i = 0; i < 30; ++i) {
    Deps next;
    if (i + 1 < 30) next.push_back({"p" + std::to_string(i + 1), SemRanges::full()});
    p.add_dependencies("p" + std::to_string(i), v(1), next);
  }
  Options options;
  options.max_steps = 10;
  SolveStatistics statistics;
  options.statistics = &statistics;
  auto stopped = solve(p, std::string("root"), v(1), options);
  auto* limit = std::get_if<StepLimitReached>(&stopped);
  REQUIRE(limit != nullptr);
  CHECK(limit->steps == 10);
  CHECK(limit->statistics.decisions <= 10);
  auto again = solve(p, std::string("root"), v(1), options);
  REQUIRE(std::holds_alternative<StepLimitReached>(again));
  CHECK(std::get<StepLimitReached>(again).statistics.decisions == limit->statistics.decisions);

  options.max_steps = 1000;
  auto solved = solve(p, std::string("root"), v(1), options);
  auto* solution = std::get_if<Solution<std::string, SemVer>>(&solved);
  REQUIRE(solution != nullptr);
  CHECK(solution->packages.size() == 31);
  options.max_steps = 0;  // unbounded
  CHECK(std::holds_alternative<Solution<std::string, SemVer>>(solve(p, std::string("root"), v(1), options)));
}
