// The range reader of src/index/wheel_zip.h against zips and servers whose numbers lie: EOCD,
// ZIP64 locator and record offsets near 2^32 and 2^64, central directory entries whose offsets
// and sizes overflow, extra fields with lying lengths, and Content-Range headers that claim more
// than the body carries. Each zip is built byte by byte here (no libzip), so every number can be
// chosen; each case must be a clear kParse / kIntegrity / kLimit error, never a crash (an
// offset near 2^64 once wrapped a bounds check and std::out_of_range aborted the process).
#include <catch2/catch.hpp>

#include <functional>
#include <limits>

#include "src/index/wheel_zip.h"
#include "index_test_support.h"

using namespace wv::index;
using wv::ErrorCode;

namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();
const char* const kMetadata = "Metadata-Version: 2.4\nName: demo\nVersion: 1.0\n\n";
const std::string kUrl = "https://files.example/demo-1.0-py3-none-any.whl";

void put16(std::string& out, std::uint16_t value) {
  out.push_back(static_cast<char>(value & 0xFF));
  out.push_back(static_cast<char>(value >> 8));
}
void put32(std::string& out, std::uint32_t value) {
  put16(out, static_cast<std::uint16_t>(value & 0xFFFF));
  put16(out, static_cast<std::uint16_t>(value >> 16));
}
void put64(std::string& out, std::uint64_t value) {
  put32(out, static_cast<std::uint32_t>(value & 0xFFFFFFFFu));
  put32(out, static_cast<std::uint32_t>(value >> 32));
}

