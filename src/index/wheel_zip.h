// Reading one `*.dist-info/` file (METADATA, variant.json) out of a wheel, which is a zip
// (PEP 427): from a local file or an in-memory copy with libzip, and from a remote wheel with
// HTTP range requests — the end-of-central-directory record, the central directory, then the
// one entry, inflated with zlib — falling back to the whole file when the server ignores ranges
// (the approach of pip's `lazy_wheel` and uv's `async_zip` range reader). APPNOTE.TXT §4.3.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/fetcher.h"
#include "src/base/result.h"
#include "src/index/limits.h"
#include "src/pkg/name.h"

namespace wv::index {

/// Which dist-info file to read: the entry `<dir>.dist-info/<leaf>` at the top of the zip. When
/// a wheel (wrongly) has several `.dist-info` folders, the one whose name starts with the
/// project's name wins.
struct DistInfoEntry {
  pkg::PackageName project;
  std::string leaf;  ///< "METADATA" or "variant.json"
};

/// The index of the wanted entry among `names` (zip member names), or kNotFound naming `what`.
Result<std::size_t> find_dist_info_entry(const std::vector<std::string>& names,
                                         const DistInfoEntry& wanted, std::string_view what);

/// Reads the entry from a zip file on disk.
Result<std::string> read_dist_info_file(const std::string& zip_path, const DistInfoEntry& wanted,
                                        const SourceLimits& limits);

/// Reads the entry from a whole zip held in memory (`what` names it in errors).
Result<std::string> read_dist_info_from_buffer(std::string_view zip_bytes,
                                               const DistInfoEntry& wanted, std::string_view what,
                                               const SourceLimits& limits);

/// What a remote read cost, for tests and figures.
struct RangeReadStats {
  int requests = 0;
  std::uint64_t bytes = 0;
  bool whole_file = false;  ///< the server ignored ranges and sent everything
  /// The wheel's size as the server told it (a Content-Range total, or the whole body).
  std::optional<std::uint64_t> file_size;
};

/// Reads the entry from an http(s) wheel with range requests. `size` (from the index, PEP 700)
/// saves nothing but lets the first request be an explicit range. A server answering 200 to a
/// range request has sent the whole file, which is then read in memory.
Result<std::string> fetch_dist_info_file(Fetcher& fetcher, const std::string& url,
                                         std::optional<std::uint64_t> size,
                                         const DistInfoEntry& wanted, const SourceLimits& limits,
                                         RangeReadStats* stats = nullptr);

}  // namespace wv::index
