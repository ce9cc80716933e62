// Template bodies of State (solver/state.h) and solve() (solver/solve.h). Heavy: include only in
// the translation unit that instantiates the solver for a provider type (style.md §6.8).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "solver/solve.h"
#include "solver/state.h"

namespace wv::solver {

namespace detail {
// A provider broke its contract (a bug, not an input error): say so and stop, like pubgrub's
// panic! and WV_CHECK.
[[noreturn]] inline void contract_violation(const char* what) {
  std::fprintf(stderr, "wv::solver: provider contract violation: %s\n", what);
  std::abort();
}
}  // namespace detail

template <class P, VersionSet VS, class M>
State<P, VS, M>::State(const P& root, const Version& root_version) : root_version_(root_version) {
  PackageId id = intern(root);
  Incompatibility<VS> not_root;
  not_root.kind = CauseKind::kNotRoot;
  not_root.terms.emplace_back(id, Term<VS>::negative(VS::singleton(root_version)));
  add_incompatibility(std::move(not_root));
}

template <class P, VersionSet VS, class M>
PackageId State<P, VS, M>::intern(const P& package) {
  PackageId id = packages_.intern(package);
  if (id >= by_package_.size()) {
    std::size_t n = static_cast<std::size_t>(id) + 1;
    by_package_.resize(n);
    stats_.resize(n);
    stats_generation_.resize(n, 0);
    known_dependencies_.resize(n);
    solution_.reserve_packages(n);
  }
  return id;
}

template <class P, VersionSet VS, class M>
IncompatibilityId State<P, VS, M>::add_incompatibility(Incompatibility<VS>&& incompat) {
  auto id = static_cast<IncompatibilityId>(store_.size());
  for (const auto& term : incompat.terms) by_package_[term.first].push_back(id);
  store_.push_back(std::move(incompat));
  return id;
}

template <class P, VersionSet VS, class M>
IncompatibilityId State<P, VS, M>::add_no_versions(PackageId p, VS set) {
  Incompatibility<VS> incompat;
  incompat.kind = CauseKind::kNoVersions;
  incompat.terms.emplace_back(p, Term<VS>::positive(std::move(set)));
  return add_incompatibility(std::move(incompat));
}

template <class P, VersionSet VS, class M>
IncompatibilityId State<P, VS, M>::add_unavailable(PackageId p, VS set, M reason) {
  Incompatibility<VS> incompat;
  incompat.kind = CauseKind::kUnavailable;
  incompat.cause1 = static_cast<IncompatibilityId>(reasons_.size());
  reasons_.push_back(std::move(reason));
  incompat.terms.emplace_back(p, Term<VS>::positive(std::move(set)));
  return add_merged(std::move(incompat));
}

template <class P, VersionSet VS, class M>
bool State<P, VS, M>::same_fact(const Incompatibility<VS>& a,
                                const Incompatibility<VS>& b) const {
  if (a.kind != b.kind || a.terms.size() != b.terms.size()) return false;
  if (a.kind == CauseKind::kUnavailable) return reasons_[a.cause1] == reasons_[b.cause1];
  if (a.dependency != b.dependency) return false;
  return a.terms.size() == 2 ? a.terms[1].second == b.terms[1].second
                             : a.dependency_set == b.dependency_set;
}

template <class P, VersionSet VS, class M>
IncompatibilityId State<P, VS, M>::add_merged(Incompatibility<VS>&& incompat) {
  const PackageId p = incompat.terms[0].first;
  const PackageId other = incompat.kind == CauseKind::kDependency ? incompat.dependency : kNoId;
  std::vector<IncompatibilityId>& earlier =
      mergeable_[(std::uint64_t(p) << 32) | std::uint64_t(other)];
  for (IncompatibilityId& past : earlier) {
    const Incompatibility<VS>& old = store_[past];
    if (!same_fact(old, incompat)) continue;
    // {p ∈ S1, not q ∈ T} and {p ∈ S2, not q ∈ T} give {p ∈ S1 ∪ S2, not q ∈ T}.
    incompat.terms[0].second = Term<VS>::positive(
        old.terms[0].second.set().union_with(incompat.terms[0].second.set()));
    for (const auto& term : old.terms) {
      auto& list = by_package_[term.first];
      list.erase(std::remove(list.begin(), list.end(), past), list.end());
    }
    past = add_incompatibility(std::move(incompat));
    return past;
  }
  IncompatibilityId id = add_incompatibility(std::move(incompat));
  earlier.push_back(id);
  return id;
}

template <class P, VersionSet VS, class M>
std::pair<IncompatibilityId, IncompatibilityId> State<P, VS, M>::add_dependencies(
    PackageId p, const VS& applies_to, const std::vector<std::pair<P, VS>>& constraints) {
  // Several constraints on one package mean their intersection.
  std::vector<std::pair<PackageId, VS>> merged;
  merged.reserve(constraints.size());
  for (const auto& [dependency, set] : constraints) {
    PackageId q = intern(dependency);
    auto it = std::find_if(merged.begin(), merged.end(),
                           [q](const auto& entry) { return entry.first == q; });
    if (it == merged.end()) {
      merged.emplace_back(q, set);
    } else {
      it->second = it->second.intersection(set);
    }
  }
  auto first = static_cast<IncompatibilityId>(store_.size());
  for (auto& [q, set] : merged) {
    Incompatibility<VS> incompat;
    incompat.kind = CauseKind::kDependency;
    incompat.dependency = q;
    if (q == p) {
      // A package depending on itself only rules out its versions outside `set`.
      VS forbidden = applies_to.intersection(set.complement());
      if (forbidden.is_empty()) continue;
      incompat.terms.emplace_back(p, Term<VS>::positive(std::move(forbidden)));
      incompat.dependency_set = std::move(set);
      add_incompatibility(std::move(incompat));
      continue;
    }
    incompat.terms.emplace_back(p, Term<VS>::positive(applies_to));
    if (set.is_empty()) {
      incompat.dependency_set = std::move(set);  // "not q ∈ ∅" is always true: no term
    } else {
      incompat.terms.emplace_back(q, Term<VS>::negative(std::move(set)));
    }
    add_merged(std::move(incompat));
  }
  return {first, static_cast<IncompatibilityId>(store_.size())};
}

template <class P, VersionSet VS, class M>
void State<P, VS, M>::mark_contradicted(IncompatibilityId id) {
  Incompatibility<VS>& incompat = store_[id];
  if (incompat.contradicted_at == kNoId) contradicted_.push_back(id);
  incompat.contradicted_at = solution_.current_level();
}

template <class P, VersionSet VS, class M>
IncompatibilityId State<P, VS, M>::unit_propagation(PackageId package) {
  changed_.clear();
  changed_.push_back(package);
  while (!changed_.empty()) {
    PackageId current = changed_.back();
    changed_.pop_back();
    IncompatibilityId conflict = kNoId;
    // Newest first: conflict resolution tends to learn more general incompatibilities later.
    const std::vector<IncompatibilityId>& list = by_package_[current];
    for (std::size_t k = list.size(); k-- > 0;) {
      IncompatibilityId id = list[k];
      const Incompatibility<VS>& incompat = store_[id];
      if (incompat.contradicted_at != kNoId) continue;  // still contradicted: nothing to learn
      PackageId which = kNoId;
      IncompatibilityRelation relation = solution_.relation(incompat, &which);
      if (relation == IncompatibilityRelation::kSatisfied) {
        conflict = id;
        break;
      }
      if (relation == IncompatibilityRelation::kAlmostSatisfied) {
        if (std::find(changed_.begin(), changed_.end(), which) == changed_.end()) {
          changed_.push_back(which);
        }
        solution_.add_derivation(which, id, *incompat.get(which));
        mark_contradicted(id);  // the new derivation contradicts the unsatisfied term
      } else if (relation == IncompatibilityRelation::kContradicted) {
        mark_contradicted(id);
      }
    }
    if (conflict != kNoId) {
      PackageId almost = kNoId;
      IncompatibilityId learned = conflict_resolution(conflict, &almost);
      if (almost == kNoId) return learned;
      changed_.clear();
      changed_.push_back(almost);
      solution_.add_derivation(almost, learned, *store_[learned].get(almost));
      mark_contradicted(learned);
    }
  }
  return kNoId;
}

template <class P, VersionSet VS, class M>
bool State<P, VS, M>::is_terminal(const Incompatibility<VS>& incompat) const {
  if (incompat.terms.empty()) return true;
  return incompat.terms.size() == 1 && incompat.terms[0].first == root() &&
         incompat.terms[0].second.contains(root_version_);
}

template <class P, VersionSet VS, class M>
Incompatibility<VS> State<P, VS, M>::prior_cause(IncompatibilityId incompat,
                                                 IncompatibilityId satisfier_cause,
                                                 PackageId package) const {
  const Incompatibility<VS>& a = store_[incompat];
  const Incompatibility<VS>& b = store_[satisfier_cause];
  Incompatibility<VS> out;
  out.kind = CauseKind::kDerived;
  out.cause1 = incompat;
  out.cause2 = satisfier_cause;
  out.terms.reserve(a.terms.size() + b.terms.size());
  for (const auto& term : a.terms) {
    if (term.first != package) out.terms.push_back(term);
  }
  for (const auto& [p, t] : b.terms) {
    if (p == package) continue;
    auto it = std::find_if(out.terms.begin(), out.terms.end(),
                           [p = p](const auto& entry) { return entry.first == p; });
    if (it == out.terms.end()) {
      out.terms.emplace_back(p, t);
    } else {
      it->second = it->second.intersection(t);
    }
  }
  // The resolution rule: {t1, q} and {t2, r} give {q, r, t1 ∪ t2}; "any" terms are dropped.
  Term<VS> merged = a.get(package)->union_with(*b.get(package));
  if (!merged.is_any()) out.terms.emplace_back(package, std::move(merged));
  return out;
}

template <class P, VersionSet VS, class M>
IncompatibilityId State<P, VS, M>::conflict_resolution(IncompatibilityId conflict,
                                                       PackageId* package) {
  ++conflicts_;
  IncompatibilityId current = conflict;
  bool learned_new = false;
  using Satisfier = typename PartialSolution<VS>::Satisfier;
  std::vector<std::pair<PackageId, Satisfier>> satisfied;
  while (true) {
    const Incompatibility<VS>& incompat = store_[current];
    if (is_terminal(incompat)) {
      *package = kNoId;
      return current;
    }
    // The satisfier: the assignment after which every term is satisfied.
    satisfied.clear();
    std::size_t best = 0;
    for (const auto& [p, t] : incompat.terms) {
      satisfied.emplace_back(p, solution_.satisfier(p, t.negate()));
      if (satisfied.back().second.global_index > satisfied[best].second.global_index) {
        best = satisfied.size() - 1;
      }
    }
    PackageId satisfier_package = satisfied[best].first;
    Satisfier satisfier = satisfied[best].second;
    // The previous satisfier: the earliest assignment that, with the satisfier, satisfies all.
    Term<VS> accumulated = satisfier.cause != kNoId
                               ? store_[satisfier.cause].get(satisfier_package)->negate()
                               : solution_.decision_term(satisfier_package);
    satisfied[best].second = solution_.satisfier(
        satisfier_package, accumulated.intersection(incompat.get(satisfier_package)->negate()));
    std::size_t previous = 0;
    for (std::size_t i = 1; i < satisfied.size(); ++i) {
      if (satisfied[i].second.global_index > satisfied[previous].second.global_index) previous = i;
    }
    // Never backjump below the root decision (level 1): better error messages, same result.
    DecisionLevel previous_level = std::max<DecisionLevel>(satisfied[previous].second.level, 1);

    if (satisfier.cause == kNoId || previous_level < satisfier.level) {
      backtrack(previous_level);
      if (learned_new) {
        for (const auto& term : store_[current].terms) by_package_[term.first].push_back(current);
      }
      record_conflict(store_[current], satisfier_package);
      *package = satisfier_package;
      return current;
    }
    Incompatibility<VS> prior = prior_cause(current, satisfier.cause, satisfier_package);
    current = static_cast<IncompatibilityId>(store_.size());
    store_.push_back(std::move(prior));
    learned_new = true;
  }
}

template <class P, VersionSet VS, class M>
void State<P, VS, M>::backtrack(DecisionLevel level) {
  solution_.backtrack(level, [](PackageId) {});
  std::size_t kept = 0;
  for (IncompatibilityId id : contradicted_) {
    Incompatibility<VS>& incompat = store_[id];
    if (incompat.contradicted_at > level) {
      incompat.contradicted_at = kNoId;
    } else {
      contradicted_[kept++] = id;
    }
  }
  contradicted_.resize(kept);
}

template <class P, VersionSet VS, class M>
void State<P, VS, M>::record_conflict(const Incompatibility<VS>& learned, PackageId affected) {
  ++stats_[affected].affected;
  ++stats_generation_[affected];
  for (const auto& term : learned.terms) {
    if (term.first == affected) continue;
    ++stats_[term.first].culprit;
    ++stats_generation_[term.first];
  }
}

template <class P, VersionSet VS, class M>
template <class Priority, class F>
PackageId State<P, VS, M>::pick_package(PriorityCache<Priority>& cache, F&& priority) {
  cache.entries.resize(packages_.size());
  PackageId best = kNoId;
  const std::vector<unsigned char>& potential = solution_.potential_flags();
  for (PackageId p = 0; p < potential.size(); ++p) {
    if (!potential[p]) continue;
    auto& entry = cache.entries[p];
    if (entry.epoch != solution_.epoch(p) || entry.stats_generation != stats_generation_[p]) {
      // A changed epoch often restores the same range (after a backjump): compare it first.
      const VS& current = range(p);
      if (!entry.valid || entry.stats_generation != stats_generation_[p] ||
          !(entry.range == current)) {
        entry.priority = priority(p, current, stats_[p]);
        entry.range = current;
        entry.valid = true;
      }
      entry.epoch = solution_.epoch(p);
      entry.stats_generation = stats_generation_[p];
    }
    if (best == kNoId || cache.entries[best].priority < entry.priority) best = p;
  }
  return best;
}

template <class P, VersionSet VS, class M>
bool State<P, VS, M>::try_decide(PackageId p, const Version& version, IncompatibilityId first,
                                 IncompatibilityId last) {
  if (solution_.has_backtracked()) {
    // Deciding would satisfy one of the new incompatibilities: let unit propagation rule the
    // version out instead (dart pub: "unless this would produce a conflict").
    Term<VS> exact = Term<VS>::exact(version);
    for (IncompatibilityId id = first; id < last; ++id) {
      PackageId which = kNoId;
      if (solution_.relation(store_[id], &which, p, &exact) ==
          IncompatibilityRelation::kSatisfied) {
        ++stats_[p].dependencies_affected;
        ++stats_generation_[p];
        for (const auto& term : store_[id].terms) {
          if (term.first == p) continue;
          ++stats_[term.first].dependencies_culprit;
          ++stats_generation_[term.first];
        }
        return false;
      }
    }
  }
  solution_.add_decision(p, version);
  return true;
}

template <class P, VersionSet VS, class M>
bool State<P, VS, M>::dependencies_known(PackageId p, const Version& version) const {
  const auto& known = known_dependencies_[p];
  return std::find(known.begin(), known.end(), version) != known.end();
}

template <class P, VersionSet VS, class M>
void State<P, VS, M>::set_dependencies_known(PackageId p, const Version& version) {
  known_dependencies_[p].push_back(version);
}

template <class P, VersionSet VS, class M>
std::vector<std::pair<P, typename VS::Version>> State<P, VS, M>::solution() const {
  std::vector<std::pair<P, Version>> out;
  solution_.for_each_decision(
      [&](PackageId p, const Version& v) { out.emplace_back(packages_[p], v); });
  return out;
}

template <class P, VersionSet VS, class M>
typename State<P, VS, M>::Tree State<P, VS, M>::derivation_tree(IncompatibilityId terminal) const {
  // Reachable incompatibilities, in id order (causes always have smaller ids).
  std::vector<IncompatibilityId> ids;
  std::unordered_map<IncompatibilityId, std::size_t> index;
  std::vector<IncompatibilityId> stack{terminal};
  index.emplace(terminal, 0);
  while (!stack.empty()) {
    IncompatibilityId id = stack.back();
    stack.pop_back();
    ids.push_back(id);
    const Incompatibility<VS>& incompat = store_[id];
    if (incompat.kind != CauseKind::kDerived) continue;
    for (IncompatibilityId cause : {incompat.cause1, incompat.cause2}) {
      if (index.emplace(cause, 0).second) stack.push_back(cause);
    }
  }
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i < ids.size(); ++i) index[ids[i]] = i;

