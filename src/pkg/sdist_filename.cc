// Source distribution and variants.json filenames, and the file classifier.
#include "src/pkg/sdist_filename.h"

#include "src/base/str.h"
#include "src/pkg/version_text.h"

namespace wv::pkg {
namespace {

constexpr std::string_view kTarGz = ".tar.gz";
constexpr std::string_view kZip = ".zip";
constexpr std::string_view kVariantsJsonSuffix = "-variants.json";
// Archive suffixes of sdists older tools produced; recognised only to say why they are refused.
constexpr std::string_view kLegacySdistSuffixes[] = {".tar.bz2", ".tar.xz", ".tgz", ".tbz",
                                                     ".tar", ".tar.Z"};

// make_parse_error with the house wording: "...: expected <what was expected>".
Error expected_error(std::string_view what, std::string_view input, std::size_t offset,
                     std::string_view expected) {
  return make_parse_error(what, input, offset, str_cat("expected ", expected));
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string escaped(const PackageName& name) {
  std::string out = name.str();
  for (char& c : out) {
    if (c == '-') c = '_';
  }
  return out;
}

// Splits `filename` into its stem and format, or explains why it is not an sdist name.
Result<std::pair<std::string_view, SdistFormat>> sdist_stem(std::string_view filename) {
  if (ends_with(filename, kTarGz)) {
    return std::pair{filename.substr(0, filename.size() - kTarGz.size()), SdistFormat::kTarGz};
  }
  if (ends_with(filename, kZip)) {
    return std::pair{filename.substr(0, filename.size() - kZip.size()), SdistFormat::kZip};
  }
  return expected_error("sdist filename", filename, filename.size(),
                          "a file name ending in `.tar.gz` or `.zip`");
}

}  // namespace

std::string SdistFilename::to_string() const {
  return str_cat(escaped(name), "-", version.to_string(),
                 format == SdistFormat::kZip ? kZip : kTarGz);
}

Result<SdistFilename> parse_sdist_filename(std::string_view filename) {
  WV_ASSIGN_OR_RETURN(auto stem_format, sdist_stem(filename));
  const std::string_view stem = stem_format.first;
  // Try each dash from the right: the rightmost split is packaging's; moving left recovers
  // legacy versions with a dash (`1.0-beta`, `2.0-1`).
  std::size_t dash = stem.rfind('-');
  if (dash == std::string_view::npos) {
    return expected_error("sdist filename", filename, 0,
                            "`name-version` before the extension, separated by `-`");
  }
  const std::size_t last_dash = dash;
  // Each split is first checked without building a value or an error (an error quotes the
  // input): parsing both sides at every dash was quadratic in the length of the name. The
  // version is checked first; it fails within a few dashes of where it starts. Trailing
  // whitespace (which parse_version strips) is skipped once, not at every split.
  std::size_t end = stem.size();
  while (std::size_t n = detail::python_space_length_before(stem, end)) end -= n;
  while (dash != std::string_view::npos) {
    if (dash < end && is_valid_version(stem.substr(dash + 1, end - dash - 1)) &&
        is_valid_name(stem.substr(0, dash))) {
      WV_ASSIGN_OR_RETURN(PackageName name, parse_package_name(stem.substr(0, dash)));
      WV_ASSIGN_OR_RETURN(Version version, parse_version(stem.substr(dash + 1)));
      return SdistFilename{std::move(name), std::move(version), stem_format.second};
    }
    if (dash == 0) break;
    dash = stem.rfind('-', dash - 1);
  }
  // The error is the one for the rightmost split, as packaging's.
  Result<PackageName> name = parse_package_name(stem.substr(0, last_dash));
  Result<Version> version = parse_version(stem.substr(last_dash + 1));
  return expected_error(
      "sdist filename", filename, name ? last_dash + 1 : 0,
      str_cat(name ? "a valid PEP 440 version after the last `-` ("
                   : "a valid project name before the last `-` (",
              name ? (version ? std::string("unknown") : version.error().message)
                   : name.error().message,
              ")"));
}

Result<SdistFilename> parse_sdist_filename(std::string_view filename,
                                           const PackageName& project) {
  WV_ASSIGN_OR_RETURN(auto stem_format, sdist_stem(filename));
  const std::string_view stem = stem_format.first;
  // The name may be spelled any way that normalises to the project's name; it holds as many
  // dash-separated words as its spelling does, so try every dash.
  // The prefix is normalised incrementally, as normalize_name() does it (normalising it afresh
  // at every dash was quadratic); it only grows, so stop once it is longer than the name.
  std::string prefix;
  std::size_t normalised_up_to = 0;
  bool in_separator_run = false;
  for (std::size_t dash = stem.find('-'); dash != std::string_view::npos;
       dash = stem.find('-', dash + 1)) {
    for (; normalised_up_to < dash; ++normalised_up_to) {
      const char c = stem[normalised_up_to];
      if (c == '-' || c == '_' || c == '.') {
        if (!in_separator_run) prefix.push_back('-');
        in_separator_run = true;
      } else {
        prefix.push_back(to_ascii_lower(c));
        in_separator_run = false;
      }
    }
    if (prefix.size() > project.str().size()) break;
    if (prefix != project.str()) continue;
    Result<Version> version = parse_version(stem.substr(dash + 1));
    if (!version) {
      return expected_error("sdist filename", filename, dash + 1,
                              str_cat("a valid PEP 440 version after the project name (",
                                      version.error().message, ")"));
    }
    return SdistFilename{project, std::move(*version), stem_format.second};
  }
  return expected_error("sdist filename", filename, 0,
                          str_cat("the project name ", in_backticks(project.str()),
                                  " then `-` and a version"));
}

std::string VariantsJsonFilename::to_string() const {
  return str_cat(escaped(name), "-", version.to_string(), kVariantsJsonSuffix);
}

Result<VariantsJsonFilename> parse_variants_json_filename(std::string_view filename) {
  if (!ends_with(filename, kVariantsJsonSuffix)) {
    return expected_error("variants.json filename", filename, filename.size(),
                            "a file name ending in `-variants.json`");
  }
  const std::string_view stem = filename.substr(0, filename.size() - kVariantsJsonSuffix.size());
  const std::size_t dash = stem.rfind('-');
  if (dash == std::string_view::npos) {
    return expected_error("variants.json filename", filename, 0,
                            "`{name}-{version}-variants.json`");
  }
  Result<PackageName> name = parse_package_name(stem.substr(0, dash));
  if (!name) {
    return expected_error("variants.json filename", filename, 0,
                            str_cat("a valid project name (", name.error().message, ")"));
  }
  Result<Version> version = parse_version(stem.substr(dash + 1));
  if (!version) {
    return expected_error("variants.json filename", filename, dash + 1,
                            str_cat("a valid PEP 440 version (", version.error().message, ")"));
  }
  return VariantsJsonFilename{std::move(*name), std::move(*version)};
}

ClassifiedFile classify_filename(std::string_view filename) {
  ClassifiedFile out;
  if (filename.empty() || filename.find('/') != std::string_view::npos ||
      filename.find('\\') != std::string_view::npos) {
    out.reason = "not a bare file name";
    return out;
  }
  if (ends_with(filename, ".whl")) {
    Result<WheelFilename> wheel = parse_wheel_filename(filename);
    if (!wheel) {
      out.reason = wheel.error().message;
      return out;
    }
    out.kind = FileKind::kWheel;
    out.wheel = std::move(*wheel);
    return out;
  }
  if (ends_with(filename, kVariantsJsonSuffix)) {
    Result<VariantsJsonFilename> json = parse_variants_json_filename(filename);
    if (!json) {
      out.reason = json.error().message;
      return out;
    }
    out.kind = FileKind::kVariantsJson;
    out.variants_json = std::move(*json);
    return out;
  }
  if (ends_with(filename, kTarGz) || ends_with(filename, kZip)) {
    Result<SdistFilename> sdist = parse_sdist_filename(filename);
    if (!sdist) {
      out.reason = sdist.error().message;
      return out;
    }
    out.kind = FileKind::kSdist;
    out.sdist = std::move(*sdist);
    return out;
  }
  for (std::string_view suffix : kLegacySdistSuffixes) {
    if (ends_with(filename, suffix)) {
      out.reason = str_cat("legacy source archive ", in_backticks(filename),
                           ": only `.tar.gz` and `.zip` sdists are supported");
      return out;
    }
  }
  out.reason = str_cat(in_backticks(filename), " is not a wheel, sdist or variants.json file");
  return out;
}

}  // namespace wv::pkg
