#include "src/base/limits.h"

#include <array>
#include <atomic>

#include "src/base/str.h"

namespace wv {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kAnyBytes = std::uint64_t{1} << 50;  // a PiB: "no practical bound"

constexpr std::array<LimitSpec, 16> kSpecs{{
    {Limit::kPageBytes, "page-bytes", "bytes", 64 * kMiB, kAnyBytes,
     "one project page of an index (the largest PyPI pages are a few MiB)"},
    {Limit::kMetadataBytes, "metadata-bytes", "bytes", 16 * kMiB, kAnyBytes,
     "one METADATA, .metadata or in-wheel variant.json file"},
    {Limit::kVariantsJsonBytes, "variants-json-bytes", "bytes", 16 * kMiB, kAnyBytes,
     "one *-variants.json file"},
    {Limit::kCentralDirectoryBytes, "central-directory-bytes", "bytes", 64 * kMiB, kAnyBytes,
     "a wheel's zip directory, read through HTTP range requests"},
    {Limit::kDownloadBytes, "download-bytes", "bytes", 8 * kGiB, kAnyBytes,
     "one wheel downloaded whole"},
    {Limit::kUnpackedBytes, "unpacked-bytes", "bytes", 32 * kGiB, kAnyBytes,
     "everything one wheel expands to when installed (zip bombs)"},
    {Limit::kWheelEntries, "wheel-entries", "entries", 500000, 1000000000,
     "files in one wheel"},
    {Limit::kRecordBytes, "record-bytes", "bytes", 64 * kMiB, kAnyBytes,
     "RECORD, WHEEL or entry_points.txt of one wheel"},
    {Limit::kTomlBytes, "toml-bytes", "bytes", 64 * kMiB, kAnyBytes,
     "pyproject.toml or pylock.toml"},
    {Limit::kMarkerDepth, "marker-depth", "levels", 100, 2000,
     "parentheses nested in one PEP 508 marker"},
    {Limit::kJsonDepth, "json-depth", "levels", 64, 1000,
     "objects and arrays nested in index JSON"},
    {Limit::kTomlDepth, "toml-depth", "levels", 64, 1000,
     "tables, dotted keys, inline tables and arrays nested in pyproject.toml or pylock.toml"},
    {Limit::kSolverSteps, "solver-steps", "steps", 5000000, std::uint64_t{1} << 40,
     "resolution steps (versions tried, conflicts resolved) for one target"},
    // The bound of every whole-file read that names no narrower limit (FileSystem::read_file):
    // pyproject.toml and pylock.toml before toml-bytes applies, a local index page, an installed
    // METADATA or RECORD. Without it, a symlink to a huge file is read until memory runs out.
    {Limit::kInputFileBytes, "input-file-bytes", "bytes", 64 * kMiB, kAnyBytes,
     "any other file read whole (project and lock files, local pages, installed metadata)"},
    // A backend that hangs (a prompt, a network wait in an offline build) is killed with its
    // process group; a compiled extension can take long, hence minutes.
    {Limit::kBuildSeconds, "build-seconds", "seconds", 900, 7 * 24 * 3600,
     "one PEP 517 hook call of a build backend (metadata, wheel or editable build)"},
    {Limit::kSdistBytes, "sdist-bytes", "bytes", 4 * kGiB, kAnyBytes,
     "everything one source distribution expands to when it is unpacked"},
}};

// Atomic so that tests (and worker threads) may read while a value is set; set once in practice.
struct LimitTable {
  std::array<std::atomic<std::uint64_t>, kSpecs.size()> values;
  LimitTable() {
    for (std::size_t i = 0; i < kSpecs.size(); ++i) values[i].store(kSpecs[i].default_value);
  }
};

std::array<std::atomic<std::uint64_t>, kSpecs.size()>& values() {
  static LimitTable table;
  return table.values;
}

std::size_t index_of(Limit limit) { return static_cast<std::size_t>(limit); }

}  // namespace

std::string limit_raise_hint(Limit limit) {
  return str_cat("raise it with `--limit ", limit_spec(limit).name, "=N` or ",
                 limit_environment_variable(limit), "=N");
}

std::span<const LimitSpec> limit_specs() { return kSpecs; }

