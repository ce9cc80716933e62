// Resource bounds of package sources: no page, metadata file or zip directory read from an
// index may make wvlock allocate without limit. The defaults are the process-wide values of
// base/limits.h (what `--limit` sets); an exceeded bound is wv::limit_error(), which names the
// limit and how to raise it.
#pragma once

#include <cstdint>

#include "src/base/limits.h"

namespace wv::index {

struct SourceLimits {
  /// A project page, HTML or JSON.
  std::uint64_t max_page_bytes = limit_value(Limit::kPageBytes);
  /// One METADATA, `.metadata` or in-wheel variant.json.
  std::uint64_t max_metadata_bytes = limit_value(Limit::kMetadataBytes);
  /// One `*-variants.json` file.
  std::uint64_t max_variants_json_bytes = limit_value(Limit::kVariantsJsonBytes);
  /// A zip's central directory read through range requests.
  std::uint64_t max_central_directory_bytes = limit_value(Limit::kCentralDirectoryBytes);
  /// A whole wheel downloaded when the server ignores range requests.
  std::uint64_t max_wheel_bytes = limit_value(Limit::kDownloadBytes);
};

}  // namespace wv::index