std::uint32_t crc32_of(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (char c : bytes) {
    crc ^= static_cast<unsigned char>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// One stored METADATA entry, with every number of the records overridable.
struct HostileZip {
  std::size_t gap = 0;  ///< bytes between the entry and the central directory (puts the entry
                        ///< outside the tail, so it takes a range request of its own)
  // The central directory entry.
  std::optional<std::uint32_t> compressed, uncompressed, local_offset;
  std::optional<std::uint16_t> name_length;
  std::string central_extra;
  // The end-of-central-directory record.
  std::optional<std::uint16_t> entries;
  std::optional<std::uint32_t> cd_size, cd_offset;
  // ZIP64: a record and its locator, with the EOCD saturated.
  bool zip64 = false;
  std::optional<std::uint64_t> record_offset, zip64_entries, zip64_cd_size, zip64_cd_offset;

  std::string build() const {
    const std::string name = "demo-1.0.dist-info/METADATA";
    const std::string content = kMetadata;
    const std::uint32_t crc = crc32_of(content);
    const auto size = static_cast<std::uint32_t>(content.size());
    std::string out;
    const auto local_at = static_cast<std::uint32_t>(out.size());
    put32(out, 0x04034b50);
    put16(out, 20), put16(out, 0), put16(out, 0), put16(out, 0), put16(out, 0);
    put32(out, crc), put32(out, size), put32(out, size);
    put16(out, static_cast<std::uint16_t>(name.size())), put16(out, 0);
    out += name + content;
    out.append(gap, '\0');
    const std::uint64_t directory_at = out.size();
    put32(out, 0x02014b50);
    put16(out, 20), put16(out, 20), put16(out, 0), put16(out, 0), put16(out, 0), put16(out, 0);
    put32(out, crc), put32(out, compressed.value_or(size)), put32(out, uncompressed.value_or(size));
    put16(out, name_length.value_or(static_cast<std::uint16_t>(name.size())));
    put16(out, static_cast<std::uint16_t>(central_extra.size())), put16(out, 0);
    put16(out, 0), put16(out, 0), put32(out, 0);
    put32(out, local_offset.value_or(local_at));
    out += name + central_extra;
    const std::uint64_t directory_size = out.size() - directory_at;
    if (zip64) {
      const std::uint64_t record_at = out.size();
      put32(out, 0x06064b50), put64(out, 44), put16(out, 45), put16(out, 45);
      put32(out, 0), put32(out, 0);
      put64(out, zip64_entries.value_or(1)), put64(out, zip64_entries.value_or(1));
      put64(out, zip64_cd_size.value_or(directory_size));
      put64(out, zip64_cd_offset.value_or(directory_at));
      put32(out, 0x07064b50), put32(out, 0), put64(out, record_offset.value_or(record_at));
      put32(out, 1);
    }
    put32(out, 0x06054b50), put16(out, 0), put16(out, 0);
    const std::uint16_t count = entries.value_or(zip64 ? 0xFFFF : 1);
    put16(out, count), put16(out, count);
    put32(out, cd_size.value_or(zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(directory_size)));
    put32(out, cd_offset.value_or(zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(directory_at)));
    put16(out, 0);
    return out;
  }
};

// A ZIP64 extended information extra field (APPNOTE §4.5.3) holding `values`.
std::string zip64_extra(std::initializer_list<std::uint64_t> values, std::optional<std::uint16_t> stated = {}) {
  std::string out;
  put16(out, 0x0001);
  put16(out, stated.value_or(static_cast<std::uint16_t>(8 * values.size())));
  for (std::uint64_t value : values) put64(out, value);
  return out;
}

DistInfoEntry metadata_entry() { return {*wv::pkg::parse_package_name("demo"), "METADATA"}; }

// The range reader's answer for `bytes` served honestly; the whole-buffer (libzip) reader must
// not crash on them either.
wv::Result<std::string> read_ranged(const std::string& bytes, RangeReadStats* stats = nullptr,
                                    std::optional<std::uint64_t> size = std::nullopt) {
  (void)read_dist_info_from_buffer(bytes, metadata_entry(), "hostile.whl", {});
  wv::test::MemoryFetcher fetcher;
  fetcher.files[kUrl] = bytes;
  return fetch_dist_info_file(fetcher, kUrl, size, metadata_entry(), {}, stats);
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Serves like MemoryFetcher, then lets the test rewrite answer number N (0-based).
class LyingFetcher final : public wv::Fetcher {
 public:
  wv::test::MemoryFetcher honest;
  std::function<void(int, wv::FetchResponse&)> lie;
  int answered = 0;

  wv::Result<wv::FetchResponse> fetch(const wv::FetchRequest& request) override {
    WV_ASSIGN_OR_RETURN(wv::FetchResponse response, honest.fetch(request));
    if (lie) lie(answered, response);
    ++answered;
    return response;
  }
};

}  // namespace

TEST_CASE("zip numbers: the hand-built zip is valid, over ranges and through libzip",
          "[index][zip_numbers]") {
  for (bool zip64 : {false, true}) {
    INFO("zip64 " << zip64);
    HostileZip zip;
    zip.zip64 = zip64;
    zip.gap = 100000;  // the local header lies outside the tail: a second request reads it
    const std::string bytes = zip.build();
    RangeReadStats stats;
    auto ranged = read_ranged(bytes, &stats);
    REQUIRE(ranged);
    CHECK(*ranged == kMetadata);
    CHECK(stats.requests == 2);
    auto buffered = read_dist_info_from_buffer(bytes, metadata_entry(), "w", {});
    REQUIRE(buffered);
    CHECK(*buffered == kMetadata);
  }
}

TEST_CASE("zip numbers: a ZIP64 locator offset near 2^64 is refused, not wrapped",
          "[index][zip_numbers]") {
  // 2^64 - k for k <= 56 once made `offset - tail_start + 56` wrap to a small number, and the
  // following substr threw std::out_of_range.
  for (std::uint64_t k : {1, 2, 8, 20, 55, 56, 57, 1000}) {
    for (std::uint64_t offset : {kMax64 - (k - 1), std::uint64_t{1} << 63}) {
      INFO("record offset " << offset);
      HostileZip zip;
      zip.zip64 = true;
      zip.record_offset = offset;
      RangeReadStats stats;
      auto read = read_ranged(zip.build(), &stats);
      REQUIRE_FALSE(read);
      CHECK(read.error().code == ErrorCode::kParse);
      CHECK(contains(read.error().message, "ZIP64 end-of-central-directory record at " +
                                               std::to_string(offset) + " lies outside the file"));
      CHECK(stats.requests == 1);  // refused from the tail alone, no range asked for
    }
  }
  // Just past the end of the file, and 2^32 - 1.
  for (std::uint64_t offset : {std::uint64_t{0xFFFFFFFFu}, std::uint64_t{150}}) {
    HostileZip zip;
    zip.zip64 = true;
    zip.record_offset = offset;
    auto read = read_ranged(zip.build());
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
  }
}

TEST_CASE("zip numbers: ZIP64 record offsets and sizes whose sum wraps", "[index][zip_numbers]") {
  struct Case {
    std::uint64_t offset, size;
  };
  for (Case c : {Case{kMax64, 2}, Case{kMax64 - 10, 100}, Case{1, kMax64}, Case{kMax64, kMax64},
                 Case{std::uint64_t{1} << 63, std::uint64_t{1} << 63}, Case{0, 0xFFFFFFFFu}}) {
    INFO("central directory " << c.size << " bytes at " << c.offset);
    HostileZip zip;
    zip.zip64 = true;
    zip.zip64_cd_offset = c.offset;
    zip.zip64_cd_size = c.size;
    auto read = read_ranged(zip.build());
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
    CHECK(contains(read.error().message, "lies outside the file"));
  }
}

TEST_CASE("zip numbers: impossible entry counts (2^64 - 1, 2^32 - 1, 65534) are refused",
          "[index][zip_numbers]") {
  for (std::uint64_t count : {kMax64, kMax64 - 45, std::uint64_t{0xFFFFFFFFu}, std::uint64_t{2}}) {
    INFO("count " << count);
    HostileZip zip;
    zip.zip64 = true;
    zip.zip64_entries = count;
    auto read = read_ranged(zip.build());
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
    CHECK(contains(read.error().message, "impossible entry count " + std::to_string(count)));
  }
  HostileZip plain;
  plain.entries = 0xFFFE;
  auto read = read_ranged(plain.build());
  REQUIRE_FALSE(read);
  CHECK(contains(read.error().message, "impossible entry count 65534"));
}

TEST_CASE("zip numbers: EOCD offsets and sizes at 2^32 - 2 and saturated without ZIP64",
          "[index][zip_numbers]") {
  HostileZip offset;
  offset.cd_offset = 0xFFFFFFFEu;
  auto read = read_ranged(offset.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "at 4294967294) lies outside the file"));

  HostileZip size;
  size.cd_size = 0xFFFFFFFEu;
  read = read_ranged(size.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "(4294967294 bytes at"));

  // 0xFFFF / 0xFFFFFFFF mean "see the ZIP64 record": without its locator, corrupt.
  HostileZip saturated;
  saturated.cd_offset = 0xFFFFFFFFu;
  read = read_ranged(saturated.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "ZIP64 end-of-central-directory locator missing"));
  HostileZip count;
  count.entries = 0xFFFF;
  read = read_ranged(count.build());
  REQUIRE_FALSE(read);
  CHECK(contains(read.error().message, "locator missing"));
}

