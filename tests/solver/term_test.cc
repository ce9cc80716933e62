#include "solver/term.h"

#include <catch2/catch.hpp>
#include <random>

#include "solver/ranges.h"

namespace {

// double versions: checking the half points too matches the continuous semantics of Ranges.
using R = wv::solver::Ranges<double>;
using T = wv::solver::Term<R>;
using wv::solver::TermRelation;

// A selection: not selected (-1) or a version 0, 0.5, ..., 10.
bool holds(const T& t, double selection) {
  if (selection < 0) return t.is_negative();  // "not selected" makes only negative terms true
  return t.contains(selection);
}

T random_term(std::mt19937& rng) {
  std::uniform_int_distribution<int> p(0, 9), coin(0, 1), shape(0, 3);
  R set;
  switch (shape(rng)) {
    case 0:
      set = R::empty();
      break;
    case 1:
      set = R::full();
      break;
    case 2:
      set = R::singleton(p(rng));
      break;
    default: {
      int a = p(rng), b = p(rng);
      set = R::between(std::min(a, b), std::max(a, b) + 1);
    }
  }
  return T(coin(rng) == 1, set);
}

}  // namespace

TEST_CASE("term: positive and negative terms and their negation", "[solver][term]") {
  T foo = T::positive(R::between(1, 3));
  CHECK(foo.contains(1));
  CHECK_FALSE(foo.contains(3));
  CHECK(foo.negate().is_negative());
  CHECK(foo.negate().contains(3));
  CHECK(T::any().is_any());
  CHECK(T::empty().is_empty());
  CHECK(T::exact(4).contains(4));
  CHECK_FALSE(T::exact(4).contains(5));
}

TEST_CASE("term: relation of assignments to a term", "[solver][term]") {
  using I = wv::solver::Ranges<int>;
  using TI = wv::solver::Term<I>;
  TI wanted = TI::positive(I::between(1, 5));
  CHECK(wanted.relation_with(TI::exact(2)) == TermRelation::kSatisfied);
  CHECK(wanted.relation_with(TI::exact(7)) == TermRelation::kContradicted);
  CHECK(wanted.relation_with(TI::positive(I::between(3, 9))) == TermRelation::kInconclusive);
  // A negative assignment never satisfies a positive term: the package may be unselected.
  CHECK(wanted.relation_with(TI::negative(I::between(6, 9))) == TermRelation::kInconclusive);
  CHECK(wanted.relation_with(TI::negative(I::full())) == TermRelation::kContradicted);
  TI unwanted = TI::negative(I::between(1, 5));
  CHECK(unwanted.relation_with(TI::negative(I::between(0, 6))) == TermRelation::kSatisfied);
  CHECK(unwanted.relation_with(TI::exact(3)) == TermRelation::kContradicted);
  CHECK(unwanted.satisfied_by(TI::exact(7)));
}

TEST_CASE("term: intersection, union, subset and disjointness agree with selections",
          "[solver][term]") {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 5000; ++iteration) {
    T a = random_term(rng), b = random_term(rng);
    T i = a.intersection(b), u = a.union_with(b);
    bool subset = true, disjoint = true;
    for (int k = -1; k <= 20; ++k) {
      double s = k < 0 ? -1.0 : k / 2.0;
      INFO("s=" << s);
      REQUIRE(holds(i, s) == (holds(a, s) && holds(b, s)));
      REQUIRE(holds(u, s) == (holds(a, s) || holds(b, s)));
      REQUIRE(holds(a.negate(), s) == !holds(a, s));
      if (holds(a, s) && !holds(b, s)) subset = false;
      if (holds(a, s) && holds(b, s)) disjoint = false;
    }
    // Sets use integer bounds in 0..10 and only `full` reaches past them, so versions below 0
    // behave like 10, and the half points cover every region between bounds: exhaustive.
    INFO("a=" << a.is_positive() << a.set().to_string() << " b=" << b.is_positive()
              << b.set().to_string());
    REQUIRE(a.subset_of(b) == subset);
    REQUIRE(a.is_disjoint(b) == disjoint);
  }
}
