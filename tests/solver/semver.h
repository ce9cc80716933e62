// A three-part version for the solver tests (1.0.0 < 1.1.0 < 2.0.0), printed like dart pub's
// doc/solver.md examples, and helpers to write its ranges (`^1.0.0` is caret(1, 0, 0)).
#pragma once

#include <compare>
#include <functional>
#include <ostream>

#include "solver/ranges.h"

namespace wv::solver::test {

struct SemVer {
  int major = 0;
  int minor = 0;
  int patch = 0;
  friend auto operator<=>(const SemVer&, const SemVer&) = default;
  friend std::ostream& operator<<(std::ostream& out, const SemVer& v) {
    return out << v.major << '.' << v.minor << '.' << v.patch;
  }
};

using SemRanges = Ranges<SemVer>;

inline SemVer v(int major, int minor = 0, int patch = 0) { return SemVer{major, minor, patch}; }
/// dart's ^X.Y.Z for X >= 1: >=X.Y.Z <(X+1).0.0.
inline SemRanges caret(int major, int minor = 0, int patch = 0) {
  return SemRanges::between(v(major, minor, patch), v(major + 1));
}

}  // namespace wv::solver::test
