// `--refresh` and `--refresh-package`: which projects' pages and unpinned files are asked of the
// server again even when a cache holds a fresh copy (IndexSource::set_refresh()).
#pragma once

#include <set>
#include <string>

#include "src/pkg/name.h"

namespace wv::index {

struct RefreshPolicy {
  bool all = false;
  std::set<pkg::PackageName> packages;

  bool covers(const pkg::PackageName& name) const {
    return all || packages.count(name) > 0;
  }
};

}  // namespace wv::index
