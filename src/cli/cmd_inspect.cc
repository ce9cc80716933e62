// Commands that read the lockfile: `check` (fresh and complete), `tree`, `why PKG` and `export`.
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "base/log.h"
#include "base/str.h"
#include "cli/commands.h"
#include "cli/project.h"
#include "lock/toml_value.h"
#include "pkg/name.h"
#include "pkg/wheel_filename.h"
#include "targets/target.h"

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


struct Inputs {
  LoadedProject project;
  lock::Lockfile lockfile;
};

Result<Inputs> read_inputs(const GlobalOptions& options, FileSystem& file_system) {
  Inputs inputs;
  WV_ASSIGN_OR_RETURN(inputs.project, load_project(options, file_system));
  auto lockfile = read_project_lockfile(inputs.project, file_system);
  if (!lockfile) {
    if (lockfile.error().code == ErrorCode::kNotFound) {
      return make_error(ErrorCode::kNotFound,
                        str_cat(in_backticks(inputs.project.lockfile_path),
                                " does not exist: run `wvlock lock` first"));
    }
    return lockfile.error();
  }
  inputs.lockfile = std::move(*lockfile);
  return inputs;
}

int fail(const Error& error) {
  print_error(error);
  return error.code == ErrorCode::kInvalidLockfile ? kExitFailure : exit_code_for(error);
}

// The targets a command works on: the one named by --target, or all of them.
Result<std::vector<const lock::LockedTarget*>> chosen_targets(const lock::Lockfile& lockfile,
                                                              const std::optional<std::string>& name) {
  std::vector<const lock::LockedTarget*> targets;
  for (const lock::LockedTarget& target : lockfile.targets) {
    if (!name || target.name == targets::normalize_target_name(*name)) targets.push_back(&target);
  }
  if (name && targets.empty()) {
    std::vector<std::string> names;
    for (const lock::LockedTarget& target : lockfile.targets) names.push_back(target.name);
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("no target named ", in_backticks(*name), " in the lockfile (it has ",
                              join(names, ", "), ")"));
  }
  return targets;
}

// "name[extra]==version" -> (name, extra, version)
struct Edge {
  std::string name, extra, version;
};
Edge parse_edge(std::string_view text) {
  Edge edge;
  std::size_t equals = text.find("==");
  std::string_view head = text.substr(0, equals);
  edge.version = equals == std::string_view::npos ? "" : std::string(text.substr(equals + 2));
  std::size_t bracket = head.find('[');
  edge.name = std::string(head.substr(0, bracket));
  if (bracket != std::string_view::npos) {
    edge.extra = std::string(head.substr(bracket + 1, head.find(']') - bracket - 1));
  }
  return edge;
}

// The edges out of one node of a target's graph.
std::vector<std::string> children(const lock::Lockfile& lockfile, const std::string& target,
                                  const Edge& edge) {
  const lock::LockedPackage* package = lockfile.find_package_for_target(edge.name, target);
  if (!package) return {};
  const lock::TargetUse& use = package->targets.at(target);
  if (edge.extra.empty()) return use.dependencies;
  auto it = use.extra_dependencies.find(edge.extra);
  return it == use.extra_dependencies.end() ? std::vector<std::string>() : it->second;
}

// Every root of a target with the label it is shown under.
std::vector<std::pair<std::string, std::string>> labelled_roots(const lock::LockedTarget& target) {
  std::vector<std::pair<std::string, std::string>> roots;
  for (const std::string& root : target.roots) roots.emplace_back(root, "");
  for (const auto& [extra, edges] : target.extra_roots) {
    for (const std::string& root : edges) roots.emplace_back(root, "extra " + extra);
  }
  for (const auto& [group, edges] : target.group_roots) {
    for (const std::string& root : edges) roots.emplace_back(root, "group " + group);
  }
  return roots;
}

}  // namespace

int run_check(const GlobalOptions& options, Arguments& arguments) {
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  RealFileSystem file_system;
  auto inputs = read_inputs(options, file_system);
  if (!inputs) return fail(inputs.error());
  const lock::Lockfile& lockfile = inputs->lockfile;
  std::string expected = lock::input_hash(inputs->project.requirements, inputs->project.targets,
                                          inputs->project.inputs);
  if (lockfile.input_hash != expected) {
    return fail(make_error(ErrorCode::kInvalidLockfile,
                           str_cat(in_backticks(inputs->project.lockfile_path),
                                   " is stale: pyproject.toml changed since it was written; run "
                                   "`wvlock lock`")));
  }
  int problems = 0;
  for (const lock::TargetContext& context : inputs->project.targets) {
    if (!lockfile.find_target(context.name)) {
      std::fprintf(stderr, "error: target `%s` is not in the lockfile\n", context.name.c_str());
      ++problems;
      continue;
    }
    std::size_t count = 0;
    for (const lock::LockedPackage* package : lockfile.closure(context.name)) {
      ++count;
      const lock::TargetUse& use = package->targets.at(context.name);
      // A package the lock says to build is installable wherever its source is.
      bool installable = use.wheels.empty() && package->has_source();
      for (const std::string& wheel : use.wheels) {
        auto filename = pkg::parse_wheel_filename(wheel);
        if (filename && context.tags.is_compatible(filename->tags)) installable = true;
      }
      if (!installable) {
        std::fprintf(stderr, "error: target `%s`: %s %s keeps no wheel this target can install\n",
                     context.name.c_str(), package->name.c_str(), package->version.c_str());
        ++problems;
      }
    }
    std::printf("%s: %zu packages, every one hashed and installable\n", context.name.c_str(), count);
  }
  return problems == 0 ? kExitOk : kExitFailure;
}

