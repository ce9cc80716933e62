// Simple repository API project pages (src/index/simple_page.h): PEP 503 HTML and PEP 691 JSON.
// This target: the HTML parser. Properties: no crash; the URL of every file of a page has no
// fragment and its hashes are lower-case; decode_html_entities() never grows its input.
#include <string>

#include "fuzz/fuzz_target.h"
#include "fuzz/simple_page_check.h"
#include "src/index/simple_page.h"

WV_FUZZ_TARGET(simple_html) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view page = wv::fuzz::as_text(data, size);
  const std::string decoded = wv::index::decode_html_entities(page);
  WV_FUZZ_CHECK(decoded.size() <= page.size(), "entity decoding grew the text");
  for (const char* url : {"https://example.org/simple/torch/", "/srv/index/simple/torch/index.html"}) {
    auto parsed = wv::index::parse_html_project_page(page, url);
    if (parsed) wv::fuzz::check_project_page(parsed.value());
  }
}
