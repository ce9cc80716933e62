// OfflineProvider<P, V>: an in-memory registry implementing DependencyProvider over Ranges<V>,
// for tests, examples and benchmarks (pubgrub-rs `OfflineDependencyProvider`, reference §1.7).
// Candidates are tried newest first; the default priority decides packages that conflict often
// first, then the package with the fewest versions left in range.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "solver/provider.h"
#include "solver/ranges.h"

namespace wv::solver {

/// A registry held in memory. P needs `std::hash`; V is the Ranges version type.
template <class P, class V, class M = std::string>
class OfflineProvider {
 public:
  using Package = P;
  using Set = Ranges<V>;
  using Reason = M;
  /// An offline registry never fails; the type exists for the concept.
  struct Error {};
  /// (conflict count, minus the number of versions in range): higher is decided first.
  using Priority = std::tuple<std::uint32_t, std::int64_t>;

  /// Records that version `v` of `p` depends on each (package, set) of `constraints`.
  void add_dependencies(const P& p, const V& v, std::vector<std::pair<P, Set>> constraints) {
    Entry& e = entry(p, v);
    e.available = true;
    e.constraints = std::move(constraints);
  }
  /// Records that version `v` of `p` exists but cannot be used, because of `reason`.
  void add_unavailable(const P& p, const V& v, M reason) {
    Entry& e = entry(p, v);
    e.available = false;
    e.reason = std::move(reason);
    e.constraints.clear();
  }
  /// Whether get_dependencies reports the run of adjacent versions with the same answer
  /// (default on; dart pub's collapsing of adjacent versions).
  void set_widening(bool on) { widening_ = on; }

  /// The versions of `p`, oldest first (empty when unknown).
  std::vector<V> versions(const P& p) const {
    std::vector<V> out;
    auto it = packages_.find(p);
    if (it != packages_.end()) {
      for (const Entry& e : it->second) out.push_back(e.version);
    }
    return out;
  }
  /// The dependencies of (p, v), or nullptr when that version is unknown or unavailable.
  const std::vector<std::pair<P, Set>>* constraints(const P& p, const V& v) const {
    const Entry* e = find(p, v);
    return e && e->available ? &e->constraints : nullptr;
  }
  /// Every package, in insertion order of first version.
  const std::vector<P>& packages() const { return order_; }

  Priority prioritize(const P& p, const Set& range, const PackageStatistics& stats) const {
    std::int64_t count = 0;
    auto it = packages_.find(p);
    if (it != packages_.end()) {
      for (const Entry& e : it->second) count += range.contains(e.version) ? 1 : 0;
    }
    // No version left: decide at once so the conflict surfaces (pubgrub-rs does the same).
    if (count == 0) return {std::numeric_limits<std::uint32_t>::max(), 0};
    return {stats.conflict_count(), -count};
  }

  ProviderResult<std::optional<V>, Error> choose_version(const P& p, const Set& range) const {
    auto it = packages_.find(p);
    if (it != packages_.end()) {
      for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
        if (range.contains(e->version)) return std::optional<V>(e->version);
      }
    }
    return std::optional<V>();
  }

  ProviderResult<Dependencies<P, Set, M>, Error> get_dependencies(const P& p, const V& v) const {
    auto it = packages_.find(p);
    if (it == packages_.end()) return Failure<Error>{};
    const std::vector<Entry>& list = it->second;
    auto pos = std::lower_bound(list.begin(), list.end(), v,
                                [](const Entry& e, const V& x) { return e.version < x; });
    if (pos == list.end() || !(pos->version == v)) return Failure<Error>{};
    std::optional<Set> applies_to;
    if (widening_) {
      std::size_t i = static_cast<std::size_t>(pos - list.begin());
      std::size_t lo = i, hi = i;
      while (lo > 0 && same_answer(list[lo - 1], list[i])) --lo;
      while (hi + 1 < list.size() && same_answer(list[hi + 1], list[i])) ++hi;
      applies_to = Set::from_segment(
          lo == 0 ? Bound<V>::unbounded() : Bound<V>::included(list[lo].version),
          hi + 1 == list.size() ? Bound<V>::unbounded() : Bound<V>::excluded(list[hi + 1].version));
    }
    if (!pos->available) return Dependencies<P, Set, M>::unavailable(pos->reason, applies_to);
    return Dependencies<P, Set, M>::of(pos->constraints, applies_to);
  }

 private:
  struct Entry {
    V version;
    bool available = true;
    std::vector<std::pair<P, Set>> constraints;
    M reason{};
  };

  static bool same_answer(const Entry& a, const Entry& b) {
    if (a.available != b.available) return false;
    return a.available ? a.constraints == b.constraints : a.reason == b.reason;
  }

  Entry& entry(const P& p, const V& v) {
    auto [it, inserted] = packages_.try_emplace(p);
    if (inserted) order_.push_back(p);
    std::vector<Entry>& list = it->second;
    auto pos = std::lower_bound(list.begin(), list.end(), v,
                                [](const Entry& e, const V& x) { return e.version < x; });
    if (pos != list.end() && pos->version == v) return *pos;
    return *list.insert(pos, Entry{v, true, {}, M{}});
  }

  const Entry* find(const P& p, const V& v) const {
    auto it = packages_.find(p);
    if (it == packages_.end()) return nullptr;
    for (const Entry& e : it->second) {
      if (e.version == v) return &e;
    }
    return nullptr;
  }

  std::unordered_map<P, std::vector<Entry>> packages_;
  std::vector<P> order_;
  bool widening_ = true;
};

}  // namespace wv::solver