int run_tree(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  if (!target_name) return fail(target_name.error());
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  RealFileSystem file_system;
  auto inputs = read_inputs(options, file_system);
  if (!inputs) return fail(inputs.error());
  auto targets = chosen_targets(inputs->lockfile, *target_name);
  if (!targets) return fail(targets.error());
  for (const lock::LockedTarget* target : *targets) {
    std::printf("%s\n", target->name.c_str());
    std::set<std::string> shown;
    std::function<void(const std::string&, const std::string&, int)> print =
        [&](const std::string& text, const std::string& label, int depth) {
          bool again = !shown.insert(text).second;
          std::printf("%s%s%s%s\n", std::string(std::size_t(depth) * 2, ' ').c_str(),
                      text.c_str(), label.empty() ? "" : (" (" + label + ")").c_str(),
                      again ? " (*)" : "");
          if (again) return;
          for (const std::string& child : children(inputs->lockfile, target->name, parse_edge(text))) {
            print(child, "", depth + 1);
          }
        };
    for (const auto& [root, label] : labelled_roots(*target)) print(root, label, 1);
  }
  return kExitOk;
}

int run_why(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  if (!target_name) return fail(target_name.error());
  auto wanted = arguments.take_positional();
  if (!wanted) {
    return fail(make_error(ErrorCode::kInvalidInput, "usage: wvlock why PACKAGE [--target NAME]"));
  }
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  std::string name = pkg::normalize_name(*wanted);
  RealFileSystem file_system;
  auto inputs = read_inputs(options, file_system);
  if (!inputs) return fail(inputs.error());
  auto targets = chosen_targets(inputs->lockfile, *target_name);
  if (!targets) return fail(targets.error());
  bool found_any = false;
  for (const lock::LockedTarget* target : *targets) {
    // Breadth-first from the roots: the shortest chain that reaches the package.
    std::map<std::string, std::string> parent;
    std::vector<std::string> queue;
    for (const auto& [root, label] : labelled_roots(*target)) {
      if (parent.emplace(root, label.empty() ? "the project" : "the project's " + label).second) {
        queue.push_back(root);
      }
    }
    std::optional<std::string> hit;
    for (std::size_t i = 0; i < queue.size() && !hit; ++i) {
      if (parse_edge(queue[i]).name == name) {
        hit = queue[i];
        break;
      }
      for (const std::string& child : children(inputs->lockfile, target->name, parse_edge(queue[i]))) {
        if (parent.emplace(child, queue[i]).second) queue.push_back(child);
      }
    }
    if (!hit) {
      std::printf("%s: %s is not needed\n", target->name.c_str(), name.c_str());
      continue;
    }
    found_any = true;
    std::vector<std::string> chain{*hit};
    while (parent.count(chain.back()) && parent.at(chain.back()).rfind("the project", 0) != 0) {
      chain.push_back(parent.at(chain.back()));
    }
    std::string line = parent.at(chain.back());
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) line += " -> " + *it;
    std::printf("%s: %s\n", target->name.c_str(), line.c_str());
  }
  return found_any ? kExitOk : kExitFailure;
}

int run_export(const GlobalOptions& options, Arguments& arguments) {
  auto target_name = arguments.extract_value("--target");
  auto format = arguments.extract_value("--format");
  auto output = arguments.extract_value("--output");
  if (!target_name) return fail(target_name.error());
  if (!format) return fail(format.error());
  if (!output) return fail(output.error());
  std::vector<std::string> groups;
  while (true) {
    auto group = arguments.extract_value("--group");
    if (!group) return fail(group.error());
    if (!*group) break;
    groups.push_back(pkg::normalize_name(**group));
  }
  if (auto done = arguments.expect_done(); !done) return fail(done.error());
  if (!*target_name) {
    return fail(make_error(ErrorCode::kInvalidInput,
                           "usage: wvlock export --target NAME [--format pylock|requirements] "
                           "[--group NAME] [--output FILE|-]"));
  }
  std::string kind = format->value_or("pylock");
  if (kind != "pylock" && kind != "requirements") {
    return fail(make_error(ErrorCode::kInvalidInput,
                           str_cat("unknown export format ", in_backticks(kind),
                                   ": expected pylock or requirements")));
  }
  RealFileSystem file_system;
  auto inputs = read_inputs(options, file_system);
  if (!inputs) return fail(inputs.error());
  const lock::Lockfile& lockfile = inputs->lockfile;
  auto targets = chosen_targets(lockfile, *target_name);
  if (!targets) return fail(targets.error());
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
    return fail(written.error());
  }
  log_info(str_cat("wrote ", destination, ": ", closure.size(), " packages for target ",
                   target.name));
  return kExitOk;
}

}  // namespace wv::cli
