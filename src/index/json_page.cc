// PEP 691 JSON project pages over nlohmann/json (one of the two .cc files that include it).
// Unknown keys are ignored, as PEP 691 requires; a wrong type in a key we use is an error for
// the page (bad shape) or, inside one file entry, skips that entry.
#include <nlohmann/json.hpp>

#include "src/base/str.h"
#include "src/index/json_guard.h"
#include "src/index/simple_page.h"
#include "src/base/url.h"
#include "src/pkg/upload_time.h"

namespace wv::index {
namespace {

using Json = nlohmann::json;

Error shape_error(std::string_view page_url, std::string_view what) {
  return make_error(ErrorCode::kParse, str_cat("simple index page ", in_backticks(page_url),
                                               " is not a PEP 691 project page: ", what));
}

void read_hashes(const Json& object, std::map<std::string, std::string>& out) {
  if (!object.is_object()) return;
  for (const auto& [key, value] : object.items()) {
    if (!value.is_string()) continue;
    if (auto pair = parse_hash_pair(str_cat(key, "=", value.get_ref<const std::string&>()))) {
      out.insert(std::move(*pair));
    }
  }
}

// Returns false when the entry cannot be used (no filename or url).
bool read_file_entry(const Json& entry, std::string_view page_url, IndexFile& file) {
  if (!entry.is_object()) return false;
  auto filename = entry.find("filename");
  auto url = entry.find("url");
  if (filename == entry.end() || !filename->is_string()) return false;
  if (url == entry.end() || !url->is_string()) return false;
  file.filename = std::string(trim(filename->get_ref<const std::string&>()));
  const std::string& raw_url = url->get_ref<const std::string&>();
  if (file.filename.empty() || trim(raw_url).empty()) return false;
  file.url = std::string(strip_fragment(resolve_url(page_url, trim(raw_url))));
  if (auto hashes = entry.find("hashes"); hashes != entry.end()) read_hashes(*hashes, file.hashes);
  if (file.hashes.empty()) {
    // Not PEP 691, but some mirrors leave the PEP 503 fragment on the URL.
    if (auto pair = parse_hash_pair(url_fragment(raw_url))) file.hashes.insert(std::move(*pair));
  }
  if (auto requires_python = entry.find("requires-python");
      requires_python != entry.end() && requires_python->is_string()) {
    file.requires_python = std::string(trim(requires_python->get_ref<const std::string&>()));
  }
  if (auto yanked = entry.find("yanked"); yanked != entry.end()) {
    if (yanked->is_boolean()) {
      file.yanked = yanked->get<bool>();
    } else if (yanked->is_string()) {
      file.yanked = true;
      file.yanked_reason = std::string(trim(yanked->get_ref<const std::string&>()));
    }
  }
  if (auto size = entry.find("size"); size != entry.end() && size->is_number_unsigned()) {
    file.size = size->get<std::uint64_t>();
  }
  // Informational (PEP 700): a malformed time is left out, the file is still usable.
  if (auto uploaded = entry.find("upload-time"); uploaded != entry.end() && uploaded->is_string()) {
    file.upload_time = pkg::normalize_upload_time(trim(uploaded->get_ref<const std::string&>()))
                           .value_or("");
  }
  // PEP 714: `core-metadata`, legacy `dist-info-metadata` (and uv's `data-dist-info-metadata`).
  for (const char* key : {"core-metadata", "dist-info-metadata", "data-dist-info-metadata"}) {
    auto found = entry.find(key);
    if (found == entry.end()) continue;
    if (found->is_boolean()) {
      file.core_metadata = found->get<bool>() ? pkg::CoreMetadataAvailability::kAvailable
                                              : pkg::CoreMetadataAvailability::kAbsent;
    } else if (found->is_object()) {
      file.core_metadata = pkg::CoreMetadataAvailability::kAvailable;
      read_hashes(*found, file.core_metadata_hashes);
    }
    break;
  }
  return true;
}

}  // namespace

Result<void> check_json_nesting(std::string_view text, std::uint64_t max_depth,
                                std::string_view what) {
  std::uint64_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        return limit_error(Limit::kJsonDepth, str_cat("the JSON nesting of ", what), std::nullopt,
                           max_depth);
      }
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return {};
}

Result<ProjectPage> parse_json_project_page(std::string_view json, std::string_view page_url) {
  WV_TRY(check_json_nesting(json, limit_value(Limit::kJsonDepth), str_cat("simple index page ", in_backticks(page_url))));
  try {
    Json root = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded()) {
      return make_error(ErrorCode::kParse, str_cat("simple index page ", in_backticks(page_url),
                                                   " is not valid JSON"));
    }
    if (!root.is_object()) return shape_error(page_url, "expected a JSON object");
    ProjectPage page;
    if (auto meta = root.find("meta"); meta != root.end() && meta->is_object()) {
      if (auto version = meta->find("api-version");
          version != meta->end() && version->is_string()) {
        page.api_version = version->get<std::string>();
      }
    }
    WV_TRY(check_api_version(page.api_version, page_url));
    if (auto name = root.find("name"); name != root.end() && name->is_string()) {
      page.name = name->get<std::string>();
    }
    auto files = root.find("files");
    if (files == root.end() || !files->is_array()) {
      return shape_error(page_url, "expected a `files` array");
    }
    page.files.reserve(files->size());
    for (const Json& entry : *files) {
      IndexFile file;
      if (read_file_entry(entry, page_url, file)) {
        page.files.push_back(std::move(file));
      } else {
        ++page.skipped;
      }
    }
    return page;
  } catch (const std::exception& exception) {
    return make_error(ErrorCode::kParse, str_cat("simple index page ", in_backticks(page_url),
                                                 ": ", exception.what()));
  }
}

}  // namespace wv::index
