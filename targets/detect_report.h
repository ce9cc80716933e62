// The report of `wvlock detect` (DESIGN.md §4): every fact of a host profile with its source,
// then each built-in provider's ordered output (reference/variants.md §5), then the detection
// notes — as text for people or as JSON for tools (base/json_writer.h); output is deterministic. Cheap to include.
#pragma once

#include <string>

#include "src/base/json_writer.h"
#include "targets/host_profile.h"

namespace wv::targets {

/// Renders `host` as text (`json` false) or as one JSON object (`json` true) ending in "\n":
///   {"version": 1, "facts": {"os": {"value": "linux", "source": "uname"}, ...},
///    "providers": {"nvidia": [{"feature": "...", "values": [...], "multi_value": true}], ...},
///    "properties": {...}, "notes": [...]}
/// Absent facts have `"value": null`.
std::string render_detect_report(const HostProfile& host, bool json);

/// The `"facts"` object of that shape alone, for documents that report the host they used.
void write_facts_json(JsonWriter& json, const HostProfile& host);

}  // namespace wv::targets
