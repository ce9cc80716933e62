#include "tests/support/temp_dir.h"

#include <cstdlib>
#include <filesystem>

namespace wv::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/wvlock-test-XXXXXX";
  char* made = ::mkdtemp(pattern.data());
  path_ = made ? made : "";
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace wv::test
