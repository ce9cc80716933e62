// Small integer ids for packages: the solver's hot loop compares and indexes uint32_t, never
// package values (pubgrub-rs `internal/arena.rs`, reference §1.7). Cheap to include.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace wv::solver {

/// Index of an interned package.
using PackageId = std::uint32_t;
/// Index of an incompatibility in the State's store.
using IncompatibilityId = std::uint32_t;
/// Number of decisions at or before an assignment (the root decision is level 1).
using DecisionLevel = std::uint32_t;

/// A value that means "none" for any of the ids above.
inline constexpr std::uint32_t kNoId = 0xffffffffu;

/// Interns packages: ids are dense and given in first-seen order (the breadth-first tie-break).
/// P needs `==` and `std::hash<P>`.
template <class P, class Hash = std::hash<P>>
class Interner {
 public:
  /// The id of `package`, interning it on first sight.
  PackageId intern(const P& package) {
    auto [it, inserted] = ids_.try_emplace(package, static_cast<PackageId>(values_.size()));
    if (inserted) values_.push_back(package);
    return it->second;
  }
  /// The id of `package`, or kNoId when it was never interned.
  PackageId find(const P& package) const {
    auto it = ids_.find(package);
    return it == ids_.end() ? kNoId : it->second;
  }
  /// The package with id `id`.
  const P& operator[](PackageId id) const { return values_[id]; }
  /// Number of interned packages.
  std::size_t size() const { return values_.size(); }

 private:
  std::unordered_map<P, PackageId, Hash> ids_;
  std::vector<P> values_;
};

}  // namespace wv::solver
