#include "src/net/progress.h"

#include <cstdio>

#include "src/base/str.h"

namespace wv::net {

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return str_cat(bytes, " B");
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = double(bytes) / 1024.0;
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f %s", value, kUnits[unit]);
  return buffer;
}

std::string render_progress_line(const ProgressSnapshot& snapshot, std::size_t width) {
  std::string files = str_cat("(", snapshot.files_done, "/", snapshot.files_total, " files)");
  std::string line;
  if (snapshot.bytes_total > 0) {
    std::uint64_t done =
        snapshot.bytes_done < snapshot.bytes_total ? snapshot.bytes_done : snapshot.bytes_total;
    unsigned percent = unsigned(done * 100 / snapshot.bytes_total);
    std::string tail = str_cat(" ", percent, "% ", format_bytes(snapshot.bytes_done), "/",
                               format_bytes(snapshot.bytes_total), " ", files);
    constexpr std::size_t kBarWidth = 20;
    std::string head = "downloading";
    if (head.size() + kBarWidth + 3 + tail.size() <= width) {
      std::size_t filled = std::size_t(done * kBarWidth / snapshot.bytes_total);
      head += " [" + std::string(filled, '#') + std::string(kBarWidth - filled, ' ') + "]";
    }
    line = head + tail;
  } else {
    line = str_cat("downloading ", format_bytes(snapshot.bytes_done), " ", files);
  }
  if (line.size() > width) line.resize(width);
  return line;
}

}  // namespace wv::net
