// Listing: precedence over a scope's locations, the listing cache, and page prefetch.
#include "src/index/listing.h"

#include <algorithm>
#include <set>
#include <utility>

#include "src/base/log.h"
#include "src/base/str.h"

namespace wv::index {
namespace {

using pkg::Distribution;

std::string listing_key(const std::string& scope_key, const pkg::PackageName& name) {
  return scope_key + '\n' + name.str();
}

}  // namespace

Scope Listing::default_chain() const {
  Scope scope;
  const std::vector<SourceLocation>& locations = reader_.locations();
  for (std::size_t i = 0; i < locations.size(); ++i) {
    if (!locations[i].explicit_only) scope.locations.push_back(i);
  }
  return scope;
}

Result<Scope> Listing::pinned(std::string_view index) const {
  Scope scope;
  scope.key = str_cat("pinned:", index);
  const std::vector<SourceLocation>& locations = reader_.locations();
  for (std::size_t i = 0; i < locations.size(); ++i) {
    if (locations[i].name == index) scope.locations.push_back(i);
  }
  if (scope.locations.empty()) {
    return make_error(ErrorCode::kNotFound, str_cat("no index is named ", in_backticks(index)));
  }
  return scope;
}

Result<std::vector<Distribution>> Listing::list(const Scope& scope, const pkg::PackageName& name) {
  return cached(listings_, listing_key(scope.key, name), [&] { return walk(scope, name); });
}

const std::vector<Distribution>* Listing::listed(const std::string& scope_key,
                                                 const pkg::PackageName& name) const {
  auto found = listings_.find(listing_key(scope_key, name));
  if (found == listings_.end() || !found->second) return nullptr;
  return &*found->second;
}

Result<std::vector<Distribution>> Listing::walk(const Scope& scope, const pkg::PackageName& name) {
  std::vector<Distribution> merged;
  std::set<std::string> versions_taken;
  bool found = false;
  for (std::size_t i : scope.locations) {
    Result<std::vector<Distribution>> listed = reader_.list(i, name);
    if (!listed) {
      // Not found here: ask the next location. Any other failure stops the search, so a
      // broken or unreachable index never silently hands a project to a lower-priority one.
      if (listed.error().code != ErrorCode::kNotFound) return listed;
      continue;
    }
    for (Distribution& file : *listed) file.index_name = reader_.locations()[i].name;
    if (!scope.merge) return listed;
    found = true;
    // Best match: each version from the first location that lists it, so one version's
    // files never mix across indexes.
    std::set<std::string> here;
    for (Distribution& file : *listed) {
      std::string version = file.version.to_string();
      if (versions_taken.count(version)) continue;
      here.insert(version);
      merged.push_back(std::move(file));
    }
    versions_taken.insert(here.begin(), here.end());
  }
  if (found) return merged;
  std::vector<std::string> where;
  for (std::size_t i : scope.locations) where.push_back(in_backticks(reader_.locations()[i].location));
  return make_error(ErrorCode::kNotFound,
                    str_cat("no package source has a project named ", in_backticks(name.str()),
                            " (searched ", where.empty() ? std::string("nothing") : join(where, ", "),
                            ")"));
}

std::vector<bool> Listing::prefetch(const Scope& scope, const std::vector<pkg::PackageName>& names) {
  std::vector<bool> ready(names.size(), false);
  PageBatch batch;
  const bool all_local = std::none_of(scope.locations.begin(), scope.locations.end(),
                                      [&](std::size_t i) { return reader_.is_remote(i); });
  for (std::size_t n = 0; n < names.size(); ++n) {
    const pkg::PackageName& name = names[n];
    if (listings_.contains(listing_key(scope.key, name))) {
      ready[n] = true;
    } else if (all_local) {
      // No page to fetch: the listing itself, kept for list(), instead of a walk that would
      // read and parse each local page only to have the call read it again.
      (void)list(scope, name);
      ready[n] = true;
    } else {
      ready[n] = walk_ahead(scope, name, n, batch);
    }
  }
  if (batch.requests.empty()) return ready;
  log_debug(str_cat("prefetching ", batch.requests.size(), " project pages"));
  std::vector<bool> arrived = prefetched_.fetch_ahead(batch.requests);
  for (std::size_t k = 0; k < batch.requests.size(); ++k) {
    for (std::size_t n : batch.waiting[k]) ready[n] = arrived[k] && !scope.merge;
  }
  return ready;
}

bool Listing::walk_ahead(const Scope& scope, const pkg::PackageName& name, std::size_t name_at,
                         PageBatch& batch) {
  // The walk list() makes: a local location answers at once (it lists the project, or fails
  // for good), a remote one needs its page; without merging, the walk stops at the first
  // location that has the project. A name is ready when every page its walk needs arrived
  // with a 200 (anything else leaves the rest of the walk to the call itself).
  for (std::size_t i : scope.locations) {
    if (!reader_.is_remote(i)) {
      Result<std::vector<Distribution>> listed = reader_.list(i, name);
      if (!listed && listed.error().code != ErrorCode::kNotFound) return true;
      if (listed && !scope.merge) return true;
      continue;
    }
    if (!prefetched_.online()) return true;  // the call fails the same way, without the network
    FetchRequest request = reader_.page_request(i, name);
    if (const FetchResponse* held = prefetched_.peek(request)) {
      return held->status == 200 && !scope.merge;
    }
    batch.add(std::move(request), name_at);
    return false;  // what comes after this page depends on its answer
  }
  return true;
}

void Listing::PageBatch::add(FetchRequest request, std::size_t name_at) {
  std::size_t at = 0;
  while (at < requests.size() && requests[at].url != request.url) ++at;
  if (at == requests.size()) {
    requests.push_back(std::move(request));
    waiting.emplace_back();
  }
  waiting[at].push_back(name_at);
}

}  // namespace wv::index
