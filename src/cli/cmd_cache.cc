// `wvlock cache dir|clean|prune|verify`: the unpacked-wheel cache's upkeep (docs/install.md,
// "The unpacked-wheel cache"), with uv's command names. prune, clean and verify hold the cache
// lock exclusively, so they wait for running syncs and never remove an entry one links from.
#include <cstdio>
#include <cstdlib>

#include "src/base/json_writer.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/project.h"
#include "src/install/unpacked_cache.h"

namespace wv::cli {
namespace {

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof units / sizeof units[0]) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

void print_sweep(const install::CacheSweep& sweep, std::string_view action, bool json,
                 const std::string& root) {
  if (json) {
    JsonWriter out;
    out.begin_object().field("version", 1).field("action", action).field("directory", root);
    out.field("checked", static_cast<std::uint64_t>(sweep.checked));
    out.key("removed").begin_array();
    for (const install::CacheSweep::Removed& removed : sweep.removed) {
      out.begin_object().key("wheel");
      out.text_or_null(removed.entry.wheel);
      out.key("sha256");
      out.text_or_null(removed.entry.sha256);
      out.field("folder", removed.entry.folder).field("bytes", removed.entry.bytes);
      out.field("reason", removed.reason).end();
    }
    out.end().field("bytes_freed", sweep.bytes_freed).end();
    std::string text = out.text();
    write_out(text);
    return;
  }
  for (const install::CacheSweep::Removed& removed : sweep.removed) {
    write_out(str_cat("removed ",
                      removed.entry.wheel.empty() ? removed.entry.folder : removed.entry.wheel,
                      " (", removed.reason, ")\n"));
  }
  write_out(str_cat(action, ": ", counted(sweep.checked, "entry", "entries"), " checked, ",
                    counted(sweep.removed.size(), "entry", "entries"), " removed, ",
                    human_bytes(sweep.bytes_freed), " freed\n"));
}

int fail(const Error& error) {
  print_error(error);
  return exit_code_for(error);
}

}  // namespace

int run_cache(const GlobalOptions& options, Arguments& arguments) {
  std::optional<std::string> action = arguments.take_positional();
  const bool json = arguments.extract_flag("--json");
  const std::string directory = cache_directory(options);
  if (!action) {
    print_error(make_error(ErrorCode::kInvalidInput,
                           "expected `wvlock cache dir|clean|prune|verify`")
                    .with_note("hint: `wvlock cache --help` describes each"));
    return kExitUsage;
  }
  if (*action == "dir") {
    if (auto done = arguments.expect_done(); !done) return fail(done.error());
    write_out(directory + "\n");
    return kExitOk;
  }
  std::int64_t max_age_days = 30;
  std::vector<pkg::PackageName> names;
  if (*action == "prune") {
    auto age = arguments.extract_value("--older-than");
    if (!age) return fail(age.error());
    if (*age) {
      std::optional<std::uint64_t> days = parse_uint64(**age);
      if (!days || *days > 100000) {
        return fail(make_error(ErrorCode::kInvalidInput,
                               str_cat("`--older-than ", **age, "`: expected a number of days")));
      }
      max_age_days = static_cast<std::int64_t>(*days);
    }
  } else if (*action == "clean") {
    while (std::optional<std::string> text = arguments.take_positional()) {
      Result<pkg::PackageName> name = pkg::parse_package_name(*text);
      if (!name) return fail(std::move(name).error().with_context("`wvlock cache clean`"));
      names.push_back(std::move(*name));
    }
  } else if (*action != "verify") {
    return fail(make_error(ErrorCode::kInvalidInput,
                           str_cat("unknown cache action ", in_backticks(*action),
                                   ": expected dir, clean, prune or verify")));
  }
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  RealFileSystem file_system;
  install::UnpackedCache cache(file_system, directory);
  auto lock = install::CacheLock::acquire(cache.root(), true);
  if (!lock) return fail(lock.error());
  Result<install::CacheSweep> sweep = *action == "verify" ? cache.verify()
                                      : *action == "prune" ? cache.prune(max_age_days)
                                                           : cache.clean(names);
  if (!sweep) return fail(sweep.error());
  // `clean` with no name empties the whole cache: downloads and index pages too.
  if (*action == "clean" && names.empty()) {
    Result<std::vector<DirectoryEntry>> entries = file_system.list_directory(directory);
    for (const DirectoryEntry& entry : entries ? *entries : std::vector<DirectoryEntry>()) {
      if (entry.name == install::kUnpackedFolder) continue;
      if (Result<void> removed = file_system.remove_all(path_join(directory, entry.name)); !removed) {
        return fail(removed.error());
      }
    }
  }
  print_sweep(*sweep, *action, json, cache.root());
  // verify: damage found (and removed) is worth an exit status a script can see.
  return *action == "verify" && !sweep->removed.empty() ? kExitFailure : kExitOk;
}

}  // namespace wv::cli
