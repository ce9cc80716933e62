// Wheel filename parsing (PEP 427/491 + PEP 825 variant labels).
#include "src/pkg/wheel_filename.h"

#include "src/base/str.h"
#include "src/pkg/variant.h"

namespace wv::pkg {
namespace {

constexpr std::string_view kWheelSuffix = ".whl";

// make_parse_error with the house wording: "...: expected <what was expected>".
Error expected_error(std::string_view what, std::string_view input, std::size_t offset,
                     std::string_view expected) {
  return make_parse_error(what, input, offset, str_cat("expected ", expected));
}

bool is_build_rest_char(char c) { return is_ascii_alnum(c) || c == '_' || c == '.'; }

Error filename_error(std::string_view filename, std::size_t offset, std::string_view expected) {
  return expected_error("wheel filename", filename, offset, expected);
}

}  // namespace

std::string BuildTag::to_string() const { return str_cat(number, rest); }

Result<BuildTag> parse_build_tag(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && is_ascii_digit(text[digits])) ++digits;
  if (digits == 0) {
    return expected_error("build tag", text, 0, "a build tag starting with a digit");
  }
  for (std::size_t i = digits; i < text.size(); ++i) {
    if (!is_build_rest_char(text[i])) {
      return expected_error("build tag", text, i,
                              "ASCII letters, digits, `_` or `.` after the build number");
    }
  }
  std::optional<std::uint64_t> number = parse_uint64(text.substr(0, digits));
  if (!number) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("build tag ", in_backticks(text),
                              ": the build number does not fit in 64 bits"));
  }
  return BuildTag{*number, std::string(text.substr(digits))};
}

Result<WheelFilename> parse_wheel_filename(std::string_view filename) {
  if (filename.size() <= kWheelSuffix.size() ||
      filename.substr(filename.size() - kWheelSuffix.size()) != kWheelSuffix) {
    return filename_error(filename, filename.size(), "a file name ending in `.whl`");
  }
  const std::string_view stem = filename.substr(0, filename.size() - kWheelSuffix.size());
  const std::vector<std::string_view> parts = split(stem, '-');
  if (parts.size() < 5 || parts.size() > 7) {
    return filename_error(
        filename, 0,
        str_cat("5 to 7 dash-separated parts `name-version[-build]-python-abi-platform"
                "[-label].whl`, found ", parts.size()));
  }
  // Offsets of each part in `filename`, for the caret under an error.
  std::vector<std::size_t> offsets;
  std::size_t offset = 0;
  for (std::string_view part : parts) {
    offsets.push_back(offset);
    offset += part.size() + 1;
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) return filename_error(filename, offsets[i], "no empty part between dashes");
  }

  // Which parts are the build tag and the label (variants.md §1).
  bool has_build = false;
  bool has_label = false;
  if (parts.size() == 7) {
    has_build = has_label = true;
  } else if (parts.size() == 6) {
    has_build = is_ascii_digit(parts[2][0]);
    has_label = !has_build;
  }
  const std::size_t tag_index = has_build ? 3 : 2;

  WheelFilename wheel;
  Result<PackageName> name = parse_package_name(parts[0]);
  if (!name) {
    return filename_error(filename, 0,
                          str_cat("a valid project name before the first `-` (",
                                  name.error().message, ")"));
  }
  wheel.name = std::move(*name);

  Result<Version> version = parse_version(parts[1]);
  if (!version) {
    return filename_error(filename, offsets[1],
                          str_cat("a valid PEP 440 version as the second part (",
                                  version.error().message, ")"));
  }
  wheel.version = std::move(*version);

  if (has_build) {
    Result<BuildTag> build = parse_build_tag(parts[2]);
    if (!build) {
      return filename_error(filename, offsets[2],
                            str_cat("a build tag as the third part (", build.error().message, ")"));
    }
    wheel.build = std::move(*build);
  }

  if (is_ascii_digit(parts[tag_index][0])) {
    return filename_error(filename, offsets[tag_index],
                          "a Python tag that does not start with a digit (PEP 825)");
  }
  const std::string_view tag_text =
      stem.substr(offsets[tag_index], offsets[tag_index + 2] + parts[tag_index + 2].size() -
                                          offsets[tag_index]);
  Result<std::vector<Tag>> tags = parse_tag_set(tag_text);
  if (!tags) {
    return filename_error(filename, offsets[tag_index],
                          str_cat("valid `python-abi-platform` tags (", tags.error().message, ")"));
  }
  wheel.tags = std::move(*tags);
  wheel.python_tag = to_lower(parts[tag_index]);
  wheel.abi_tag = to_lower(parts[tag_index + 1]);
  wheel.platform_tag = to_lower(parts[tag_index + 2]);

  if (has_label) {
    const std::string_view label = parts.back();
    if (!is_valid_variant_label(label)) {
      return filename_error(filename, offsets.back(),
                            "a variant label of lower-case letters, digits, `_` or `.` (PEP 825)");
    }
    wheel.variant_label = std::string(label);
  }
  return wheel;
}

std::string WheelFilename::to_string() const {
  std::string escaped_name = name.str();
  for (char& c : escaped_name) {
    if (c == '-') c = '_';
  }
  std::string out = str_cat(escaped_name, "-", version.to_string());
  if (build) out += str_cat("-", build->to_string());
  out += str_cat("-", python_tag, "-", abi_tag, "-", platform_tag);
  if (variant_label) out += str_cat("-", *variant_label);
  out += kWheelSuffix;
  return out;
}

}  // namespace wv::pkg