const LimitSpec& limit_spec(Limit limit) { return kSpecs[index_of(limit)]; }

std::optional<Limit> find_limit(std::string_view name) {
  for (const LimitSpec& spec : kSpecs) {
    if (spec.name == name) return spec.id;
  }
  return std::nullopt;
}

std::string limit_environment_variable(Limit limit) {
  std::string variable = "WVLOCK_LIMIT_";
  for (char c : limit_spec(limit).name) {
    variable.push_back(c == '-' ? '_' : static_cast<char>(c - 'a' + 'A'));
  }
  return variable;
}

std::uint64_t limit_value(Limit limit) {
  return values()[index_of(limit)].load(std::memory_order_relaxed);
}

void set_limit_value(Limit limit, std::uint64_t value) {
  values()[index_of(limit)].store(value, std::memory_order_relaxed);
}

void reset_limit_values() {
  for (const LimitSpec& spec : kSpecs) set_limit_value(spec.id, spec.default_value);
}

Result<std::uint64_t> parse_limit_value(Limit limit, std::string_view text,
                                        std::string_view where) {
  const LimitSpec& spec = limit_spec(limit);
  std::string_view digits = trim(text);
  std::uint64_t scale = 1;
  if (spec.unit == "bytes") {
    static constexpr std::pair<std::string_view, int> kSuffixes[] = {
        {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40},
        {"K", 10},   {"M", 20},   {"G", 30},   {"T", 40}};
    for (const auto& [suffix, shift] : kSuffixes) {
      if (digits.ends_with(suffix)) {
        digits.remove_suffix(suffix.size());
        scale = std::uint64_t{1} << shift;
        break;
      }
    }
  }
  std::optional<std::uint64_t> number = parse_uint64(digits);
  const bool in_range = number && *number >= 1 && *number <= spec.maximum / scale;
  if (!in_range) {
    return make_error(
        ErrorCode::kInvalidInput,
        str_cat(where, ": ", in_backticks(text), " is not a valid ", spec.name,
                " limit: expected a whole number of ", spec.unit, " from 1 to ", spec.maximum,
                spec.unit == "bytes" ? " (a KiB, MiB, GiB or TiB suffix may follow)" : ""));
  }
  return *number * scale;
}

Result<void> apply_limit_setting(std::string_view setting) {
  const std::size_t equals = setting.find('=');
  const std::string_view name = trim(setting.substr(0, equals));
  std::optional<Limit> limit = find_limit(name);
  if (equals == std::string_view::npos || !limit) {
    std::vector<std::string_view> names;
    for (const LimitSpec& spec : kSpecs) names.push_back(spec.name);
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("--limit ", in_backticks(setting),
                              ": expected NAME=VALUE where NAME is one of ", join(names, ", ")));
  }
  WV_ASSIGN_OR_RETURN(std::uint64_t value,
                      parse_limit_value(*limit, setting.substr(equals + 1),
                                        str_cat("--limit ", limit_spec(*limit).name)));
  set_limit_value(*limit, value);
  return {};
}

Result<void> apply_limit_environment(const std::function<const char*(const char*)>& getenv) {
  for (const LimitSpec& spec : kSpecs) {
    const std::string variable = limit_environment_variable(spec.id);
    const char* text = getenv(variable.c_str());
    if (text == nullptr || *text == '\0') continue;
    WV_ASSIGN_OR_RETURN(std::uint64_t value, parse_limit_value(spec.id, text, variable));
    set_limit_value(spec.id, value);
  }
  return {};
}

Error limit_error(Limit limit, std::string_view what, std::optional<std::uint64_t> actual,
                  std::uint64_t value) {
  const LimitSpec& spec = limit_spec(limit);
  std::string message =
      actual ? str_cat(what, " is ", *actual, " ", spec.unit, ", over the ", spec.name,
                       " limit of ", value, " ", spec.unit)
             : str_cat(what, " is over the ", spec.name, " limit of ", value, " ", spec.unit);
  Error error = make_error(ErrorCode::kLimit, std::move(message));
  error.notes.push_back(limit_raise_hint(limit));
  return error;
}

Error limit_error(Limit limit, std::string_view what, std::optional<std::uint64_t> actual) {
  return limit_error(limit, what, actual, limit_value(limit));
}

}  // namespace wv
