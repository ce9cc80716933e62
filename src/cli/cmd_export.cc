// `wvlock export`: one target as a plain PEP 751 lock or a hashed requirements file, with the
// extras and dependency groups it locked (or the ones named); `--json` summarises it on stdout.

#include "base/json_writer.h"
#include "base/log.h"
#include "base/output.h"
#include "base/str.h"
#include "cli/commands.h"
#include "cli/lock_view.h"
#include "lock/target_export.h"

namespace wv::cli {
namespace {

constexpr const char* kUsage =
    "usage: wvlock export --target NAME [--format pylock|requirements] [--extra NAME ...] "
    "[--no-extras] [--group NAME ...] [--no-groups] [--output FILE|-] [--json]";

// What a git source builds: `git+URL@commit`, and its subdirectory.
std::string git_reference(const lock::LockedVcs& vcs) {
  return str_cat("git+", vcs.url.empty() ? vcs.path : vcs.url, "@", vcs.commit_id,
                 vcs.subdirectory.empty() ? "" : "#subdirectory=" + vcs.subdirectory);
}

// One requirements.txt line: `name==version`, or for a package built from a direct source a
// direct reference (`name @ file:///…`, `name @ git+URL@commit`), so pip cannot take another
// project of that name from an index.
std::string requirement_line(const lock::LockedPackage& package, bool from_source) {
  if (from_source && package.vcs) return str_cat(package.name, " @ ", git_reference(*package.vcs));
  // Local folders and files as pip's plain path lines (relative to the project).
  if (from_source && package.directory) return package.directory->path;
  if (from_source && package.archive) {
    const lock::LockedFile& file = package.archive->file;
    if (file.url.empty()) return file.path;
    return str_cat(package.name, " @ ", file.url, "#sha256=", file.sha256);
  }
  return package.name + "==" + package.version;
}

// What a package built from source is built from, for the JSON summary.
std::string built_source(const lock::LockedPackage& package) {
  if (package.vcs) return git_reference(*package.vcs);
  if (package.directory) return package.directory->path;
  if (package.archive) {
    const lock::LockedFile& file = package.archive->file;
    return file.url.empty() ? file.path : file.url;
  }
  return package.sdist ? package.sdist->name : "";
}

std::string requirements_text(const lock::Lockfile& exported, const std::string& target,
                              std::string_view lockfile_name) {
  std::string text =
      str_cat("# exported by wvlock for target ", target, " from ", lockfile_name, "\n");
  for (const lock::LockedPackage& package : exported.packages) {
    text += requirement_line(package, package.wheels.empty());
    for (const lock::LockedFile& wheel : package.wheels) {
      text += " \\\n    --hash=sha256:" + wheel.sha256;
    }
    text += "\n";
  }
  return text;
}

// The JSON summary (docs/json.md, `wvlock export --json`). `wheels` of an exported package are
// sorted by name; the one the target chose first is its first kept wheel in the lock.
std::string summary_json(const lock::Lockfile& lockfile, const lock::Lockfile& exported,
                         const std::string& target, const std::string& format,
                         const std::string& output, const lock::Selection& selection) {
  JsonWriter json;
  json.begin_object().field("version", 1).field("target", target).field("format", format);
  json.field("output", output);
  json.key("extras").strings(selection.extras);
  json.key("groups").strings(selection.groups);
  json.key("packages").begin_array();
  for (const lock::LockedPackage& package : exported.packages) {
    json.begin_object().field("name", package.name);
    json.key("version").text_or_null(package.version);
    if (package.wheels.empty()) {
      json.field("source", built_source(package));
    } else {
      const lock::LockedPackage* locked = lockfile.find_package_for_target(package.name, target);
      json.field("wheel", locked->targets.at(target).wheels.front());
    }
    json.end();
  }
  json.end().end();
  return json.text();
}

// `--NAME VALUE` as often as given, normalised; nullopt when not given at all (each one given
// has a value, so none given is the only empty list).
Result<std::optional<std::vector<std::string>>> repeated(Arguments& arguments,
                                                         std::string_view name) {
  WV_ASSIGN_OR_RETURN(std::vector<std::string> values, extract_names(arguments, name));
  if (values.empty()) return std::optional<std::vector<std::string>>();
  return std::optional<std::vector<std::string>>(std::move(values));
}

Error usage(std::string message) {
  return make_error(ErrorCode::kInvalidInput, str_cat(message, "\n", kUsage));
}

}  // namespace

int run_export(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  auto format = arguments.extract_value("--format");
  auto output = arguments.extract_value("--output");
  auto extras = repeated(arguments, "--extra");
  auto groups = repeated(arguments, "--group");
  const bool no_extras = arguments.extract_flag("--no-extras");
  const bool no_groups = arguments.extract_flag("--no-groups");
  const bool json = arguments.extract_flag("--json");
  if (!target_name) return fail_reading_lock(target_name.error());
  if (!format) return fail_reading_lock(format.error());
  if (!output) return fail_reading_lock(output.error());
  if (!extras) return fail_reading_lock(extras.error());
  if (!groups) return fail_reading_lock(groups.error());
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  if (!*target_name) return fail_reading_lock(usage("export needs --target NAME"));
  std::string kind = format->value_or("pylock");
  if (kind != "pylock" && kind != "requirements") {
    return fail_reading_lock(usage(str_cat("unknown export format ", in_backticks(kind),
                                           ": expected pylock or requirements")));
  }
  if ((no_extras && *extras) || (no_groups && *groups)) {
    return fail_reading_lock(usage("--no-extras and --extra (or --no-groups and --group) "
                                   "contradict each other: give one"));
  }
  if (no_extras) extras->emplace();
  if (no_groups) groups->emplace();
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  const lock::Lockfile& lockfile = inputs->lockfile;
  auto targets = chosen_targets(lockfile, *target_name);
  if (!targets) return fail_reading_lock(targets.error());
  const lock::LockedTarget& target = *targets->front();
  auto selection = lock::export_selection(target, *extras, *groups);
  if (!selection) return fail_reading_lock(selection.error());
  std::string destination = output->value_or(
      kind == "pylock" ? path_join(options.project_dir, "pylock." + target.name + ".toml") : "-");
  if (json && destination == "-") {
    return fail_reading_lock(usage("--json prints the summary on stdout: write the export to a "
                                   "file with --output FILE"));
  }
  auto exported = lock::export_target(lockfile, target, *selection);
  if (!exported) return fail_reading_lock(exported.error());

  std::string text = kind == "requirements"
                         ? requirements_text(*exported, target.name,
                                             path_filename(inputs->project.lockfile_path))
                         : lock::write_lockfile(*exported);
  if (destination == "-") {
    write_out(text);
    return kExitOk;
  }
  if (auto written = file_system.write_file_atomic(destination, text); !written) {
    return fail_reading_lock(written.error());
  }
  log_info(str_cat("wrote ", destination, ": ", exported->packages.size(), " packages for target ",
                   target.name));
  if (json) {
    std::string summary =
        summary_json(lockfile, *exported, target.name, kind, destination, *selection);
    write_out(summary);
  }
  return kExitOk;
}

}  // namespace wv::cli
