// Listing: the projects of an ordered chain of locations (docs/sources.md "Locations and
// precedence"). A scope is the chain one view asks: the default chain (every location but the
// explicit ones) or a pinned index's locations. First-index: the first location that has a
// project answers for it alone; best match (merge): each version from the first location that
// lists it. One listing per scope and project, kept for the run; prefetch() fetches ahead the
// pages the walk will need, as one batch.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "src/index/location_reader.h"
#include "src/index/prefetch.h"
#include "src/index/result_cache.h"
#include "src/pkg/source.h"

namespace wv::index {

struct Scope {
  std::string key;                     ///< "" for the default chain, "pinned:NAME" for a view
  std::vector<std::size_t> locations;  ///< location indexes, asked in order
  bool merge = false;                  ///< best match: versions from every location
};

class Listing {
 public:
  Listing(LocationReader& reader, PrefetchStore& prefetched)
      : reader_(reader), prefetched_(prefetched) {}

  /// The locations the default chain asks, in order (every one but the explicit ones).
  Scope default_chain() const;
  /// The locations named `index`, explicit or not; kNotFound when none has that name.
  Result<Scope> pinned(std::string_view index) const;

  /// The listing of `name` in `scope`, cached by the scope's key and the name.
  Result<std::vector<pkg::Distribution>> list(const Scope& scope, const pkg::PackageName& name);

  /// Fetches, as one parallel batch, the page of each project that the scope's walk reaches
  /// first (past the local locations that do not list it); per name, whether list() now
  /// answers without the network.
  std::vector<bool> prefetch(const Scope& scope, const std::vector<pkg::PackageName>& names);

  /// The listing list() made of `name` in the scope keyed `scope_key`; null when none was made
  /// or it failed.
  const std::vector<pkg::Distribution>* listed(const std::string& scope_key,
                                               const pkg::PackageName& name) const;

 private:
  /// The pages a prefetch sends, and per page the names (their positions) it answers.
  struct PageBatch {
    std::vector<FetchRequest> requests;
    std::vector<std::vector<std::size_t>> waiting;
    void add(FetchRequest request, std::size_t name_at);
  };
  /// list() uncached: the walk over the scope's locations.
  Result<std::vector<pkg::Distribution>> walk(const Scope& scope, const pkg::PackageName& name);
  /// The walk list() will make for `name`, as far as it goes without a page; the page it then
  /// needs, if not held already, joins `batch`. Whether the walk is decided without the batch.
  bool walk_ahead(const Scope& scope, const pkg::PackageName& name, std::size_t name_at,
                  PageBatch& batch);

  LocationReader& reader_;
  PrefetchStore& prefetched_;
  ResultCache<std::vector<pkg::Distribution>> listings_;  // scope key '\n' name -> listing
};

}  // namespace wv::index
