// `wvlock export`: one target as a plain PEP 751 lock or a hashed requirements file, with the
// extras and dependency groups it locked (or the ones named); `--json` summarises it on stdout.

#include <algorithm>
#include <filesystem>

#include "src/base/credentials.h"
#include "src/base/json_writer.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/cli/commands.h"
#include "src/cli/lock_view.h"
#include "src/cli/workspace.h"
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
// direct reference (`name @ git+URL@commit`, a file's path or `name @ URL`), so pip cannot take
// another project of that name from an index. A wheel the lock names by path (a path source,
// no index) is that path.
std::string requirement_line(const lock::LockedPackage& package, bool from_source) {
  if (from_source && package.vcs) return str_cat(package.name, " @ ", git_reference(*package.vcs));
  if (from_source && package.directory) return package.directory->path;
  if (from_source && package.archive) {
    const lock::LockedFile& file = package.archive->file;
    if (file.url.empty()) return file.path;
    return str_cat(package.name, " @ ", file.url);
  }
  if (!from_source && package.index.empty() && package.wheels.size() == 1 &&
      !package.wheels.front().path.empty()) {
    return package.wheels.front().path;
  }
  return str_cat(package.name, "==", package.version);
}

// The hashes pip checks for a line: the target's wheels, else the sdist or archive it builds.
std::vector<std::string> line_hashes(const lock::LockedPackage& package) {
  std::vector<std::string> hashes;
  for (const lock::LockedFile& wheel : package.wheels) hashes.push_back(wheel.sha256);
  if (!hashes.empty()) return hashes;
  if (package.archive) hashes.push_back(package.archive->file.sha256);
  else if (package.sdist) hashes.push_back(package.sdist->sha256);
  return hashes;
}

// pip cannot hash a folder or a git checkout, and refuses them in hash mode: they are
// installed after the hashed file, without dependencies (their dependencies are in it).
bool needs_follow_up(const lock::LockedPackage& package) {
  return package.wheels.empty() && (package.directory || package.vcs);
}

// A location as pip takes it in a requirements file: URLs as they are; a folder of the lock
// (relative to the project) as an absolute file:// URL for an index (pip needs a URL there)
// and as a path for find-links (pip reads it relative to the file's folder, or the current one).
std::string pip_location(const std::string& location, const std::string& project_dir, bool index) {
  if (is_url(location)) return strip_credentials(location);
  const std::string absolute = absolute_path(path_join(project_dir, location));
  return index ? "file://" + absolute : absolute;
}

// The indexes the exported packages came from: `--index-url` for the project's default index
// (else the first one), `--extra-index-url` for the others, `--find-links` for folders, and
// `--no-index` when every file comes from a folder. An index no package came from is left out:
// pip would ask it for every name.
std::string index_lines(const lock::Lockfile& lockfile, const std::string& target,
                        const lock::Lockfile& exported, const targets::ProjectConfig& config) {
  // The export keeps each package's index URL; its name (find-links folders have none) is the
  // lock's.
  auto index_name = [&](const lock::LockedPackage& package) {
    const lock::LockedPackage* locked = lockfile.find_package_for_target(package.name, target);
    return locked ? locked->index_name : std::string();
  };
  std::vector<std::string> indexes, folders;
  auto add = [](std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (const targets::IndexConfig& index : config.indexes) {
    if (!index.is_default) continue;
    for (const lock::LockedPackage& package : exported.packages) {
      if (index_name(package) == index.name) {
        add(indexes, pip_location(package.index, config.project_dir, true));
        break;
      }
    }
  }
  for (const lock::LockedPackage& package : exported.packages) {
    if (package.index.empty()) continue;
    if (index_name(package).empty()) {
      add(folders, pip_location(package.index, config.project_dir, false));
    } else {
      add(indexes, pip_location(package.index, config.project_dir, true));
    }
  }
  std::string text;
  if (indexes.empty()) text += "--no-index\n";
  for (std::size_t i = 0; i < indexes.size(); ++i) {
    text += str_cat(i == 0 ? "--index-url " : "--extra-index-url ", indexes[i], "\n");
  }
  for (const std::string& folder : folders) text += str_cat("--find-links ", folder, "\n");
  return text;
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

// A follow-up line's argument: `-e PATH` for an editable folder, else the reference.
std::string follow_up_line(const lock::LockedPackage& package) {
  const bool editable = package.directory && package.directory->editable;
  return str_cat(editable ? "-e " : "", requirement_line(package, true));
}

std::string requirements_text(const lock::Lockfile& lockfile, const lock::Lockfile& exported,
                              const std::string& target, std::string_view lockfile_name,
                              const targets::ProjectConfig& config) {
  std::string text = str_cat("# exported by wvlock for target ", target, " from ", lockfile_name,
                             "\n# install with: pip install --require-hashes -r FILE\n",
                             index_lines(lockfile, target, exported, config));
  std::vector<std::string> follow_up;
  // The project itself, as uv's export has it (`-e .`); the PEP 751 export leaves it out.
  if (const lock::LockedPackage* project = lockfile.project()) follow_up.push_back(follow_up_line(*project));
  for (const lock::LockedPackage& package : exported.packages) {
    if (needs_follow_up(package)) {
      follow_up.push_back(follow_up_line(package));
      continue;
    }
    text += requirement_line(package, package.wheels.empty());
    for (const std::string& hash : line_hashes(package)) text += " \\\n    --hash=sha256:" + hash;
    text += "\n";
  }
  if (!follow_up.empty()) {
    text += str_cat(
        "# pip cannot check a folder or a git checkout against a hash, and refuses them with\n"
        "# --require-hashes: install them next, from the project folder, without dependencies\n"
        "# (theirs are pinned above):\n#   pip install --no-deps ",
        join(follow_up, " "), "\n");
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
    json.begin_object().field("name", package.name.str());
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
Result<std::optional<std::vector<pkg::ExtraName>>> repeated(Arguments& arguments,
                                                            std::string_view name) {
  WV_ASSIGN_OR_RETURN(std::vector<pkg::ExtraName> values, extract_extra_names(arguments, name));
  if (values.empty()) return std::optional<std::vector<pkg::ExtraName>>();
  return std::optional<std::vector<pkg::ExtraName>>(std::move(values));
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
  const bool all_packages = arguments.extract_flag("--all-packages");
  auto packages = extract_names(arguments, "--package");
  if (!packages) return fail_reading_lock(packages.error());
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
  {
    std::vector<pkg::ExtraName> member_extras = extras->value_or(std::vector<pkg::ExtraName>());
    auto others = view_workspace_packages(options, inputs->lockfile, *packages, all_packages,
                                          &member_extras);
    if (!others) return fail_reading_lock(others.error());
    if (!others->empty()) {
      return fail_reading_lock(usage(str_cat("`--package ", others->front(),
                                             "` names no package of the workspace")));
    }
    if (*extras && member_extras.empty()) extras->emplace();  // they went to the members
  }
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
                         ? requirements_text(lockfile, *exported, target.name,
                                             path_filename(inputs->project.lockfile_path),
                                             inputs->project.config)
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
