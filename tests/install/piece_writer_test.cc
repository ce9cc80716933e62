// A big member hashed and written on a thread of its own while it inflates (PieceWriter): the
// pieces arrive in order, an error on either side stops both and is the result, and a wheel
// extracted that way is byte for byte the one extracted on one thread, with the same checks.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/install/piece_writer.h"
#include "src/install/wheel_extract.h"
#include "tests/install/wheel_builder.h"
#include "tests/support/temp_dir.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

/// Fills next()'s buffer with `text` (shorter than a piece) and submits it.
Result<void> put(PieceWriter& pieces, std::string_view text) {
  std::span<char> buffer = pieces.next();
  REQUIRE(buffer.size() >= text.size());
  std::copy(text.begin(), text.end(), buffer.begin());
  return pieces.submit(text.size());
}

/// ~3 MiB that deflates to about half: several 1 MiB pieces, several 256 KiB input reads.
std::string big_content() {
  std::mt19937 random(7);
  std::string text;
  while (text.size() < (std::size_t{3} << 20)) {
    text += str_cat("symbol_", random() % 5000, " ");
    text.push_back(static_cast<char>(random() & 0xff));
  }
  return text;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<ExtractedWheel> extract(FileSystem& file_system, const std::string& wheel,
                               const std::string& folder, std::uint64_t separate_writer_bytes) {
  fs::create_directories(folder);
  ExtractOptions options;
  options.threads = 1;
  options.separate_writer_bytes = separate_writer_bytes;
  return extract_wheel(file_system, wheel, folder, options);
}

/// Fails a write of `demo/big.bin` once this many of its bytes have been written.
class FailingWrites : public ForwardingFileSystem {
 public:
  FailingWrites(FileSystem& inner, std::uint64_t allowed) : ForwardingFileSystem(inner), allowed_(allowed) {}
  Result<std::unique_ptr<WritableFile>> create_file(const std::string& path,
                                                    bool executable) override {
    WV_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                        ForwardingFileSystem::create_file(path, executable));
    if (path.find("big.bin") == std::string::npos) return file;
    return std::unique_ptr<WritableFile>(new Failing(std::move(file), allowed_));
  }

 private:
  struct Failing : WritableFile {
    Failing(std::unique_ptr<WritableFile> inner, std::uint64_t allowed)
        : inner_(std::move(inner)), allowed_(allowed) {}
    Result<void> write(std::string_view bytes) override {
      written_ += bytes.size();
      if (written_ > allowed_) return make_error(ErrorCode::kIo, "no space left on the device");
      return inner_->write(bytes);
    }
    Result<void> close() override { return inner_->close(); }
    std::unique_ptr<WritableFile> inner_;
    std::uint64_t allowed_;
    std::uint64_t written_ = 0;
  };
  std::uint64_t allowed_;
};

}  // namespace

TEST_CASE("piece writer: pieces are consumed in order, an empty submit queues nothing",
          "[install]") {
  std::string consumed;
  int calls = 0;
  PieceWriter pieces(2, 16, [&](std::string_view piece) -> Result<void> {
    consumed += piece;
    ++calls;
    return {};
  });
  std::string expected;
  for (int i = 0; i < 200; ++i) {  // far more pieces than buffers: they are reused
    std::string text = str_cat("<", i, ">");
    expected += text;
    REQUIRE(put(pieces, text).has_value());
    std::span<char> same = pieces.next();
    REQUIRE(pieces.submit(0).has_value());  // nothing produced: the buffer stays the next one
    CHECK(pieces.next().data() == same.data());
  }
  REQUIRE(pieces.finish().has_value());
  CHECK(consumed == expected);
  CHECK(calls == 200);
}

