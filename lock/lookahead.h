// The resolution lookahead (docs/solver.md "Prefetch"): level by level along the versions the
// solver would take first, the listings, variants files and METADATA it will ask for are
// fetched as one batch each, so a dependency graph costs a few round trips per level of depth
// instead of a few per package. It reads through the Catalog's prefetch hints only: it changes
// no answer, creates no solver package (their ids order the solver's ties), decides nothing and
// remembers no failure of its own.
//
// Several targets walk in step: each level's files for every target go out as one batch (the
// union, each file once), so a lock of N targets costs the round trips of its deepest target,
// not of all of them one after the other.
#pragma once

#include <deque>
#include <span>
#include <string>
#include <vector>

#include "lock/python_provider.h"

namespace wv::lock {

class Lookahead {
 public:
  explicit Lookahead(Catalog& catalog) : catalog_(catalog) {}

  /// Starts a walk for `provider`'s target at constraints the solver was just handed (the
  /// dependencies of a decided version, or of a project node).
  void seed_edges(PythonProvider& provider, const std::vector<DependencyEdge>& edges);
  /// Starts a walk for `provider`'s target at what the project node will ask for there: its
  /// dependencies (with overrides and constraints), the target's extras and every dependency
  /// group — the dependencies of the root and its extra and group nodes, before the solver runs.
  void seed_project(PythonProvider& provider);
  /// Whether a variant candidate brings the variants files of every stable version of its
  /// package with variant wheels into its batch: what a later target's preferences compare
  /// (lock/resolve.cc) when an earlier target chose the package, read here in the same round
  /// trip instead of one by one after it.
  void set_every_variant_version(bool every) { every_variant_version_ = every; }
  /// Walks every seeded target to the end of its graph (at most 32 levels); each level of all
  /// walks costs one batch of listings, one of variants files and one of METADATA.
  void run();

 private:
  /// One package of a level: the version range it is asked for and the extras it is asked with.
  struct Step {
    std::string name;
    const ProjectListing* listing = nullptr;
    PythonProvider::Set set;
    std::vector<std::string> extras;
  };
  /// A requirement to follow, with the specifier it is asked with (constraints applied).
  struct Wanted {
    const pkg::Requirement* requirement = nullptr;
    pkg::SpecifierSet specifier;
  };
  struct Walk {
    PythonProvider* provider = nullptr;
    std::vector<Step> level;
    std::vector<Wanted> next;
  };
  /// A chosen candidate of one level: its walk, step and version index.
  struct Chosen {
    Walk* walk = nullptr;
    const Step* step = nullptr;
    int version = 0;
    bool variants_ready = true;  ///< a variant version's variants files arrived
  };

  Walk& walk_of(PythonProvider& provider);
  /// Follows `requirement` in `walk` when it applies with `active` extras (a direct reference
  /// is checked when decided, not listed).
  void consider(Walk& walk, const pkg::Requirement& requirement,
                std::span<const std::string> active);
  /// The listings every walk's `next` names, as one batch; they become the walks' levels.
  void take_next();
  /// Each walk's candidate per step, not yet expanded; their variants files as one batch
  /// (each version once).
  std::vector<Chosen> choose();
  /// The METADATA of the wheel each chosen candidate would be decided with, as one batch; the
  /// requirements of those that arrived become the walks' `next`.
  bool read_requirements(const std::vector<Chosen>& chosen);

  Catalog& catalog_;
  bool every_variant_version_ = false;
  std::deque<Walk> walks_;  // stable addresses: Chosen points into them
};

}  // namespace wv::lock
