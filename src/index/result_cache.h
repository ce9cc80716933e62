// The answers an IndexSource keeps for the rest of the run, failures included: one page read
// per project, one METADATA read per file. Not thread-safe (neither is the source).
#pragma once

#include <map>
#include <string>

#include "src/base/result.h"

namespace wv::index {

// Result has no default constructor, so the maps hold results by emplace.
template <class T>
using ResultCache = std::map<std::string, Result<T>>;

/// The answer kept under `key`, else compute()'s, kept.
template <class T, class Compute>
Result<T> cached(ResultCache<T>& cache, const std::string& key, Compute&& compute) {
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  Result<T> result = compute();
  cache.emplace(key, result);
  return result;
}

}  // namespace wv::index
