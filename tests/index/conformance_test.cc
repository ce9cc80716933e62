// The published variant index (../shared/conformance/variants-index) and variantlib's examples
// through every parser of wv_index, and through IndexSource as a local PEP 503 index.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "src/base/file_system.h"
#include "src/index/simple_page.h"
#include "src/index/sources.h"
#include "src/index/variants_json.h"
#include "src/pkg/sdist_filename.h"
#include "tests/support/conformance.h"

using namespace wv::index;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sorted_files(const fs::path& root, std::string_view suffix) {
  std::vector<fs::path> out;
  std::error_code error;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file() && it->path().string().ends_with(suffix)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& path) {
  auto text = wv::RealFileSystem().read_file(path.string());
  return text ? *text : std::string();
}

// An independent count of what a variants file says: labels and (label, ns, feature, value)
// entries, straight from nlohmann, to cross-check the model.
std::pair<std::size_t, std::size_t> count_variants(const std::string& text) {
  nlohmann::json root = nlohmann::json::parse(text);
  std::set<std::string> properties;
  std::size_t labels = 0;
  for (const auto& [label, namespaces] : root.at("variants").items()) {
    ++labels;
    for (const auto& [ns, features] : namespaces.items()) {
      for (const auto& [feature, values] : features.items()) {
        for (const auto& value : values) {
          properties.insert(label + " " + ns + " :: " + feature + " :: " + value.get<std::string>());
        }
      }
    }
  }
  return {labels, properties.size()};
}

// Checks one variants file: accepted with a model matching the JSON, or rejected with a reason
// naming the file. Returns false on a check failure (not on a rejection).
bool check_variants_file(const fs::path& path, int& accepted, int& rejected,
                         std::map<std::string, int>& reasons) {
  std::string text = slurp(path);
  std::string name = path.filename().string();
  auto parsed = parse_variants_json(text, name);
  if (!parsed) {
    ++rejected;
    const std::string& message = parsed.error().message;
    ++reasons[message.substr(message.find(':') + 1)];
    std::cout << "  rejected " << name << ": " << message << "\n";
    return message.find(name) != std::string::npos;
  }
  ++accepted;
  auto [labels, property_count] = count_variants(text);
  std::size_t model_properties = 0;
  for (const auto& [label, properties] : parsed->variants) model_properties += properties.size();
  bool ok = parsed->variants.size() == labels && model_properties == property_count &&
            wv::pkg::validate_variants_metadata(*parsed).has_value();
  if (!ok) std::cout << "  model mismatch for " << name << "\n";
  return ok;
}

}  // namespace

TEST_CASE("conformance: every variants-index page parses and every file name is classified",
          "[index][conformance]") {
  auto root = wv::test::conformance_dir();
  if (!root) return;
  fs::path index = fs::path(*root) / "variants-index";
  if (!fs::exists(index)) {
    WARN("no variants-index in the conformance folder; skipped");
    return;
  }
  int passed = 0, failed = 0;
  std::map<std::string, int> kinds;
  for (const fs::path& page_path : sorted_files(index, "index.html")) {
    if (page_path.parent_path() == index) continue;  // the landing page lists projects, not files
    std::string project = page_path.parent_path().filename().string();
    auto page = parse_html_project_page(slurp(page_path), page_path.string());
    if (!page) {
      ++failed;
      std::cout << "  page " << project << ": " << page.error().message << "\n";
      continue;
    }
    bool ok = !page->files.empty();
    auto project_name = wv::pkg::parse_package_name(project);
    REQUIRE(project_name);
    for (const IndexFile& file : page->files) {
      wv::pkg::ClassifiedFile classified = wv::pkg::classify_filename(file.filename);
      switch (classified.kind) {
        case wv::pkg::FileKind::kWheel:
          ++kinds[classified.wheel->variant_label ? "wheel with label" : "wheel without label"];
          // Some published wheels carry no hash fragment; those that do have a full sha256.
          ok = ok && classified.wheel->name == *project_name &&
               (!file.hashes.contains("sha256") || file.hashes.at("sha256").size() == 64);
          if (file.hashes.contains("sha256")) ++kinds["(wheels with a sha256)"];
          break;
        case wv::pkg::FileKind::kSdist: ++kinds["sdist"]; break;
        case wv::pkg::FileKind::kVariantsJson:
          ++kinds["variants.json"];
          // Listed variants files sit beside the page, with their sha256.
          ok = ok && fs::exists(file.url) && file.hashes.count("sha256") == 1;
          break;
        case wv::pkg::FileKind::kOther: ++kinds["other"]; ok = ok && !classified.reason.empty(); break;
      }
    }
    // The same page through to_distributions(): only this project's installable files remain.
    for (const auto& distribution : to_distributions(page->files, *project_name, "conformance")) {
      ok = ok && distribution.name == *project_name && !distribution.url.empty();
    }
    if (ok) ++passed; else { ++failed; std::cout << "  page " << project << " failed its checks\n"; }
  }
  for (const auto& [kind, count] : kinds) std::cout << "  " << kind << ": " << count << "\n";
  wv::test::print_tally("variants-index pages", passed, failed);
  CHECK(kinds["wheel with label"] > 100);
  CHECK(kinds["variants.json"] > 50);
  REQUIRE(failed == 0);
}

