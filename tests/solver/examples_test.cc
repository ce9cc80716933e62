// The worked examples of dart-lang/pub doc/solver.md, with their exact solutions and reports.
// Only the range notation differs: dart's `^1.0.0` is our `>=1.0.0 <2.0.0` (docs/solver.md).
// Dependencies are listed in name order, as pub does, which fixes the order of derivations.
#include <catch2/catch.hpp>
#include <string>
#include <variant>

#include "semver.h"
#include "solver/offline_provider.h"
#include "solver/report.h"
#include "solver/solve.h"
#include "solver/state_impl.h"

namespace {

using namespace wv::solver;
using namespace wv::solver::test;
using Provider = OfflineProvider<std::string, SemVer>;
using Deps = std::vector<std::pair<std::string, SemRanges>>;

Solution<std::string, SemVer> expect_solution(Provider& provider) {
  auto result = solve(provider, std::string("root"), v(1));
  if (auto* failure = std::get_if<NoSolution<std::string, SemRanges, std::string>>(&result)) {
    FAIL("no solution:\n" << report(failure->tree));
  }
  REQUIRE(std::holds_alternative<Solution<std::string, SemVer>>(result));
  return std::get<Solution<std::string, SemVer>>(result);
}

std::string expect_failure(Provider& provider) {
  auto result = solve(provider, std::string("root"), v(1));
  auto* failure = std::get_if<NoSolution<std::string, SemRanges, std::string>>(&result);
  REQUIRE(failure != nullptr);
  failure->tree.collapse_no_versions();
  return report(failure->tree);
}

using Picks = std::vector<std::pair<std::string, SemVer>>;

}  // namespace

TEST_CASE("examples: no conflicts", "[solver][examples]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", caret(1)}});
  p.add_dependencies("foo", v(1), Deps{{"bar", caret(1)}});
  p.add_dependencies("bar", v(1), {});
  p.add_dependencies("bar", v(2), {});
  CHECK(expect_solution(p).packages == Picks{{"root", v(1)}, {"foo", v(1)}, {"bar", v(1)}});
}

TEST_CASE("examples: avoiding conflict during decision making", "[solver][examples]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"bar", caret(1)}, {"foo", caret(1)}});
  p.add_dependencies("foo", v(1, 1), Deps{{"bar", caret(2)}});
  p.add_dependencies("foo", v(1), {});
  p.add_dependencies("bar", v(1), {});
  p.add_dependencies("bar", v(1, 1), {});
  p.add_dependencies("bar", v(2), {});
  auto solution = expect_solution(p);
  CHECK(solution.packages.size() == 3);
  CHECK(*solution.find("foo") == v(1));
  CHECK(*solution.find("bar") == v(1, 1));
}

TEST_CASE("examples: performing conflict resolution", "[solver][examples]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", SemRanges::higher_than(v(1))}});
  p.add_dependencies("foo", v(2), Deps{{"bar", caret(1)}});
  p.add_dependencies("foo", v(1), {});
  p.add_dependencies("bar", v(1), Deps{{"foo", caret(1)}});
  CHECK(expect_solution(p).packages == Picks{{"root", v(1)}, {"foo", v(1)}});
}

TEST_CASE("examples: conflict resolution with a partial satisfier", "[solver][examples]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", caret(1)}, {"target", caret(2)}});
  p.add_dependencies("foo", v(1, 1), Deps{{"left", caret(1)}, {"right", caret(1)}});
  p.add_dependencies("foo", v(1), {});
  p.add_dependencies("left", v(1), Deps{{"shared", SemRanges::higher_than(v(1))}});
  p.add_dependencies("right", v(1), Deps{{"shared", SemRanges::strictly_lower_than(v(2))}});
  p.add_dependencies("shared", v(2), {});
  p.add_dependencies("shared", v(1), Deps{{"target", caret(1)}});
  p.add_dependencies("target", v(2), {});
  p.add_dependencies("target", v(1), {});
  auto solution = expect_solution(p);
  CHECK(solution.packages.size() == 3);
  CHECK(*solution.find("foo") == v(1));
  CHECK(*solution.find("target") == v(2));
}

TEST_CASE("examples: linear error reporting", "[solver][examples][report]") {
  // dart's list says root depends on `baz ^3.0.0`; its steps and report use `baz ^1.0.0`.
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"baz", caret(1)}, {"foo", caret(1)}});
  p.add_dependencies("foo", v(1), Deps{{"bar", caret(2)}});
  p.add_dependencies("bar", v(2), Deps{{"baz", caret(3)}});
  p.add_dependencies("baz", v(1), {});
  p.add_dependencies("baz", v(3), {});
  CHECK(expect_failure(p) ==
        "Because every version of foo depends on bar >=2.0.0 <3.0.0 which depends on baz "
        ">=3.0.0 <4.0.0, every version of foo requires baz >=3.0.0 <4.0.0.\n"
        "So, because root depends on both baz >=1.0.0 <2.0.0 and foo >=1.0.0 <2.0.0, version "
        "solving failed.");
}

TEST_CASE("examples: branching error reporting", "[solver][examples][report]") {
  Provider p;
  p.add_dependencies("root", v(1), Deps{{"foo", caret(1)}});
  p.add_dependencies("foo", v(1), Deps{{"a", caret(1)}, {"b", caret(1)}});
  p.add_dependencies("foo", v(1, 1), Deps{{"x", caret(1)}, {"y", caret(1)}});
  p.add_dependencies("a", v(1), Deps{{"b", caret(2)}});
  p.add_dependencies("b", v(1), {});
  p.add_dependencies("b", v(2), {});
  p.add_dependencies("x", v(1), Deps{{"y", caret(2)}});
  p.add_dependencies("y", v(1), {});
  p.add_dependencies("y", v(2), {});
  CHECK(expect_failure(p) ==
        "Because foo <1.1.0 depends on a >=1.0.0 <2.0.0 which depends on b >=2.0.0 <3.0.0, "
        "foo <1.1.0 requires b >=2.0.0 <3.0.0.\n"
        "So, because foo <1.1.0 depends on b >=1.0.0 <2.0.0, foo <1.1.0 is forbidden. (1)\n"
        "\n"
        "Because foo >=1.1.0 depends on x >=1.0.0 <2.0.0 which depends on y >=2.0.0 <3.0.0, "
        "foo >=1.1.0 requires y >=2.0.0 <3.0.0.\n"
        "And because foo >=1.1.0 depends on y >=1.0.0 <2.0.0, foo >=1.1.0 is forbidden.\n"
        "And because foo <1.1.0 is forbidden (1), foo is forbidden.\n"
        "So, because root depends on foo >=1.0.0 <2.0.0, version solving failed.");
}
