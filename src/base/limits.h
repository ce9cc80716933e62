// Resource limits a user may raise: every bound that stops hostile or broken input from making
// wvlock allocate, recurse or compute without end (zip bombs, endless pages, deep nesting, a
// resolution that never finishes). Each has a name, a default, and the two ways to change it:
// `--limit NAME=VALUE` on the command line and the environment variable WVLOCK_LIMIT_NAME.
// An exceeded limit is an ErrorCode::kLimit whose message says which limit and how to raise it.
//
// The values live in one process-wide table, set once by the CLI before any work starts; the
// layers read the value where the bound applies (docs/hardening.md lists them all).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv {

enum class Limit : int {
  kPageBytes,              ///< one project page of an index, HTML or JSON
  kMetadataBytes,          ///< one METADATA, `.metadata` or in-wheel variant.json
  kVariantsJsonBytes,      ///< one `*-variants.json`
  kCentralDirectoryBytes,  ///< a zip's central directory read through range requests
  kDownloadBytes,          ///< one wheel downloaded whole
  kUnpackedBytes,          ///< everything one wheel expands to
  kWheelEntries,           ///< files in one wheel
  kRecordBytes,            ///< RECORD, WHEEL and entry_points.txt of one wheel
  kTomlBytes,              ///< pyproject.toml or pylock.toml
  kMarkerDepth,            ///< parentheses nested in one PEP 508 marker
  kJsonDepth,              ///< objects and arrays nested in index JSON
  kTomlDepth,              ///< tables, dotted keys, inline tables and arrays nested in TOML
  kSolverSteps,            ///< resolution steps for one target
  kInputFileBytes,         ///< any other file read whole (FileSystem::read_file's default)
  kBuildSeconds,           ///< one PEP 517 hook call (a build backend's run)
  kSdistBytes,             ///< everything one sdist expands to
};

struct LimitSpec {
  Limit id;
  std::string_view name;  ///< as written after --limit, e.g. "page-bytes"
  std::string_view unit;  ///< "bytes", "levels", "entries", "steps"
  std::uint64_t default_value;
  /// Values above this are refused: a deeper recursion bound than this would let input
  /// overflow the stack, which is what the limit exists to prevent.
  std::uint64_t maximum;
  std::string_view description;
};

/// Every limit, in the order of the enum.
std::span<const LimitSpec> limit_specs();
const LimitSpec& limit_spec(Limit limit);
/// The spec named `name` ("page-bytes"); nullopt for an unknown name.
std::optional<Limit> find_limit(std::string_view name);
/// "WVLOCK_LIMIT_PAGE_BYTES".
std::string limit_environment_variable(Limit limit);

/// The process-wide value of `limit` (its default until set).
std::uint64_t limit_value(Limit limit);
/// Sets the process-wide value. Call before the work the limit bounds starts.
void set_limit_value(Limit limit, std::uint64_t value);
/// Restores every default (tests).
void reset_limit_values();

/// Parses a limit value: digits with an optional KiB/MiB/GiB/TiB (or K/M/G/T) suffix for byte
/// limits. Errors name `where` (the option or variable) and the accepted range.
Result<std::uint64_t> parse_limit_value(Limit limit, std::string_view text, std::string_view where);
/// Applies one `NAME=VALUE` setting (the argument of --limit).
Result<void> apply_limit_setting(std::string_view setting);
/// Applies every WVLOCK_LIMIT_* variable that `getenv` finds. An unknown WVLOCK_LIMIT_ name
/// cannot be detected this way; the CLI's help lists the names.
Result<void> apply_limit_environment(const std::function<const char*(const char*)>& getenv);

/// "raise it with `--limit NAME=N` or WVLOCK_LIMIT_NAME=N", for an error's notes.
std::string limit_raise_hint(Limit limit);

/// kLimit error: "WHAT is ACTUAL UNIT, over the NAME limit of VALUE UNIT", with a note saying how
/// to raise it. `actual` may be nullopt when only "more than the limit" is known.
Error limit_error(Limit limit, std::string_view what, std::optional<std::uint64_t> actual,
                  std::uint64_t value);
/// As above with the process-wide value.
Error limit_error(Limit limit, std::string_view what, std::optional<std::uint64_t> actual);

}  // namespace wv
