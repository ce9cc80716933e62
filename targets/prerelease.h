// uv's pre-release modes (DESIGN.md §2 `prerelease`), listed once: the names pyproject.toml
// accepts (checked by the project reader) and the policy the lock layer applies. Cheap to
// include.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace wv::targets {

enum class PrereleaseMode { kDisallow, kAllow, kIfNecessary, kExplicit, kIfNecessaryOrExplicit };

/// The values `prerelease` accepts (uv's names), in the order of PrereleaseMode.
inline constexpr std::string_view kPrereleaseModes[] = {
    "disallow", "allow", "if-necessary", "explicit", "if-necessary-or-explicit"};

/// The mode `text` names; nullopt for any other text.
inline std::optional<PrereleaseMode> parse_prerelease_mode(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kPrereleaseModes); ++i) {
    if (kPrereleaseModes[i] == text) return static_cast<PrereleaseMode>(i);
  }
  return std::nullopt;
}

/// The name pyproject.toml gives `mode` (and the lockfile's input-hash reads).
inline std::string_view to_string(PrereleaseMode mode) {
  return kPrereleaseModes[static_cast<std::size_t>(mode)];
}

}  // namespace wv::targets
