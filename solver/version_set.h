// The VersionSet concept: what the solver needs from a set of versions (pubgrub-rs
// `version_set.rs`, reference solver-and-formats.md §1.7). Ranges<V> models it.
// Cheap to include.
#pragma once

#include <concepts>

namespace wv::solver {

/// A set of versions with canonical representation (equal sets compare equal). The solver
/// never enumerates versions: only the provider knows which exist.
template <class VS>
concept VersionSet = std::copyable<VS> && std::equality_comparable<VS> &&
    requires(const VS& a, const VS& b, const typename VS::Version& v) {
  { VS::empty() } -> std::same_as<VS>;
  { VS::full() } -> std::same_as<VS>;
  { VS::singleton(v) } -> std::same_as<VS>;
  { a.complement() } -> std::same_as<VS>;
  { a.intersection(b) } -> std::same_as<VS>;
  { a.union_with(b) } -> std::same_as<VS>;
  { a.contains(v) } -> std::same_as<bool>;
  { a.subset_of(b) } -> std::same_as<bool>;
  { a.is_disjoint(b) } -> std::same_as<bool>;
  { a.is_empty() } -> std::same_as<bool>;
  { a.is_full() } -> std::same_as<bool>;
};

}  // namespace wv::solver
