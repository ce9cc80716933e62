// What an IndexSource did, counted by each of its parts as it works; for figures and tests.
#pragma once

#include <cstdint>

#include "src/index/flat_folder.h"

namespace wv::index {

/// What an IndexSource did, for figures and tests.
struct SourceStats {
  int pages = 0;                  ///< project pages read (cache misses)
  int metadata_pep658 = 0;        ///< METADATA served from `.metadata` files
  int metadata_local_zip = 0;     ///< METADATA read from a local wheel
  int metadata_range = 0;         ///< METADATA read from a remote wheel by range requests
  int metadata_whole_wheel = 0;   ///< ... of which the server ignored ranges
  int dist_info_reused = 0;       ///< dist-info files of remote wheels kept from an earlier run
  int range_requests = 0;         ///< HTTP requests spent on range reads
  std::uint64_t bytes_fetched = 0;
  int variants_files = 0;         ///< `*-variants.json` files read
  FlatFolderStats folders;        ///< find-links folders listed, digests reused and kept
};

}  // namespace wv::index
