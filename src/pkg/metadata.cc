// Core metadata parsing: header block splitting (RFC 822 / email.parser's compat32 shape as
// packaging reads it), then the fields wvlock uses.
#include "src/pkg/metadata.h"

#include <algorithm>

#include "src/base/str.h"

namespace wv::pkg {
namespace {

// RFC 5322 field names: printable ASCII except ':' (and so no space).
bool is_field_name_char(char c) { return c >= '!' && c <= '~' && c != ':'; }

Error line_error(int line, std::string message) {
  return make_error(ErrorCode::kParse, str_cat("METADATA line ", line, ": ", message));
}

// A value's own parse error (with its caret notes), placed at its line.
Error at_line(int line, Error error) {
  return std::move(error).with_context(str_cat("METADATA line ", line));
}

// Splits the header block into fields, unfolding continuation lines.
Result<std::vector<MetadataField>> read_fields(std::string_view text) {
  std::vector<MetadataField> fields;
  std::size_t pos = 0;
  int line_number = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the body (description) follows; it is not read
    if (line[0] == ' ' || line[0] == '\t') {
      if (fields.empty()) {
        return line_error(line_number,
                          "a continuation line (starting with a space or tab) before any field");
      }
      fields.back().value.append(line);  // RFC 5322 unfolding: drop only the line break
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return line_error(line_number, str_cat(in_backticks(line.substr(0, 80)),
                                             " is not a `Name: value` header line"));
    }
    const std::string_view name = line.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_field_name_char)) {
      return line_error(line_number,
                        str_cat("invalid field name ", in_backticks(name.substr(0, 80)),
                                ": expected printable ASCII without spaces before `:`"));
    }
    fields.push_back(MetadataField{std::string(name), std::string(line.substr(colon + 1)),
                                   line_number});
  }
  for (MetadataField& field : fields) field.value = std::string(trim(field.value));
  return fields;
}

// Finds the single field `name`; an error when it is repeated (or absent and required).
Result<const MetadataField*> single_field(const std::vector<MetadataField>& fields,
                                          std::string_view name, bool required) {
  const MetadataField* found = nullptr;
  for (const MetadataField& field : fields) {
    if (!iequals(field.name, name)) continue;
    if (found) {
      return line_error(field.line, str_cat("repeated field ", in_backticks(name),
                                            " (first given on line ", found->line, ")"));
    }
    found = &field;
  }
  if (!found && required) {
    return make_error(ErrorCode::kParse,
                      str_cat("METADATA has no ", in_backticks(name), " field"));
  }
  return found;
}

Result<void> check_metadata_version(const MetadataField& field) {
  const std::string_view text = field.value;
  const std::size_t dot = text.find('.');
  const std::optional<std::uint64_t> major = parse_uint64(text.substr(0, dot));
  const bool minor_ok = dot != std::string_view::npos && parse_uint64(text.substr(dot + 1));
  if (!major || !minor_ok) {
    return line_error(field.line, str_cat("invalid Metadata-Version ", in_backticks(text),
                                          ": expected `MAJOR.MINOR` such as `2.1`"));
  }
  if (*major == 0 || *major > 2) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("METADATA line ", field.line, ": Metadata-Version ",
                              in_backticks(text), " is not supported (expected 1.0 to 2.x)"));
  }
  return {};
}

}  // namespace

std::vector<std::string_view> CoreMetadata::values(std::string_view field_name) const {
  std::vector<std::string_view> out;
  for (const MetadataField& field : fields) {
    if (iequals(field.name, field_name)) out.push_back(field.value);
  }
  return out;
}

Result<CoreMetadata> parse_metadata(std::string_view text) {
  CoreMetadata metadata;
  WV_ASSIGN_OR_RETURN(metadata.fields, read_fields(text));
  const std::vector<MetadataField>& fields = metadata.fields;

  WV_ASSIGN_OR_RETURN(const MetadataField* metadata_version,
                      single_field(fields, "Metadata-Version", false));
  if (metadata_version) {
    WV_TRY(check_metadata_version(*metadata_version));
    metadata.metadata_version = metadata_version->value;
  }

  WV_ASSIGN_OR_RETURN(const MetadataField* name, single_field(fields, "Name", true));
  Result<PackageName> parsed_name = parse_package_name(name->value);
  if (!parsed_name) {
    return at_line(name->line, std::move(parsed_name).error());
  }
  metadata.name = std::move(*parsed_name);
  metadata.name_as_written = name->value;

  WV_ASSIGN_OR_RETURN(const MetadataField* version, single_field(fields, "Version", true));
  Result<Version> parsed_version = parse_version(version->value);
  if (!parsed_version) {
    return at_line(version->line, std::move(parsed_version).error());
  }
  metadata.version = std::move(*parsed_version);

  WV_ASSIGN_OR_RETURN(const MetadataField* requires_python,
                      single_field(fields, "Requires-Python", false));
  if (requires_python) {
    Result<SpecifierSet> specifiers = parse_specifier_set(requires_python->value);
    if (!specifiers) {
      return at_line(requires_python->line,
                     std::move(std::move(specifiers).error()).with_context("Requires-Python"));
    }
    metadata.requires_python_raw = requires_python->value;
    metadata.requires_python = std::move(*specifiers);
  }

  for (const MetadataField& field : fields) {
    if (iequals(field.name, "Requires-Dist")) {
      Result<Requirement> requirement = parse_requirement(field.value);
      if (!requirement) {
        return at_line(field.line,
                       std::move(std::move(requirement).error()).with_context("Requires-Dist"));
      }
      metadata.requires_dist.push_back(
          RequiresDist{field.value, std::move(*requirement), field.line});
    } else if (iequals(field.name, "Provides-Extra")) {
      if (field.value.empty()) return line_error(field.line, "empty Provides-Extra");
      // Normalised (PEP 685) without validation: metadata before 2.3 allowed any spelling.
      std::string extra = normalize_name(field.value);
      if (std::find(metadata.provides_extra.begin(), metadata.provides_extra.end(), extra) ==
          metadata.provides_extra.end()) {
        metadata.provides_extra.push_back(std::move(extra));
      }
    } else if (iequals(field.name, "Dynamic")) {
      metadata.dynamic.push_back(to_lower(field.value));
    }
  }
  return metadata;
}

bool static_for_resolution(const CoreMetadata& metadata) {
  auto version = parse_version(metadata.metadata_version);
  auto two_two = parse_version("2.2");
  if (!version || !two_two || *version < *two_two) return false;
  for (const std::string& field : metadata.dynamic) {
    if (field == "requires-dist" || field == "requires-python" || field == "provides-extra") {
      return false;
    }
  }
  return true;
}

}  // namespace wv::pkg
