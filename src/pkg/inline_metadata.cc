#include "src/pkg/inline_metadata.h"

#include <vector>

#include "src/base/str.h"

namespace wv::pkg {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// PEP 723's `^#(| .*)$`: a line the block may hold.
bool is_block_line(std::string_view line) {
  return line == "#" || (line.size() >= 2 && line[0] == '#' && line[1] == ' ');
}

// The TYPE of an opening line `# /// TYPE` (TYPE is `[a-zA-Z0-9-]+`), else "".
std::string_view opening_type(std::string_view line) {
  constexpr std::string_view kOpen = "# /// ";
  if (line.substr(0, kOpen.size()) != kOpen || line.size() == kOpen.size()) return {};
  std::string_view type = line.substr(kOpen.size());
  for (char c : type) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-';
    if (!ok) return {};
  }
  return type;
}

}  // namespace

Result<std::optional<std::string>> inline_metadata(std::string_view script,
                                                   std::string_view type) {
  const std::vector<std::string_view> lines = split_lines(script);
  std::optional<std::string> found;
  std::size_t found_at = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view opened = opening_type(lines[i]);
    if (opened.empty()) continue;
    // The closing line is the last `# ///` before the comment run ends (the regex is greedy).
    std::size_t close = 0;
    std::size_t j = i + 1;
    for (; j < lines.size() && is_block_line(lines[j]); ++j) {
      if (lines[j] == "# ///") close = j;
    }
    if (opened != type) {
      if (close != 0) i = close;
      continue;
    }
    if (close == 0) {
      return make_error(ErrorCode::kParse,
                        str_cat("line ", std::to_string(i + 1), ": the `# /// ", type,
                                "` block is never closed: end it with a `# ///` line"));
    }
    if (found) {
      return make_error(ErrorCode::kParse,
                        str_cat("line ", std::to_string(i + 1), ": a second `# /// ", type,
                                "` block (the first is on line ", std::to_string(found_at + 1),
                                "); PEP 723 allows one"));
    }
    std::string content;
    for (std::size_t k = i + 1; k < close; ++k) {
      std::string_view line = lines[k];
      content += line.size() > 1 ? line.substr(2) : std::string_view();
      content += '\n';
    }
    found = std::move(content);
    found_at = i;
    i = close;
  }
  return found;
}

}  // namespace wv::pkg