  Tree tree;
  tree.root_package = packages_[root()];
  tree.nodes.resize(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Incompatibility<VS>& incompat = store_[ids[i]];
    auto& node = tree.nodes[i];
    for (const auto& [p, t] : incompat.terms) node.terms.emplace_back(packages_[p], t);
    switch (incompat.kind) {
      case CauseKind::kNotRoot:
        node.kind = NodeKind::kNotRoot;
        node.package = packages_[root()];
        node.set = VS::singleton(root_version_);
        break;
      case CauseKind::kNoVersions:
      case CauseKind::kUnavailable:
        node.kind = incompat.kind == CauseKind::kNoVersions ? NodeKind::kNoVersions
                                                            : NodeKind::kUnavailable;
        node.package = packages_[incompat.terms[0].first];
        node.set = incompat.terms[0].second.set();
        if (incompat.kind == CauseKind::kUnavailable) node.reason = reasons_[incompat.cause1];
        break;
      case CauseKind::kDependency:
        node.kind = NodeKind::kDependency;
        node.package = packages_[incompat.terms[0].first];
        node.set = incompat.terms[0].second.set();
        node.dependency = packages_[incompat.dependency];
        node.dependency_set =
            incompat.terms.size() == 2 ? incompat.terms[1].second.set() : incompat.dependency_set;
        break;
      case CauseKind::kDerived:
        node.kind = NodeKind::kDerived;
        node.cause1 = index[incompat.cause1];
        node.cause2 = index[incompat.cause2];
        break;
    }
  }
  tree.root = index[terminal];
  tree.recount_parents();
  return tree;
}

