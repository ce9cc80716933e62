#include <catch2/catch.hpp>

#include "src/pkg/inline_metadata.h"

using wv::pkg::inline_metadata;

TEST_CASE("inline metadata: PEP 723's example block", "[pkg][pep723]") {
  const char* script =
      "# /// script\n"
      "# requires-python = \">=3.11\"\n"
      "# dependencies = [\n"
      "#   \"requests<3\",\n"
      "#   \"rich\",\n"
      "# ]\n"
      "#\n"
      "# [tool.uv]\n"
      "# exclude-newer = \"2025-01-01\"\n"
      "# ///\n"
      "\n"
      "import requests\n";
  auto block = inline_metadata(script);
  REQUIRE(block);
  REQUIRE(*block);
  CHECK(**block ==
        "requires-python = \">=3.11\"\n"
        "dependencies = [\n"
        "  \"requests<3\",\n"
        "  \"rich\",\n"
        "]\n"
        "\n"
        "[tool.uv]\n"
        "exclude-newer = \"2025-01-01\"\n");
}

TEST_CASE("inline metadata: none, other types, and where the block ends", "[pkg][pep723]") {
  CHECK(inline_metadata("import sys\nprint(1)\n").value() == std::nullopt);
  CHECK(inline_metadata("").value() == std::nullopt);
  // Another TYPE is not the script's (and may repeat).
  CHECK(inline_metadata("# /// pyproject\n# a = 1\n# ///\n# /// pyproject\n# ///\n").value() ==
        std::nullopt);
  // Not an opening line: trailing space, no space, a bad TYPE.
  CHECK(inline_metadata("# /// script \n# a = 1\n# ///\n").value() == std::nullopt);
  CHECK(inline_metadata("#/// script\n# a = 1\n# ///\n").value() == std::nullopt);
  // The closing line is the last `# ///` of the comment run (PEP 723's greedy regex).
  CHECK(inline_metadata("# /// script\n# a = 1\n# ///\n# b = 2\n# ///\nx = 1\n").value() ==
        std::optional<std::string>("a = 1\n///\nb = 2\n"));
  // A non-comment line ends the run: its `# ///` does not close the block.
  auto cut = inline_metadata("# /// script\n# a = 1\nimport os\n# ///\n");
  REQUIRE_FALSE(cut);
  CHECK(cut.error().message.find("never closed") != std::string::npos);
  // `#x` is not a block line either.
  CHECK_FALSE(inline_metadata("# /// script\n#x = 1\n# ///\n"));
  // CRLF scripts read the same.
  CHECK(inline_metadata("# /// script\r\n# a = 1\r\n# ///\r\n").value() ==
        std::optional<std::string>("a = 1\n"));
}

TEST_CASE("inline metadata: unclosed and repeated blocks are errors", "[pkg][pep723]") {
  auto unclosed = inline_metadata("x = 1\n# /// script\n# dependencies = []\n");
  REQUIRE_FALSE(unclosed);
  CHECK(unclosed.error().code == wv::ErrorCode::kParse);
  CHECK(unclosed.error().message.find("line 2") != std::string::npos);
  auto twice = inline_metadata("# /// script\n# a = 1\n# ///\n\n# /// script\n# b = 2\n# ///\n");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message.find("second `# /// script` block") != std::string::npos);
  CHECK(twice.error().message.find("line 1") != std::string::npos);
}
