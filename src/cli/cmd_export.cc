// `wvlock export`: one target as a plain PEP 751 lock or a hashed requirements file.
#include <cstdio>

#include "base/log.h"
#include "base/str.h"
#include "cli/commands.h"
#include "cli/lock_view.h"
#include "lock/toml_value.h"
#include "pkg/name.h"

namespace wv::cli {
namespace {

// One requirements.txt line: `name==version`, or for a package built from a direct source a
// direct reference (`name @ file:///…`, `name @ git+URL@commit`), so pip cannot take another
// project of that name from an index.
std::string requirement_line(const lock::LockedPackage& package, bool from_source) {
  if (from_source && package.vcs) {
    return str_cat(package.name, " @ git+", package.vcs->url, "@", package.vcs->commit_id,
                   package.vcs->subdirectory.empty() ? "" : "#subdirectory=" + package.vcs->subdirectory);
  }
  // Local folders and files as pip's plain path lines (relative to the project).
  if (from_source && package.directory) return package.directory->path;
  if (from_source && package.archive) {
    const lock::LockedFile& file = package.archive->file;
    if (file.url.empty()) return file.path;
    return str_cat(package.name, " @ ", file.url, "#sha256=", file.sha256);
  }
  return package.name + "==" + package.version;
}

}  // namespace

int run_export(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  auto format = arguments.extract_value("--format");
  auto output = arguments.extract_value("--output");
  if (!target_name) return fail_reading_lock(target_name.error());
  if (!format) return fail_reading_lock(format.error());
  if (!output) return fail_reading_lock(output.error());
  std::vector<std::string> groups;
  while (true) {
    auto group = arguments.extract_value("--group");
    if (!group) return fail_reading_lock(group.error());
    if (!*group) break;
    groups.push_back(pkg::normalize_name(**group));
  }
  if (auto done = arguments.expect_done(); !done) return fail_reading_lock(done.error());
  if (!*target_name) {
    return fail_reading_lock(make_error(ErrorCode::kInvalidInput,
                           "usage: wvlock export --target NAME [--format pylock|requirements] "
                           "[--group NAME] [--output FILE|-]"));
  }
  std::string kind = format->value_or("pylock");
  if (kind != "pylock" && kind != "requirements") {
    return fail_reading_lock(make_error(ErrorCode::kInvalidInput,
                           str_cat("unknown export format ", in_backticks(kind),
                                   ": expected pylock or requirements")));
  }
  RealFileSystem file_system;
  auto inputs = read_lock_inputs(options, file_system);
  if (!inputs) return fail_reading_lock(inputs.error());
  const lock::Lockfile& lockfile = inputs->lockfile;
  auto targets = chosen_targets(lockfile, *target_name);
  if (!targets) return fail_reading_lock(targets.error());
  const lock::LockedTarget& target = *targets->front();
  std::vector<std::string> extras;
  for (const auto& [extra, edges] : target.extra_roots) extras.push_back(extra);
  std::vector<const lock::LockedPackage*> closure = lockfile.closure(target.name, extras, groups);

  std::string text;
  if (kind == "requirements") {
    text = str_cat("# exported by wvlock for target ", target.name, " from ",
                   path_filename(inputs->project.lockfile_path), "\n");
    for (const lock::LockedPackage* package : closure) {
      const std::vector<std::string>& wheels = package->targets.at(target.name).wheels;
      text += requirement_line(*package, wheels.empty());
      for (const std::string& wheel : wheels) {
        text += " \\\n    --hash=sha256:" + package->find_wheel(wheel)->sha256;
      }
      text += "\n";
    }
  } else {
    // A plain PEP 751 lock for this one target: its packages with the wheels it keeps.
    lock::Lockfile single;
    single.requires_python = lockfile.requires_python;
    single.environments = {target.marker};
    for (const lock::LockedPackage* package : closure) {
      lock::LockedPackage copy;
      copy.name = package->name;
      copy.version = package->version;
      copy.requires_python = package->requires_python;
      copy.index = package->index;
      const std::vector<std::string>& wheels = package->targets.at(target.name).wheels;
      for (const std::string& wheel : wheels) copy.wheels.push_back(*package->find_wheel(wheel));
      if (wheels.empty()) {  // built from its source: the source goes along
        copy.sdist = package->sdist;
        copy.directory = package->directory;
        copy.vcs = package->vcs;
        copy.archive = package->archive;
      }
      copy.variants = package->variants;
      single.packages.push_back(std::move(copy));
    }
    text = lock::write_lockfile(single);
    std::size_t tool = text.find("\n[tool.wvlock]");
    if (tool != std::string::npos) text.resize(tool + 1);  // no wvlock tables in a plain export
  }
  std::string destination = output->value_or(
      kind == "pylock" ? path_join(options.project_dir, "pylock." + target.name + ".toml") : "-");
  if (destination == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  }
  if (auto written = file_system.write_file_atomic(destination, text); !written) {
    return fail_reading_lock(written.error());
  }
  log_info(str_cat("wrote ", destination, ": ", closure.size(), " packages for target ",
                   target.name));
  return kExitOk;
}

}  // namespace wv::cli
