// The property both simple-page targets (simple_html, simple_json) check on a parsed page:
// every file URL has lost its fragment and every hash is lower-case hex.
#pragma once

#include <cctype>
#include <string>

#include "fuzz/fuzz_target.h"
#include "src/index/simple_page.h"

namespace wv::fuzz {

inline void check_project_page(const wv::index::ProjectPage& page) {
  for (const wv::index::IndexFile& file : page.files) {
    WV_FUZZ_CHECK(file.url.find('#') == std::string::npos, "a file URL keeps its fragment: " + file.url);
    for (const auto& [algorithm, hex] : file.hashes) {
      for (char c : hex) {
        WV_FUZZ_CHECK(!std::isupper(static_cast<unsigned char>(c)), "upper-case hash " + algorithm + "=" + hex);
      }
    }
  }
}

}  // namespace wv::fuzz
