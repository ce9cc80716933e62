// The one decoder of `file:` URLs (base/percent.h): a link's path is decoded exactly once, so
// `%2B` in a PyTorch-shaped index's href names the file with `+`, and `%252B` the one with `%2B`.
#include "src/base/percent.h"

#include <catch2/catch.hpp>

namespace wv {

TEST_CASE("file_url_to_path decodes once and refuses what is not a local absolute path",
          "[base][percent]") {
  CHECK(file_url_to_path("file:///idx/torch-2.9.0%2Bcpu-cp311-none-any.whl") ==
        std::optional<std::string>("/idx/torch-2.9.0+cpu-cp311-none-any.whl"));
  CHECK(file_url_to_path("file:///idx/a%252Bb.whl") == std::optional<std::string>("/idx/a%2Bb.whl"));
  CHECK(file_url_to_path("FILE://localhost/a%20b/c#sha256=00") == std::optional<std::string>("/a b/c"));
  CHECK(file_url_to_path("file:/a/b?x=1") == std::optional<std::string>("/a/b"));
  CHECK(file_url_to_path("file:///a/%zz") == std::optional<std::string>("/a/%zz"));
  CHECK_FALSE(file_url_to_path("file://elsewhere/a"));
  CHECK_FALSE(file_url_to_path("file:relative/a"));
  CHECK_FALSE(file_url_to_path("file:///a%00b"));
  CHECK_FALSE(file_url_to_path("https://host/a%2Bb"));
  CHECK(percent_decode(percent_encode("/a b+c%d", "/")) == "/a b+c%d");
}

}  // namespace wv
