// Core metadata, METADATA / PKG-INFO (src/pkg/metadata.h). Properties: the header fields
// written back one per line parse to the same fields, name, version, Requires-Dist,
// Requires-Python and extras; every Requires-Dist prints to a requirement that parses back and
// whose printed form is a fixed point from the second print on.
#include <string>

#include "fuzz/fuzz_target.h"
#include "src/pkg/metadata.h"
#include "src/pkg/requirement.h"

WV_FUZZ_TARGET(metadata) {
  if (size > wv::fuzz::kMaxTextInput) return;
  auto parsed = wv::pkg::parse_metadata(wv::fuzz::as_text(data, size));
  if (!parsed) return;
  const wv::pkg::CoreMetadata& metadata = parsed.value();
  std::string written;
  for (const wv::pkg::MetadataField& field : metadata.fields) {
    written += field.name + ": " + field.value + "\n";
  }
  auto again = wv::pkg::parse_metadata(written);
  WV_FUZZ_CHECK(again.has_value(), "fields written back do not parse:\n" + written);
  const wv::pkg::CoreMetadata& m2 = again.value();
  WV_FUZZ_CHECK(m2.fields.size() == metadata.fields.size(), "field count changed:\n" + written);
  for (std::size_t i = 0; i < m2.fields.size(); ++i) {
    WV_FUZZ_CHECK(m2.fields[i].name == metadata.fields[i].name &&
                      m2.fields[i].value == metadata.fields[i].value,
                  "field " + std::to_string(i) + " changed:\n" + written);
  }
  WV_FUZZ_CHECK(m2.name == metadata.name && m2.version == metadata.version, "name/version changed");
  WV_FUZZ_CHECK(m2.requires_python.to_string() == metadata.requires_python.to_string(), "Requires-Python changed");
  WV_FUZZ_CHECK(m2.provides_extra == metadata.provides_extra, "Provides-Extra changed");
  WV_FUZZ_CHECK(m2.requires_dist.size() == metadata.requires_dist.size(), "Requires-Dist count changed");
  for (const wv::pkg::RequiresDist& dist : metadata.requires_dist) {
    // As in requirement_fuzz.cc: markers print as packaging's str(Marker), which is a fixed
    // point only from the second print on, and not an inverse of parsing for values written
    // with a backslash escape or holding a quote of the other kind.
    if (dist.raw.find('\\') != std::string::npos ||
        (dist.raw.find('"') != std::string::npos && dist.raw.find('\'') != std::string::npos)) {
      continue;
    }
    const std::string printed = dist.requirement.to_string();
    auto requirement = wv::pkg::parse_requirement(printed);
    WV_FUZZ_CHECK(requirement.has_value(), "Requires-Dist `" + dist.raw + "` prints as `" + printed +
                                               "`, which does not parse");
    const std::string printed2 = requirement.value().to_string();
    auto reprinted = wv::pkg::parse_requirement(printed2);
    WV_FUZZ_CHECK(reprinted.has_value() && reprinted.value().to_string() == printed2,
                  "Requires-Dist `" + dist.raw + "` does not print to a fixed point");
  }
  for (const std::string& extra : metadata.provides_extra) {
    WV_FUZZ_CHECK(!metadata.values("Provides-Extra").empty(), "an extra without its field: " + extra);
  }
}
