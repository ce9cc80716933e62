// Resource bounds of package sources: no page, metadata file or zip directory read from an
// index may make wvlock allocate without limit. An exceeded bound is an ErrorCode::kLimit whose
// message names the bound (the option a user would raise).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/str.h"

namespace wv::index {

struct SourceLimits {
  /// A project page, HTML or JSON (the largest real PyPI pages are a few MiB).
  std::uint64_t max_page_bytes = 64ull << 20;
  /// One METADATA, `.metadata` or in-wheel variant.json.
  std::uint64_t max_metadata_bytes = 16ull << 20;
  /// One `*-variants.json` file.
  std::uint64_t max_variants_json_bytes = 16ull << 20;
  /// A zip's central directory read through range requests.
  std::uint64_t max_central_directory_bytes = 64ull << 20;
  /// A whole wheel downloaded when the server ignores range requests.
  std::uint64_t max_wheel_bytes = 8ull << 30;
};

/// kLimit error: "`what` is N bytes, over the LIMIT_NAME limit of M bytes".
inline Error limit_error(std::string_view what, std::uint64_t size, std::string_view limit_name,
                         std::uint64_t limit) {
  return make_error(ErrorCode::kLimit, str_cat(what, " is ", size, " bytes, over the ", limit_name,
                                               " limit of ", limit, " bytes"));
}

}  // namespace wv::index
