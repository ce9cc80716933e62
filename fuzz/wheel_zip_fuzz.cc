// Reading METADATA and variant.json out of wheel bytes (src/index/wheel_zip.h): libzip on an
// in-memory copy, and the hand-written HTTP range reader (end-of-central-directory record,
// ZIP64 locator, central directory, one inflated entry) over an in-memory server that honours
// ranges. Properties: no crash; an entry read is within the metadata limit; when both readers
// read an entry they read the same bytes.
#include <algorithm>
#include <string>

#include "src/base/fetcher.h"
#include "fuzz/fuzz_target.h"
#include "src/index/limits.h"
#include "src/index/wheel_zip.h"
#include "src/pkg/name.h"

namespace {

// Serves `bytes` as one file: 206 with Content-Range for a range, like a static file server.
class MemoryServer : public wv::Fetcher {
 public:
  explicit MemoryServer(std::string_view bytes) : bytes_(bytes) {}
  wv::Result<wv::FetchResponse> fetch(const wv::FetchRequest& request) override {
    wv::FetchResponse response;
    response.effective_url = request.url;
    const std::int64_t total = static_cast<std::int64_t>(bytes_.size());
    if (!request.range) {
      response.status = 200;
      response.body = std::string(bytes_);
      return response;
    }
    std::int64_t first = request.range->first;
    std::int64_t last = request.range->second;
    if (first < 0) {  // suffix range: the last -first bytes
      first = std::max<std::int64_t>(0, total + first);
      last = total - 1;
    }
    last = std::min(last, total - 1);
    if (first >= total || first > last) {
      response.status = 416;
      return response;
    }
    response.status = 206;
    response.body = std::string(bytes_.substr(static_cast<std::size_t>(first),
                                              static_cast<std::size_t>(last - first + 1)));
    response.headers["content-range"] =
        "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(total);
    return response;
  }

 private:
  std::string_view bytes_;
};

}  // namespace

WV_FUZZ_TARGET(wheel_zip) {
  if (size > (1u << 20)) return;
  const std::string_view bytes = wv::fuzz::as_text(data, size);
  wv::index::SourceLimits limits;
  limits.max_metadata_bytes = 1 << 20;
  limits.max_central_directory_bytes = 1 << 20;
  limits.max_wheel_bytes = 2 << 20;
  static const wv::pkg::PackageName kProject = wv::pkg::parse_package_name("torch").value();
  for (const char* leaf : {"METADATA", "variant.json"}) {
    const wv::index::DistInfoEntry wanted{kProject, leaf};
    auto from_libzip = wv::index::read_dist_info_from_buffer(bytes, wanted, "fuzz.whl", limits);
    if (from_libzip) {
      WV_FUZZ_CHECK(from_libzip.value().size() <= limits.max_metadata_bytes, "entry over the limit");
    }
    MemoryServer server(bytes);
    for (bool size_known : {true, false}) {
      std::optional<std::uint64_t> known;
      if (size_known) known = size;
      auto ranged = wv::index::fetch_dist_info_file(server, "https://example.org/fuzz.whl", known,
                                                    wanted, limits);
      if (!ranged) continue;
      WV_FUZZ_CHECK(ranged.value().size() <= limits.max_metadata_bytes, "ranged entry over the limit");
      if (from_libzip) {
        WV_FUZZ_CHECK(ranged.value() == from_libzip.value(),
                      std::string("the range reader and libzip read different ") + leaf);
      }
    }
  }
}
