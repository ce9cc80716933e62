// Simple repository API project pages: PEP 503 HTML (anchors with `#hash` fragments,
// `data-requires-python`, PEP 592 `data-yanked`, PEP 658/714 `data-core-metadata` /
// `data-dist-info-metadata`, PEP 629 `pypi:repository-version`) and PEP 691 JSON (with the
// PEP 700 `size`/`versions` keys). Both parse into the same ProjectPage (reference
// solver-and-formats.md §5.4). Parsers take arbitrary bytes and never crash.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/source.h"

namespace wv::index {

/// One file entry of a project page, before its name is interpreted.
struct IndexFile {
  std::string filename;  ///< the anchor text / JSON `filename`
  std::string url;       ///< resolved against the page URL, fragment removed
  std::map<std::string, std::string> hashes;  ///< algorithm -> lower-case hex
  std::optional<std::uint64_t> size;          ///< JSON `size` (PEP 700)
  std::string upload_time;  ///< JSON `upload-time` (PEP 700), normalised; "" when absent
  std::string requires_python;                ///< entities decoded, "" when absent
  bool yanked = false;
  std::string yanked_reason;
  pkg::CoreMetadataAvailability core_metadata = pkg::CoreMetadataAvailability::kUnknown;
  std::map<std::string, std::string> core_metadata_hashes;
};

/// A parsed project page.
struct ProjectPage {
  std::string api_version;  ///< PEP 629 meta / PEP 691 `meta.api-version`; "" when absent
  std::string name;         ///< JSON `name`; "" for HTML
  std::vector<IndexFile> files;
  /// Anchors or entries that could not be used (no href, no filename), counted, not fatal.
  std::size_t skipped = 0;
};

/// Content type of PEP 691 JSON and the Accept header wvlock sends (JSON preferred, HTML as
/// fallback, like pip and uv).
inline constexpr std::string_view kSimpleJsonContentType = "application/vnd.pypi.simple.v1+json";
inline constexpr std::string_view kSimpleAcceptHeader =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01";

/// Decodes HTML character references: the named ones a simple index uses (`&lt;` `&gt;`
/// `&amp;` `&quot;` `&apos;` `&nbsp;`) and numeric ones (`&#62;`, `&#x3E;`); anything else is
/// kept as written.
std::string decode_html_entities(std::string_view text);

/// Parses a PEP 503 HTML page. `page_url` (a URL or a local path) resolves relative hrefs;
/// a `<base href>` element overrides it. Fails only on a PEP 629 major version other than 1.
Result<ProjectPage> parse_html_project_page(std::string_view html, std::string_view page_url);

/// Parses a PEP 691 JSON project page. Fails (kParse) on malformed JSON or a wrong shape,
/// naming `page_url`, and on an api-version major other than 1.
Result<ProjectPage> parse_json_project_page(std::string_view json, std::string_view page_url);

/// Checks a PEP 629/691 api-version ("1.0", "1.4"): ok for major 1 or when empty.
Result<void> check_api_version(std::string_view api_version, std::string_view page_url);

}  // namespace wv::index
