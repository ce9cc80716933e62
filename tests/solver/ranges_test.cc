#include "solver/ranges.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

namespace {

using wv::solver::Bound;
using R = wv::solver::Ranges<int>;

// A random set over the integers 0..20 built from a few random intervals, so the algebra is
// checked against plain membership of every point (and of the half points, through 2x scaling).
R random_ranges(std::mt19937& rng) {
  std::uniform_int_distribution<int> count(0, 3), point(0, 20), kind(0, 3);
  R out = R::empty();
  int n = count(rng);
  for (int i = 0; i < n; ++i) {
    int a = point(rng), b = point(rng);
    if (b < a) std::swap(a, b);
    Bound<int> lo = kind(rng) == 0   ? Bound<int>::unbounded()
                    : kind(rng) == 1 ? Bound<int>::excluded(a)
                                     : Bound<int>::included(a);
    Bound<int> hi = kind(rng) == 0   ? Bound<int>::unbounded()
                    : kind(rng) == 1 ? Bound<int>::excluded(b)
                                     : Bound<int>::included(b);
    out = out.union_with(R::from_segment(lo, hi));
  }
  return out;
}

// Every test point: integers and half-integers (as x/2) cover the continuous semantics on
// the integer bounds used above; with int versions we test on even numbers scaled by 2.
std::vector<int> points() {
  std::vector<int> out;
  for (int i = -2; i <= 22; ++i) out.push_back(i);
  return out;
}

bool canonical(const R& r) {
  const auto& s = r.segments();
  for (std::size_t i = 1; i < s.size(); ++i) {
    // Sorted with a gap: the previous upper is below the next lower, and not both touching.
    const auto& up = s[i - 1].upper;
    const auto& lo = s[i].lower;
    if (up.is_unbounded() || lo.is_unbounded()) return false;
    if (lo.value < up.value) return false;
    if (lo.value == up.value && (up.is_included() || lo.is_included())) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("ranges: constructors hold exactly their versions", "[solver][ranges]") {
  CHECK(R::empty().is_empty());
  CHECK(R::full().is_full());
  CHECK(R::full().contains(-1000000));
  CHECK(R::singleton(3).contains(3));
  CHECK_FALSE(R::singleton(3).contains(4));
  CHECK(R::higher_than(3).contains(3));
  CHECK_FALSE(R::higher_than(3).contains(2));
  CHECK_FALSE(R::strictly_higher_than(3).contains(3));
  CHECK(R::lower_than(3).contains(3));
  CHECK_FALSE(R::strictly_lower_than(3).contains(3));
  CHECK(R::between(1, 3).contains(1));
  CHECK(R::between(1, 3).contains(2));
  CHECK_FALSE(R::between(1, 3).contains(3));
  CHECK(R::between(3, 3).is_empty());
  CHECK(R::between(4, 3).is_empty());
  REQUIRE(R::singleton(5).as_singleton() != nullptr);
  CHECK(*R::singleton(5).as_singleton() == 5);
  CHECK(R::between(5, 6).as_singleton() == nullptr);
}

TEST_CASE("ranges: text form", "[solver][ranges]") {
  CHECK(R::full().to_string() == "*");
  CHECK(R::singleton(2).to_string() == "==2");
  CHECK(R::between(1, 3).to_string() == ">=1 <3");
  CHECK(R::strictly_lower_than(1).union_with(R::higher_than(3)).to_string() == "<1 | >=3");
  CHECK(R::strictly_higher_than(1).to_string() == ">1");
  CHECK(R::lower_than(1).to_string() == "<=1");
}

TEST_CASE("ranges: adjacent intervals merge, separated ones do not", "[solver][ranges]") {
  CHECK(R::between(1, 3).union_with(R::between(3, 5)) == R::between(1, 5));
  CHECK(R::strictly_lower_than(3).union_with(R::strictly_higher_than(3)).segments().size() == 2);
  CHECK(R::strictly_lower_than(3)
            .union_with(R::singleton(3))
            .union_with(R::strictly_higher_than(3)) == R::full());
  CHECK(R::singleton(3).complement().complement() == R::singleton(3));
  CHECK(R::empty().complement() == R::full());
  CHECK(R::full().complement() == R::empty());
}

TEST_CASE("ranges: set algebra laws hold on random sets", "[solver][ranges]") {
  std::mt19937 rng(20261129);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    R a = random_ranges(rng), b = random_ranges(rng), c = random_ranges(rng);
    R i = a.intersection(b), u = a.union_with(b), na = a.complement();
    REQUIRE(canonical(i));
    REQUIRE(canonical(u));
    REQUIRE(canonical(na));
    for (int x : points()) {
      INFO("a=" << a.to_string() << " b=" << b.to_string() << " x=" << x);
      REQUIRE(i.contains(x) == (a.contains(x) && b.contains(x)));
      REQUIRE(u.contains(x) == (a.contains(x) || b.contains(x)));
      REQUIRE(na.contains(x) == !a.contains(x));
    }
    // Algebraic laws (exact, on representations: they are canonical).
    REQUIRE(na.complement() == a);
    REQUIRE(a.intersection(b) == b.intersection(a));
    REQUIRE(a.union_with(b) == b.union_with(a));
    REQUIRE(a.intersection(b.intersection(c)) == a.intersection(b).intersection(c));
    REQUIRE(a.union_with(b.union_with(c)) == a.union_with(b).union_with(c));
    REQUIRE(u.complement() == na.intersection(b.complement()));  // De Morgan
    REQUIRE(a.intersection(b.union_with(c)) == i.union_with(a.intersection(c)));
    REQUIRE(a.intersection(na).is_empty());
    REQUIRE(a.union_with(na).is_full());
    REQUIRE(a.subset_of(u));
    REQUIRE(i.subset_of(a));
    REQUIRE(a.subset_of(b) == (a.intersection(b) == a));
    REQUIRE(a.is_disjoint(b) == a.intersection(b).is_empty());
    REQUIRE(a.is_disjoint(na));
  }
}
