// Simple repository API project pages (src/index/simple_page.h): PEP 503 HTML and PEP 691 JSON.
// This target: the JSON parser. Properties: no crash; the URL of every file of a page has no
// fragment and its hashes are lower-case.
#include <string>

#include "fuzz/fuzz_target.h"
#include "fuzz/simple_page_check.h"
#include "src/index/simple_page.h"

WV_FUZZ_TARGET(simple_json) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view page = wv::fuzz::as_text(data, size);
  for (const char* url : {"https://example.org/simple/torch/", "file:///srv/index/simple/torch/"}) {
    auto parsed = wv::index::parse_json_project_page(page, url);
    if (parsed) wv::fuzz::check_project_page(parsed.value());
  }
  (void)wv::index::check_api_version(page.substr(0, 16), "page");
}
