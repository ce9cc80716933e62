// The one-line download progress bar drawn on stderr while long transfers run (only when stderr
// is a terminal; docs/network.md §Progress). Pure rendering, so it is testable. Cheap to include.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wv::net {

/// Where a batch of transfers stands.
struct ProgressSnapshot {
  std::size_t files_done = 0;
  std::size_t files_total = 0;
  std::uint64_t bytes_done = 0;
  std::uint64_t bytes_total = 0;  ///< 0 while no size is known
};

/// `1.5 KiB`, `12.0 MiB`, `980 B`.
std::string format_bytes(std::uint64_t bytes);

/// `downloading [#####     ] 50% 1.0 MiB/2.0 MiB (3/6 files)`, at most `width` characters
/// (the bar is dropped on narrow terminals; the percentage when no size is known).
std::string render_progress_line(const ProgressSnapshot& snapshot, std::size_t width);

}  // namespace wv::net
