// The DependencyProvider concept: how the solver asks a package source for candidate versions,
// dependencies and decision priorities (pubgrub-rs `DependencyProvider`, reference §1.7, §1.9),
// plus ProviderResult (a provider's own error as a value) and Dependencies.
// OfflineProvider, an in-memory registry, lives in solver/offline_provider.h.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "solver/version_set.h"

namespace wv::solver {

/// A provider error, to return from a provider call: `return Failure<E>{e};`.
template <class E>
struct Failure {
  E error;
};

/// A provider call's result: a value, or the provider's own error type E.
template <class T, class E>
class [[nodiscard]] ProviderResult {
 public:
  ProviderResult(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  ProviderResult(Failure<E> failure)                                            // NOLINT
      : data_(std::in_place_index<1>, std::move(failure.error)) {}

  bool has_value() const { return data_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() { return std::get<0>(data_); }
  const T& value() const { return std::get<0>(data_); }
  E& error() { return std::get<1>(data_); }
  const E& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, E> data_;
};

/// The answer to "what does version v of p need?": a list of constraints, or "unavailable"
/// with the provider's reason. `applies_to`, when set, is a set of p's versions (containing v)
/// for which the same answer holds; the solver then learns one incompatibility for all of them
/// (dart pub's "collapsing adjacent versions", uv's widen-to-gap, reference §1.5, §1.9).
template <class P, VersionSet VS, class M>
struct Dependencies {
  bool available = true;
  std::vector<std::pair<P, VS>> constraints;
  M reason{};
  std::optional<VS> applies_to;

  /// Version v needs every constraint.
  static Dependencies of(std::vector<std::pair<P, VS>> constraints,
                         std::optional<VS> applies_to = std::nullopt) {
    Dependencies d;
    d.constraints = std::move(constraints);
    d.applies_to = std::move(applies_to);
    return d;
  }
  /// Version v cannot be used because of `reason`.
  static Dependencies unavailable(M reason, std::optional<VS> applies_to = std::nullopt) {
    Dependencies d;
    d.available = false;
    d.reason = std::move(reason);
    d.applies_to = std::move(applies_to);
    return d;
  }
};

/// What the solver has seen of a package, given to `prioritize` (uv's conflict tracking,
/// reference §1.8 item 5 and §1.9).
struct PackageStatistics {
  /// Conflicts in which this package's assignment was the one undone.
  std::uint32_t affected = 0;
  /// Conflicts in which this package was among the other causes.
  std::uint32_t culprit = 0;
  /// Times a version of this package was rejected because of its own dependencies.
  std::uint32_t dependencies_affected = 0;
  /// Times this package's range made another package's version unusable.
  std::uint32_t dependencies_culprit = 0;
  /// The sum: packages that keep conflicting are worth deciding earlier.
  std::uint32_t conflict_count() const {
    return affected + culprit + dependencies_affected + dependencies_culprit;
  }
};

/// What the solver needs from a package source.
///
/// - `Package` (copyable, `==`, `std::hash`), `Set` (a VersionSet), `Reason` (why a version is
///   unavailable), `Error` (the provider's failure), `Priority` (totally ordered; the highest is
///   decided first, ties go to the package seen first).
/// - `prioritize(p, range, stats)`: called again only when p's range or stats change.
/// - `choose_version(p, range)`: the version to try (e.g. the newest in range), or nullopt when
///   none exists. The solver asks with a singleton range first when the caller prefers a
///   version (an earlier lock or target).
/// - `get_dependencies(p, v)`: constraints or "unavailable".
template <class D>
concept DependencyProvider = VersionSet<typename D::Set> &&
    std::totally_ordered<typename D::Priority> &&
    requires(D& d, const typename D::Package& p, const typename D::Set& s,
             const typename D::Set::Version& v, const PackageStatistics& stats) {
  { d.prioritize(p, s, stats) } -> std::same_as<typename D::Priority>;
  {
    d.choose_version(p, s)
    } -> std::same_as<ProviderResult<std::optional<typename D::Set::Version>, typename D::Error>>;
  {
    d.get_dependencies(p, v)
    } -> std::same_as<ProviderResult<
        Dependencies<typename D::Package, typename D::Set, typename D::Reason>, typename D::Error>>;
};

}  // namespace wv::solver
