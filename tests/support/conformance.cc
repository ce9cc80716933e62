#include "tests/support/conformance.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace wv::test {

std::optional<std::string> conformance_dir() {
  const char* from_environment = std::getenv("WVLOCK_CONFORMANCE_DIR");
  std::string dir = from_environment && *from_environment ? from_environment
                                                          : WV_DEFAULT_CONFORMANCE_DIR;
  std::error_code code;
  if (!std::filesystem::is_directory(dir, code)) {
    std::printf("skipped: conformance data not found at %s (set WVLOCK_CONFORMANCE_DIR)\n",
                dir.c_str());
    return std::nullopt;
  }
  return dir;
}

bool for_each_line(const std::string& path,
                   const std::function<void(std::string_view, int)>& visit) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty()) visit(line, number);
  }
  return true;
}

void print_tally(std::string_view label, int passed, int failed) {
  std::printf("%.*s: %d passed, %d failed\n", int(label.size()), label.data(), passed, failed);
  std::fflush(stdout);
}

}  // namespace wv::test
