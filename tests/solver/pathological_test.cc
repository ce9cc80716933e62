// Inputs that make naive backtracking solvers explode must finish fast here.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <variant>

#include "solver/offline_provider.h"
#include "solver/report.h"
#include "solver/solve.h"
#include "solver/state_impl.h"

namespace {

using namespace wv::solver;
using R = Ranges<int>;
using Provider = OfflineProvider<std::string, int>;
using Deps = std::vector<std::pair<std::string, R>>;
using Result = SolveResult<Provider>;

struct Timed {
  Result result;
  double ms;
};

Timed timed_solve(Provider& provider) {
  auto start = std::chrono::steady_clock::now();
  Result result = solve(provider, std::string("root"), 0);
  auto end = std::chrono::steady_clock::now();
  return {std::move(result), std::chrono::duration<double, std::milli>(end - start).count()};
}

// Generous: the machine is shared; the benchmark tracks the real figures.
constexpr double kFastMs = 2000;

}  // namespace

TEST_CASE("pathological: a deep chain that fails at its end backtracks to the start",
          "[solver][pathological]") {
  // p0 2 -> p1 ==2 -> ... -> p299 ==2, which is unavailable; every p_i 1 has no dependencies.
  constexpr int kDepth = 300;
  Provider p;
  p.add_dependencies("root", 0, Deps{{"p0", R::full()}});
  for (int i = 0; i < kDepth; ++i) {
    std::string name = "p" + std::to_string(i);
    p.add_dependencies(name, 1, {});
    if (i + 1 < kDepth) {
      p.add_dependencies(name, 2, Deps{{"p" + std::to_string(i + 1), R::singleton(2)}});
    } else {
      p.add_unavailable(name, 2, "its wheel is broken");
    }
  }
  Timed t = timed_solve(p);
  CHECK(t.ms < kFastMs);
  auto* solution = std::get_if<Solution<std::string, int>>(&t.result);
  REQUIRE(solution != nullptr);
  CHECK(*solution->find("p0") == 1);
  CHECK(solution->packages.size() == 2);
}

TEST_CASE("pathological: only the oldest of many versions fits", "[solver][pathological]") {
  // x_i depends on z ==i and y depends on z ==1: 2000 versions of x to rule out.
  constexpr int kVersions = 2000;
  Provider p;
  p.add_dependencies("root", 0, Deps{{"x", R::full()}, {"y", R::full()}});
  p.add_dependencies("y", 1, Deps{{"z", R::singleton(1)}});
  for (int i = 1; i <= kVersions; ++i) {
    p.add_dependencies("x", i, Deps{{"z", R::singleton(i)}});
    p.add_dependencies("z", i, {});
  }
  Timed t = timed_solve(p);
  CHECK(t.ms < kFastMs);
  auto* solution = std::get_if<Solution<std::string, int>>(&t.result);
  REQUIRE(solution != nullptr);
  CHECK(*solution->find("x") == 1);
  CHECK(*solution->find("z") == 1);
}

TEST_CASE("pathological: many versions with identical dependencies fail in one step",
          "[solver][pathological]") {
  constexpr int kVersions = 5000;
  Provider p;
  p.add_dependencies("root", 0, Deps{{"a", R::full()}});
  for (int i = 1; i <= kVersions; ++i) p.add_dependencies("a", i, Deps{{"b", R::higher_than(5)}});
  for (int i = 1; i <= 4; ++i) p.add_dependencies("b", i, {});
  Timed t = timed_solve(p);
  CHECK(t.ms < kFastMs);
  auto* failure = std::get_if<NoSolution<std::string, R, std::string>>(&t.result);
  REQUIRE(failure != nullptr);
  failure->tree.collapse_no_versions();
  CHECK(report(failure->tree) ==
        "Because no versions of b match >=5 and every version of a depends on b >=5, a is "
        "forbidden.\n"
        "So, because root depends on a, version solving failed.");
}

TEST_CASE("pathological: a package whose every version is unavailable", "[solver][pathological]") {
  constexpr int kVersions = 3000;
  Provider p;
  p.add_dependencies("root", 0, Deps{{"a", R::full()}});
  for (int i = 1; i <= kVersions; ++i) p.add_unavailable("a", i, "it has no wheel for this target");
  Timed t = timed_solve(p);
  CHECK(t.ms < kFastMs);
  auto* failure = std::get_if<NoSolution<std::string, R, std::string>>(&t.result);
  REQUIRE(failure != nullptr);
  failure->tree.collapse_no_versions();
  CHECK(report(failure->tree) ==
        "Because every version of a is unavailable because it has no wheel for this target and "
        "root depends on a, version solving failed.");

  // Different reasons: one "unavailable" fact per version (widened to the gaps between
  // versions, so the excluded set stays one interval): still fast.
  Provider q;
  q.set_widening(Provider::Widening::kGap);
  q.add_dependencies("root", 0, Deps{{"a", R::full()}});
  for (int i = 1; i <= kVersions; ++i) q.add_unavailable("a", i, "reason " + std::to_string(i));
  Timed u = timed_solve(q);
  CHECK(u.ms < kFastMs);
  CHECK(std::holds_alternative<NoSolution<std::string, R, std::string>>(u.result));

  // Not widened at all: the excluded set grows one point at a time; a few hundred stay fast.
  Provider r;
  r.set_widening(Provider::Widening::kNone);
  r.add_dependencies("root", 0, Deps{{"a", R::full()}});
  for (int i = 1; i <= 300; ++i) r.add_unavailable("a", i, "reason " + std::to_string(i));
  Timed w = timed_solve(r);
  CHECK(w.ms < kFastMs);
  CHECK(std::holds_alternative<NoSolution<std::string, R, std::string>>(w.result));
}
