// Where an IndexSource lists projects: a find-links folder or a simple index, reached by local
// path, file:// or http(s)://, with the configured index's name (docs/sources.md).
#pragma once

#include <cstdint>
#include <string>

namespace wv::index {

enum class LocationKind : std::uint8_t {
  kSimpleIndex,  ///< PEP 503/691: `<location>/<normalised name>/` is the project page
  kFlatFolder,   ///< find-links: a folder whose files are the distributions
};

struct SourceLocation {
  LocationKind kind = LocationKind::kSimpleIndex;
  /// A local path, a file:// URL or (simple indexes only) an http(s):// URL.
  std::string location;
  /// The configured index's name ("" for find-links); recorded on every file it lists.
  std::string name;
  /// Serves only pinned listings (pinned()), never the default chain.
  bool explicit_only = false;
};

}  // namespace wv::index
