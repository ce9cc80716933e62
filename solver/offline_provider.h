// OfflineProvider<P, V>: an in-memory registry implementing DependencyProvider over Ranges<V>,
// for tests, examples and benchmarks (pubgrub-rs `OfflineDependencyProvider`, reference §1.7).
// Candidates are tried newest first; the default priority decides packages that keep conflicting
// (5 conflicts or more, as uv) first, then the package with the fewest versions left in range.
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
  /// Conflicts after which a package is decided before the others (uv's CONFLICT_THRESHOLD).
  static constexpr std::uint32_t kConflictThreshold = 5;

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
  /// What get_dependencies says its answer applies to (`applies_to`).
  enum class Widening {
    kNone,  ///< the version alone
    kGap,   ///< the open interval between its neighbouring versions (uv's widen-to-gap)
    kRun,   ///< the run of adjacent versions with the same answer (dart pub), the default
  };
  void set_widening(Widening widening) { widening_ = widening; }

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
      for (const auto& segment : range.segments()) {
        auto [first, last] = indexes_in(it->second, segment);
        count += static_cast<std::int64_t>(last - first);
      }
    }
    // No version left: decide at once so the conflict surfaces (pubgrub-rs does the same).
    if (count == 0) return {std::numeric_limits<std::uint32_t>::max(), 0};
    // Like uv, a package moves up only once it keeps conflicting (kConflictThreshold times).
    std::uint32_t conflicts = stats.conflict_count();
    return {conflicts >= kConflictThreshold ? conflicts : 0, -count};
  }

  ProviderResult<std::optional<V>, Error> choose_version(const P& p, const Set& range) const {
    auto it = packages_.find(p);
    if (it != packages_.end()) {
      const auto& segments = range.segments();
      for (auto segment = segments.rbegin(); segment != segments.rend(); ++segment) {
        auto [first, last] = indexes_in(it->second, *segment);
        if (last > first) return std::optional<V>(it->second[last - 1].version);
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
    std::size_t i = static_cast<std::size_t>(pos - list.begin());
    if (widening_ == Widening::kGap) {
      applies_to = Set::from_segment(
          i == 0 ? Bound<V>::unbounded() : Bound<V>::excluded(list[i - 1].version),
          i + 1 == list.size() ? Bound<V>::unbounded() : Bound<V>::excluded(list[i + 1].version));
    } else if (widening_ == Widening::kRun) {
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

  // [first, last) indexes of the versions of `list` inside `segment`.
  static std::pair<std::size_t, std::size_t> indexes_in(const std::vector<Entry>& list,
                                                        const typename Set::Segment& segment) {
    auto above_lower = [&](const Entry& e) {
      const Bound<V>& b = segment.lower;
      return b.is_unbounded() || (b.is_included() ? !(e.version < b.value) : b.value < e.version);
    };
    auto below_upper = [&](const Entry& e) {
      const Bound<V>& b = segment.upper;
      return b.is_unbounded() || (b.is_included() ? !(b.value < e.version) : e.version < b.value);
    };
    auto first = std::partition_point(list.begin(), list.end(),
                                      [&](const Entry& e) { return !above_lower(e); });
    auto last = std::partition_point(first, list.end(), below_upper);
    return {static_cast<std::size_t>(first - list.begin()),
            static_cast<std::size_t>(last - list.begin())};
  }

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
  Widening widening_ = Widening::kRun;
};

}  // namespace wv::solver
