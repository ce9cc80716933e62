// The upload time of an index file (PEP 700 `upload-time`, PEP 751 `upload-time`): an RFC 3339
// date-time, kept as text in one canonical UTC spelling so that the same instant always reads
// and writes the same bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wv::pkg {

/// `text` (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`, `T` or a space between date and
/// time, either case) as `YYYY-MM-DDTHH:MM:SS[.fraction]Z` in UTC: an offset is applied, the
/// fraction keeps at most 9 digits (nanoseconds, what TOML readers keep) without trailing zeros.
/// nullopt when `text` is not such a date-time (a date or time out of range, no offset).
std::optional<std::string> normalize_upload_time(std::string_view text);

}  // namespace wv::pkg