TEST_CASE("zip numbers: a local header offset outside the file, in 32 and 64 bits",
          "[index][zip_numbers]") {
  for (std::uint32_t offset : {0xFFFFFFFEu, 0x7FFFFFFFu, 100000u}) {
    HostileZip zip;
    zip.local_offset = offset;
    auto read = read_ranged(zip.build());
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
    CHECK(contains(read.error().message, "local header of `demo-1.0.dist-info/METADATA` at " +
                                             std::to_string(offset) + " lies outside the file"));
  }
  // Through the ZIP64 extra field: 2^64 - 1, 2^64 - 30 (header end wraps), 2^63.
  for (std::uint64_t offset : {kMax64, kMax64 - 29, std::uint64_t{1} << 63}) {
    INFO("offset " << offset);
    HostileZip zip;
    zip.local_offset = 0xFFFFFFFFu;
    zip.central_extra = zip64_extra({offset});
    auto read = read_ranged(zip.build());
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
    CHECK(contains(read.error().message, "at " + std::to_string(offset) + " lies outside the file"));
  }
}

TEST_CASE("zip numbers: entry sizes whose offset + size overflow", "[index][zip_numbers]") {
  // A compressed size of 2^64 - 1 (ZIP64): refused before any sum is formed.
  HostileZip wrapped;
  wrapped.compressed = 0xFFFFFFFFu;
  wrapped.central_extra = zip64_extra({kMax64});
  auto read = read_ranged(wrapped.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "has an implausible compressed size"));

  // An uncompressed size of 2^64 - 1 is over the metadata limit: a kLimit that says so.
  HostileZip inflated;
  inflated.uncompressed = 0xFFFFFFFFu;
  inflated.central_extra = zip64_extra({kMax64});
  read = read_ranged(inflated.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kLimit);
  CHECK(contains(read.error().message, "is 18446744073709551615 bytes, over the metadata-bytes"));

  // A plausible compressed size whose data runs past the end of the file.
  HostileZip overrun;
  overrun.gap = 100000;
  overrun.compressed = 200000;
  read = read_ranged(overrun.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "overruns the file"));
}

