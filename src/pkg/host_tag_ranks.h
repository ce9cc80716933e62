// The compatible tags of a CPython host in factored form (pkg::compatible_tags() is its
// expansion): each (interpreter, abi) pair with each platform tag, pair-major, then the
// `INTERPRETER-none-any` tags. A few dozen strings instead of the ~700 tags of the list, so
// ranking the handful of wheels a live host judges (install selection) builds no list.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/pkg/tags.h"

namespace wv::pkg {

class HostTagRanks {
 public:
  explicit HostTagRanks(const TagPlatform& platform);

  /// The rank of one tag (its first place in expand()), nullopt when the host does not accept
  /// it: the rank TagPriority(compatible_tags(platform)) gives it.
  std::optional<std::uint32_t> rank(const Tag& tag) const;
  /// The best rank among `tags`; nullopt when none is accepted.
  std::optional<std::uint32_t> best_rank(std::span<const Tag> tags) const;
  /// The ordered list: what compatible_tags() returns.
  std::vector<Tag> expand() const;

 private:
  struct Pair {
    std::string interpreter;
    std::string abi;
  };
  std::vector<Pair> pairs_;                    ///< with every platform tag, in order
  std::vector<std::string> platforms_;         ///< platform_tags(), most preferred first
  std::vector<std::string> any_interpreters_;  ///< `X-none-any`, after every platform tag
};

}  // namespace wv::pkg