TEST_CASE("conformance: every variants.json is accepted or rejected with a reason",
          "[index][conformance]") {
  auto root = wv::test::conformance_dir();
  if (!root) return;
  int accepted = 0, rejected = 0, failed = 0;
  std::map<std::string, int> reasons;
  for (const char* folder : {"variants-index", "variantlib"}) {
    fs::path dir = fs::path(*root) / folder;
    if (!fs::exists(dir)) continue;
    for (const fs::path& path : sorted_files(dir, "-variants.json")) {
      if (!check_variants_file(path, accepted, rejected, reasons)) ++failed;
    }
  }
  for (const auto& [reason, count] : reasons) std::cout << "  " << count << " x" << reason << "\n";
  std::cout << "  variants files: " << accepted << " accepted, " << rejected << " rejected\n";
  wv::test::print_tally("variants json files", accepted + rejected - failed, failed);
  CHECK(accepted + rejected >= 96);
  CHECK(accepted > 0);
  REQUIRE(failed == 0);
}

TEST_CASE("conformance: the variants-index read through IndexSource as a local index",
          "[index][conformance]") {
  auto root = wv::test::conformance_dir();
  if (!root) return;
  fs::path index = fs::path(*root) / "variants-index";
  if (!fs::exists(index)) return;
  wv::RealFileSystem file_system;
  IndexSource source({{LocationKind::kSimpleIndex, index.string()}}, file_system, nullptr);
  int passed = 0, failed = 0, usable = 0, unusable = 0;
  for (const auto& entry : fs::directory_iterator(index)) {
    if (!entry.is_directory()) continue;
    auto name = wv::pkg::parse_package_name(entry.path().filename().string());
    REQUIRE(name);
    auto files = source.distributions(*name);
    if (!files) {
      ++failed;
      std::cout << "  " << name->str() << ": " << files.error().message << "\n";
      continue;
    }
    std::map<std::string, wv::pkg::Version> versions_with_json;
    std::map<std::string, std::set<std::string>> labels_by_version;
    std::map<std::string, wv::pkg::Version> versions;
    for (const auto& file : *files) {
      if (file.kind == wv::pkg::DistributionKind::kVariantsJson) {
        versions_with_json.emplace(file.version.to_string(), file.version);
      } else if (!file.variant_label.empty()) {
        labels_by_version[file.version.to_string()].insert(file.variant_label);
        versions.emplace(file.version.to_string(), file.version);
      }
    }
    bool ok = true;
    for (const auto& [text, version] : versions_with_json) {
      auto metadata = source.variants_metadata(*name, version);
      if (!metadata) {
        // Unusable with a reason; an integrity failure would be a bug in our reading.
        ++unusable;
        ok = ok && metadata.error().code != wv::ErrorCode::kIntegrity && !metadata.error().message.empty();
        continue;
      }
      ++usable;
      int undescribed = 0;
      for (const std::string& label : labels_by_version[text]) {
        if (metadata->find_variant(label) == nullptr) ++undescribed;
      }
      if (undescribed > 0) {
        std::cout << "  " << name->str() << " " << text << ": " << undescribed
                  << " wheel label(s) not described by its variants.json\n";
      }
    }
    // A version whose wheels carry labels but that has no variants file: kNotFound, a value.
    for (const auto& [text, labels] : labels_by_version) {
      if (versions_with_json.contains(text)) continue;
      auto metadata = source.variants_metadata(*name, versions.at(text));
      if (metadata || metadata.error().code != wv::ErrorCode::kNotFound) {
        std::cout << "  " << name->str() << " " << text << ": expected no variant metadata\n";
        ok = false;
      }
    }
    if (ok) ++passed; else ++failed;
  }
  std::cout << "  versions with variant metadata: " << usable << " usable, " << unusable
            << " unusable\n";
  wv::test::print_tally("variants-index through IndexSource", passed, failed);
  CHECK(usable > 0);
  REQUIRE(failed == 0);
}
