// The HTTP range reader of src/index/wheel_zip.h against a server that lies: the fuzzer's input
// is a script for the server followed by the wheel's bytes. Byte 0 is the script's length N (at
// most 32), bytes 1..N say how each request is answered (the last one repeats): honestly, with
// the whole file (a server ignoring ranges), with a Content-Range that misstates the start or
// the total, a body cut short or padded, 416, 500, a cut body (over max_body_bytes), or a range
// answer with no Content-Range. Properties: no crash, no endless loop (a bounded number of
// requests), an entry read is within the metadata limit, an honest script reads what libzip
// reads, and an honest server is never asked for a byte outside the file: every offset and size
// the zip states (lying numbers near 2^32 and 2^64 included, fuzz/dicts/wheel_zip_server.dict)
// is checked against the file's size before it becomes a request.
#include <algorithm>
#include <string>

#include "src/base/fetcher.h"
#include "fuzz/fuzz_target.h"
#include "src/index/limits.h"
#include "src/index/wheel_zip.h"
#include "src/pkg/name.h"

namespace {

class LyingServer : public wv::Fetcher {
 public:
  LyingServer(std::string_view script, std::string_view bytes) : script_(script), bytes_(bytes) {}

  wv::Result<wv::FetchResponse> fetch(const wv::FetchRequest& request) override {
    const unsigned char move =
        script_.empty() ? 0
                        : static_cast<unsigned char>(script_[std::min(requests_, script_.size() - 1)]);
    ++requests_;
    // An explicit range (not the first request's "last N bytes") that reaches past the end.
    if (request.range && request.range->first >= 0 &&
        (static_cast<std::uint64_t>(request.range->first) >= bytes_.size() ||
         request.range->second < request.range->first ||
         static_cast<std::uint64_t>(request.range->second) >= bytes_.size())) {
      asked_outside_ = true;
    }
    wv::FetchResponse response;
    response.effective_url = request.url;
    const std::int64_t total = static_cast<std::int64_t>(bytes_.size());
    const int kind = move % 10;
    const std::int64_t skew = static_cast<std::int64_t>(move / 10) - 12;  // -12..13 bytes
    if (!request.range || kind == 1) {
      response.status = 200;
      response.body = std::string(bytes_);
      return response;
    }
    if (kind == 6) return wv::make_error(wv::ErrorCode::kNetwork, "connection reset");
    if (kind == 7) {
      response.status = 500;
      return response;
    }
    std::int64_t first = request.range->first;
    std::int64_t last = request.range->second;
    if (first < 0) {
      first = std::max<std::int64_t>(0, total + first);
      last = total - 1;
    }
    last = std::min(last, total - 1);
    if (first >= total || first > last || kind == 5) {
      response.status = 416;
      return response;
    }
    response.status = 206;
    response.body = std::string(bytes_.substr(static_cast<std::size_t>(first),
                                              static_cast<std::size_t>(last - first + 1)));
    std::int64_t stated_first = first;
    std::int64_t stated_total = total;
    if (kind == 2) stated_first += skew;
    if (kind == 3) stated_total += skew;
    if (kind == 4) {
      // Unsigned amounts from the move itself: 0..12 bytes short, or 0..13 bytes padded.
      const unsigned steps = move / 10u;
      for (unsigned i = steps; i < 12u && !response.body.empty(); ++i) response.body.pop_back();
      for (unsigned i = 12u; i < steps; ++i) response.body.push_back('P');
    }
    if (kind == 8) {
      response.body_cut = true;
      response.body.push_back('C');
    }
    if (kind != 9) {
      response.headers["content-range"] = "bytes " + std::to_string(stated_first) + "-" +
                                          std::to_string(stated_first + (last - first)) + "/" +
                                          std::to_string(stated_total);
    }
    return response;
  }

  std::size_t requests() const { return requests_; }
  bool asked_outside() const { return asked_outside_; }

 private:
  std::string_view script_;
  std::string_view bytes_;
  std::size_t requests_ = 0;
  bool asked_outside_ = false;
};

}  // namespace

WV_FUZZ_TARGET(wheel_zip_server) {
  if (size < 1 || size > (1u << 20)) return;
  const std::size_t script_length = std::min<std::size_t>(data[0] % 33, size - 1);
  const std::string_view input = wv::fuzz::as_text(data, size);
  const std::string_view script = input.substr(1, script_length);
  const std::string_view bytes = input.substr(1 + script_length);
  wv::index::SourceLimits limits;
  limits.max_metadata_bytes = 1 << 20;
  limits.max_central_directory_bytes = 1 << 20;
  limits.max_wheel_bytes = 2 << 20;
  static const wv::pkg::PackageName kProject = wv::pkg::parse_package_name("torch").value();
  const bool honest = std::all_of(script.begin(), script.end(),
                                  [](char c) { return static_cast<unsigned char>(c) % 10 == 0; });
  for (const char* leaf : {"METADATA", "variant.json"}) {
    const wv::index::DistInfoEntry wanted{kProject, leaf};
    for (bool size_known : {true, false}) {
      LyingServer server(script, bytes);
      std::optional<std::uint64_t> known;
      if (size_known) known = bytes.size();
      auto ranged = wv::index::fetch_dist_info_file(server, "https://example.org/fuzz.whl", known,
                                                    wanted, limits);
      WV_FUZZ_CHECK(server.requests() <= 16, "the range reader sent " +
                                                 std::to_string(server.requests()) + " requests");
      // Only an honest server: a lying one may misstate the total the offsets are checked against.
      if (honest && !bytes.empty()) {
        WV_FUZZ_CHECK(!server.asked_outside(),
                      "an honest server was asked for bytes outside the file (a zip offset or size "
                      "was not checked against the file's size)");
      }
      if (!ranged) continue;
      WV_FUZZ_CHECK(ranged.value().size() <= limits.max_metadata_bytes, "ranged entry over the limit");
      if (honest) {
        auto from_libzip = wv::index::read_dist_info_from_buffer(bytes, wanted, "fuzz.whl", limits);
        if (from_libzip) {
          WV_FUZZ_CHECK(ranged.value() == from_libzip.value(),
                        std::string("an honest server and libzip gave different ") + leaf);
        }
      }
    }
  }
}
