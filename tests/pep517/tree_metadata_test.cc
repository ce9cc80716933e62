// The metadata a source tree states in pyproject.toml, read without its backend: extras in
// their PEP 685 normal form, and no static metadata for an extra that is no valid name.
#include "src/pep517/tree_metadata.h"

#include <catch2/catch.hpp>

namespace {

wv::targets::ProjectConfig stated(const std::string& extra) {
  wv::targets::ProjectConfig config;
  config.name = "Tree_Pkg";
  config.version = "1.0";
  config.optional_dependencies[extra] = {"torch>=2", "numpy; python_version < \"3.12\""};
  return config;
}

}  // namespace

TEST_CASE("tree metadata: an extra is provided under its normal form", "[pep517][extras]") {
  std::optional<std::string> text = wv::build::static_tree_metadata(stated("CUDA_Extra"));
  REQUIRE(text);
  CHECK(*text == "Metadata-Version: 2.2\nName: Tree_Pkg\nVersion: 1.0\n"
                 "Provides-Extra: cuda-extra\n"
                 "Requires-Dist: torch>=2; extra == \"cuda-extra\"\n"
                 "Requires-Dist: numpy; (python_version < \"3.12\") and extra == \"cuda-extra\"\n");
}

TEST_CASE("tree metadata: an extra that is no valid name leaves it to the backend",
          "[pep517][extras]") {
  CHECK_FALSE(wv::build::static_tree_metadata(stated("cuda_")).has_value());
  CHECK_FALSE(wv::build::static_tree_metadata(stated("cu da")).has_value());
}
