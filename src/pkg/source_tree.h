// What decides a source tree's metadata: the files setuptools, flit, hatch and the rest read it
// from. Both the lock's input-hash (a changed sibling makes the lock stale) and an installed
// folder's record (a changed project is rebuilt) digest exactly these. Cheap to include.
#pragma once

#include <array>
#include <string_view>

namespace wv::pkg {

inline constexpr std::array<std::string_view, 3> kMetadataFiles = {"pyproject.toml", "setup.cfg",
                                                                  "setup.py"};

}  // namespace wv::pkg