TEST_CASE("piece writer: the consumer's first error is what submit and finish return",
          "[install]") {
  std::atomic<int> calls{0};
  PieceWriter pieces(3, 8, [&](std::string_view piece) -> Result<void> {
    ++calls;
    if (piece == "bad") return make_error(ErrorCode::kIo, "disk full");
    return {};
  });
  REQUIRE(put(pieces, "ok").has_value());
  REQUIRE(put(pieces, "bad").has_value());  // queued: the error comes later
  Result<void> done = pieces.finish();
  REQUIRE_FALSE(done.has_value());
  CHECK(done.error().message == "disk full");
  // From then on every submit answers the error and nothing more is consumed.
  Result<void> after = put(pieces, "more");
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().message == "disk full");
  CHECK(calls == 2);
}

TEST_CASE("piece writer: destroyed with pieces queued, it stops without consuming them all",
          "[install]") {
  std::atomic<int> calls{0};
  {
    PieceWriter pieces(4, 8, [&](std::string_view) -> Result<void> {
      ++calls;
      return {};
    });
    for (int i = 0; i < 4; ++i) REQUIRE(put(pieces, "x").has_value());
  }  // no finish(): the destructor must not hang
  CHECK(calls <= 4);
}

TEST_CASE("extraction: a member hashed and written beside its inflate is the same file, with "
          "the same checks",
          "[install]") {
  test::TempDir dir;
  RealFileSystem file_system;
  const std::string content = big_content();
  test::WheelSpec spec{"demo", "1.0"};
  spec.files = {{"demo/__init__.py", "VALUE = 1\n"}, {"demo/big.bin", content}};
  const std::string wheel = test::build_wheel(spec, dir.file("good"));

  for (std::uint64_t separate : {std::uint64_t{0}, std::uint64_t{1}}) {
    INFO("separate_writer_bytes " << separate);
    const std::string folder = dir.file(str_cat("out-", separate));
    Result<ExtractedWheel> extracted = extract(file_system, wheel, folder, separate);
    INFO((extracted ? std::string() : extracted.error().message));
    REQUIRE(extracted.has_value());
    CHECK(read_all(folder + "/demo/big.bin") == content);
    CHECK(read_all(folder + "/demo/__init__.py") == "VALUE = 1\n");
  }

  SECTION("a RECORD hash that does not match is refused") {
    test::WheelSpec lying = spec;
    lying.files[1].record_hash = "sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const std::string bad = test::build_wheel(lying, dir.file("lying"));
    Result<ExtractedWheel> extracted = extract(file_system, bad, dir.file("lying-out"), 1);
    REQUIRE_FALSE(extracted.has_value());
    CHECK(extracted.error().code == ErrorCode::kIntegrity);
    CHECK(extracted.error().message.find("hash mismatch for `demo/big.bin`") != std::string::npos);
  }

  SECTION("a failed write on the writer's thread is the extraction's error") {
    FailingWrites failing(file_system, std::uint64_t{3} << 19);  // 1.5 MiB: the second piece
    Result<ExtractedWheel> extracted = extract(failing, wheel, dir.file("full-out"), 1);
    REQUIRE_FALSE(extracted.has_value());
    CHECK(extracted.error().message == "no space left on the device");
  }

  SECTION("deflate data that ends early is refused, the writer's thread stopped") {
    // Truncate big.bin's compressed data inside the archive: its deflate stream ends early.
    std::string bytes = read_all(wheel);
    const std::size_t at = bytes.find("demo/big.bin");  // the local header's name
    REQUIRE(at != std::string::npos);
    const std::size_t data = at + std::string("demo/big.bin").size() + 4096;
    for (std::size_t i = data; i < data + 65536 && i < bytes.size(); ++i) bytes[i] = '\0';
    const std::string damaged = dir.file("damaged/demo-1.0-py3-none-any.whl");
    fs::create_directories(dir.file("damaged"));
    std::ofstream(damaged, std::ios::binary) << bytes;
    Result<ExtractedWheel> extracted = extract(file_system, damaged, dir.file("damaged-out"), 1);
    REQUIRE_FALSE(extracted.has_value());
    CHECK(extracted.error().code == ErrorCode::kIntegrity);
    CHECK(extracted.error().message.find("demo/big.bin") != std::string::npos);
  }
}

}  // namespace wv::install