template <DependencyProvider D>
SolveResult<D> solve(D& provider, const typename D::Package& root,
                     const typename D::Set::Version& root_version,
                     const SolveOptions<typename D::Package, typename D::Set::Version>& options) {
  using P = typename D::Package;
  using VS = typename D::Set;
  using V = typename VS::Version;
  using M = typename D::Reason;
  using Priority = typename D::Priority;
  using StateType = State<P, VS, M>;

  StateType state(root, root_version);
  typename StateType::template PriorityCache<Priority> cache;
  std::unordered_map<P, V> preferred;
  for (const auto& [p, v] : options.preferred) preferred.emplace(p, v);
  auto priority = [&](PackageId p, const VS& range, const PackageStatistics& stats) {
    return provider.prioritize(state.package(p), range, stats);
  };

  SolveStatistics counters;
  auto finish = [&](auto&& result) -> SolveResult<D> {
    if (options.statistics) {
      counters.conflicts = state.conflict_count();
      counters.incompatibilities = state.incompatibility_count();
      *options.statistics = counters;
    }
    return SolveResult<D>(std::forward<decltype(result)>(result));
  };

  PackageId next = state.root();
  std::size_t iterations = 0;
  while (true) {
    if (options.max_steps != 0 && ++iterations + state.conflict_count() > options.max_steps) {
      counters.conflicts = state.conflict_count();
      counters.incompatibilities = state.incompatibility_count();
      return finish(StepLimitReached{options.max_steps, counters});
    }
    IncompatibilityId terminal = state.unit_propagation(next);
    if (terminal != kNoId) return finish(NoSolution<P, VS, M>{state.derivation_tree(terminal)});
    next = state.pick_package(cache, priority);
    if (next == kNoId) return finish(Solution<P, V>{state.solution()});

    const P package = state.package(next);  // a copy: interning may move the original
    const VS range = state.range(next);
    std::optional<V> version;
    if (auto it = preferred.find(package); it != preferred.end() && range.contains(it->second)) {
      auto chosen = provider.choose_version(package, VS::singleton(it->second));
      if (!chosen) return finish(ProviderFailure<typename D::Error>{std::move(chosen.error())});
      version = std::move(chosen.value());
    }
    if (!version) {
      auto chosen = provider.choose_version(package, range);
      if (!chosen) return finish(ProviderFailure<typename D::Error>{std::move(chosen.error())});
      version = std::move(chosen.value());
    }
    if (!version) {
      state.add_no_versions(next, range);
      continue;
    }
    if (!range.contains(*version)) detail::contract_violation("choose_version left the range");
    if (state.dependencies_known(next, *version)) {
      state.decide(next, *version);
      ++counters.decisions;
      continue;
    }
    ++counters.dependency_queries;
    auto dependencies = provider.get_dependencies(package, *version);
    if (!dependencies)
      return finish(ProviderFailure<typename D::Error>{std::move(dependencies.error())});
    auto& answer = dependencies.value();
    VS applies_to = answer.applies_to ? std::move(*answer.applies_to) : VS::singleton(*version);
    if (!applies_to.contains(*version)) {
      detail::contract_violation("get_dependencies: applies_to does not hold the version");
    }
    if (!answer.available) {
      state.add_unavailable(next, std::move(applies_to), std::move(answer.reason));
      continue;
    }
    state.set_dependencies_known(next, *version);
    auto [first, last] = state.add_dependencies(next, applies_to, answer.constraints);
    if (state.try_decide(next, *version, first, last)) ++counters.decisions;
  }
}

}  // namespace wv::solver