TEST_CASE("zip numbers: extra fields and names with lying lengths", "[index][zip_numbers]") {
  // An extra field that claims 100 bytes where 4 remain.
  HostileZip lying;
  lying.central_extra = std::string("\x34\x12\x64\x00" "abcd", 8);
  auto read = read_ranged(lying.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "extra field 4660 of `demo-1.0.dist-info/METADATA` claims "
                                       "100 bytes, 4 remain"));
  // A ZIP64 field too short for the saturated sizes it must hold (0 and 4 bytes for one value,
  // 8 bytes for two).
  for (const std::string& extra : {zip64_extra({}), std::string("\x01\x00\x04\x00" "abcd", 8)}) {
    HostileZip short_field;
    short_field.uncompressed = 0xFFFFFFFFu;
    short_field.central_extra = extra;
    read = read_ranged(short_field.build());
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
    CHECK(contains(read.error().message, "the ZIP64 extra field of `demo-1.0.dist-info/METADATA` "
                                         "is too short"));
  }
  HostileZip two;
  two.uncompressed = 0xFFFFFFFFu;
  two.compressed = 0xFFFFFFFFu;
  two.central_extra = zip64_extra({48});
  read = read_ranged(two.build());
  REQUIRE_FALSE(read);
  CHECK(contains(read.error().message, "is too short"));
  // A name length that runs past the central directory.
  HostileZip name;
  name.name_length = 0xFFFF;
  read = read_ranged(name.build());
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kParse);
  CHECK(contains(read.error().message, "central directory entry 0 overruns"));
}

TEST_CASE("zip numbers: a Content-Range that claims more than the body carries",
          "[index][zip_numbers]") {
  HostileZip zip;
  zip.gap = 100000;
  const std::string bytes = zip.build();
  const std::string total = std::to_string(bytes.size());
  struct Case {
    int answer;  ///< which answer to rewrite: 0 the tail, 1 the entry's range
    std::string header;
    std::string expected;
  };
  const std::string tail_first = std::to_string(bytes.size() - 65557);
  const std::string last = std::to_string(bytes.size() - 1);
  for (const Case& c : std::vector<Case>{
           // The tail: more bytes claimed than sent, a range that ends before it starts, past
           // the file, numbers that overflow, a total near 2^64, one that misses the end.
           {0, "bytes 0-" + last + "/" + total, "it claims " + last + " + 1 bytes, the body has 65557"},
           {0, "bytes " + last + "-" + tail_first + "/" + total, "the range ends before it starts"},
           {0, "bytes " + tail_first + "-" + total + "/" + total, "ends past the file's size"},
           {0, "bytes 0-99999999999999999999999/" + total, "with whole numbers"},
           {0, "bytes " + tail_first + "-" + last + "/18446744073709551615", "more than a file can have"},
           {0, "bytes 0-65556/" + total, "not the end of the file"},
           {0, "bytes " + tail_first + "-" + last, "expected `bytes FIRST-LAST/TOTAL`"},
           // The entry's range: a body shorter than claimed, a total that changed.
           {1, "bytes 0-1199/" + std::to_string(bytes.size() + 1000),
            "it claims 1199 + 1 bytes, the body has 1128"},
           {1, "bytes 0-1127/" + std::to_string(bytes.size() + 1), "changed size between requests"},
       }) {
    INFO(c.header);
    LyingFetcher fetcher;
    fetcher.honest.files[kUrl] = bytes;
    fetcher.lie = [&](int answer, wv::FetchResponse& response) {
      if (answer == c.answer) response.headers["content-range"] = c.header;
    };
    auto read = fetch_dist_info_file(fetcher, kUrl, std::nullopt, metadata_entry(), {});
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kIntegrity);
    CHECK(contains(read.error().message, c.expected));
  }
  // A body cut short under an honest-looking Content-Range for the entry.
  LyingFetcher fetcher;
  fetcher.honest.files[kUrl] = bytes;
  fetcher.lie = [](int answer, wv::FetchResponse& response) {
    if (answer == 1) response.body.resize(response.body.size() / 2);
  };
  auto read = fetch_dist_info_file(fetcher, kUrl, std::nullopt, metadata_entry(), {});
  REQUIRE_FALSE(read);
  CHECK(contains(read.error().message, "is truncated"));
}

TEST_CASE("zip numbers: a size from the index near 2^64 is refused before any request",
          "[index][zip_numbers]") {
  HostileZip zip;
  const std::string bytes = zip.build();
  for (std::uint64_t size : {kMax64, std::uint64_t{1} << 63}) {
    RangeReadStats stats;
    auto read = read_ranged(bytes, &stats, size);
    REQUIRE_FALSE(read);
    CHECK(read.error().code == ErrorCode::kParse);
    CHECK(contains(read.error().message, "a size of " + std::to_string(size) + " bytes"));
    CHECK(stats.requests == 0);
  }
  // The largest size a range can carry is still asked for (and found wrong by the server).
  RangeReadStats stats;
  auto read = read_ranged(bytes, &stats, std::uint64_t{1} << 62);
  REQUIRE_FALSE(read);
  CHECK(stats.requests == 1);
}
