// wvlock: argv -> global options -> one subcommand -> exit code. stdout is data, stderr is
// diagnostics.
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "src/base/limits.h"
#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "src/cli/help.h"
#include "src/cli/workspace.h"
#include "src/base/file_system.h"
#include "src/pkg/name.h"

namespace wv::cli {

namespace {

constexpr const char* kVersion = "0.1.0";

void print_unknown_command(std::string_view name) {
  print_diagnostic(
      str_cat("error: unknown command `", name, "`\n\nhint: `wvlock help` lists the commands"));
}

// `text` left-aligned in `width` columns, for the help's tables.
std::string padded(std::string_view text, std::size_t width) {
  std::string out(text);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

int run_version(const GlobalOptions&, Arguments& arguments) {
  if (auto done = arguments.expect_done(); !done) {
    print_error(done.error());
    return kExitUsage;
  }
  write_out(str_cat("wvlock ", kVersion, "\n"));
  return kExitOk;
}

int run_help(const GlobalOptions&, Arguments&);

// A command that reads the project, started in a workspace member's folder, works at the
// workspace root (one lock, one `.venv`), on that member (uv's discovery).
wv::Result<void> locate_workspace_root(GlobalOptions& options, const char* command) {
  static constexpr const char* kWorkspaceCommands[] = {"lock",  "sync",   "run",    "targets",
                                                       "check", "tree",   "export", "why",
                                                       "add",   "remove"};
  if (std::none_of(std::begin(kWorkspaceCommands), std::end(kWorkspaceCommands),
                   [&](const char* name) { return std::strcmp(name, command) == 0; })) {
    return {};
  }
  wv::RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(auto location, find_workspace(file_system, options.project_dir));
  if (location && !location->member_dir.empty()) {
    options.project_dir = location->root_dir;
    options.workspace_member_dir = location->member_dir;
  }
  return {};
}

// One row per subcommand; the functions live in cmd_<name>.cc.
const Command kCommands[] = {
    {"lock", "resolve every declared target and write pylock.toml", run_lock},
    {"sync", "detect this host, pick its target and variant wheels, install into .venv",
     run_sync},
    {"add", "add requirements to pyproject.toml, then lock and sync", run_add},
    {"remove", "remove packages from pyproject.toml, then lock and sync", run_remove},
    {"run", "lock and sync if needed, then run a command in the environment", run_run},
    {"targets", "show which target this host would pick, and why not the others", run_targets},
    {"detect", "print this machine's host profile and each provider's output (--json)",
     run_detect},
    {"fetch", "download and verify every file the targets install (--into DIR: a wheelhouse)",
     run_fetch},
    {"check", "verify pylock.toml is fresh and every target's closure complete", run_check},
    {"tree", "print each target's dependency tree (--target NAME)", run_tree},
    {"why", "show why a package is in a target (why PKG [--target NAME])", run_why},
    {"export", "write one target as pylock.NAME.toml or requirements (--format)", run_export},
    {"cache", "the wheel cache: dir, clean [NAME...], prune, verify", run_cache},
    {"init", "write a new project's pyproject.toml with a target for this machine", run_init},
    {"help", "show this help", run_help},
    {"version", "print the version", run_version},
};
constexpr std::size_t kCommandCount = sizeof kCommands / sizeof kCommands[0];

// `wvlock help CMD` prints CMD's help; `wvlock help` the overview.
int print_command_help(const std::string& name) {
  std::optional<std::string> help = command_help(name);
  if (!help) {
    print_unknown_command(name);
    return kExitUsage;
  }
  write_out(*help);
  return kExitOk;
}

int run_help(const GlobalOptions&, Arguments& arguments) {
  if (std::optional<std::string> name = arguments.take_positional()) {
    if (auto done = arguments.expect_done(); !done) {
      print_error(done.error());
      return kExitUsage;
    }
    return print_command_help(*name);
  }
  if (auto done = arguments.expect_done(); !done) {
    print_error(done.error());
    return kExitUsage;
  }
  std::string text = str_cat(
      "wvlock ", kVersion, ": one lockfile for every machine, the right build on each\n\n"
      "usage: wvlock [global options] <command> [options]\n\ncommands:\n");
  for (std::size_t i = 0; i < kCommandCount; ++i) {
    text += str_cat("  ", padded(kCommands[i].name, 9), " ", kCommands[i].summary, "\n");
  }
  text += str_cat(
      "\nglobal options:\n"
      "  --project DIR     the folder of pyproject.toml (default: .)\n"
      "  --offline         use only local folders and the cache\n"
      "  --cache-dir DIR   the cache: downloads, pages, unpacked wheels\n"
      "                    (default: $XDG_CACHE_HOME/wvlock; also WVLOCK_CACHE_DIR)\n"
      "  --refresh         revalidate every cached index page, even one still fresh\n"
      "  --refresh-package NAME  the same for one project (repeatable)\n"
      "  --keyring-provider subprocess|disabled\n"
      "                    ask the `keyring` command for index passwords (also\n"
      "                    WVLOCK_KEYRING_PROVIDER, or `keyring-provider` in [tool.wvlock])\n"
      "  -v, -vv / -q      more / less output on stderr\n"
      "  --color WHEN      auto, always or never (NO_COLOR is honoured)\n"
      "  --limit NAME=N    raise or lower a resource limit (also WVLOCK_LIMIT_NAME=N):\n");
  for (const wv::LimitSpec& spec : wv::limit_specs()) {
    text += str_cat("      ", padded(spec.name, 24), " ", spec.description, " (default ",
                    spec.default_value, " ", spec.unit, ")\n");
  }
  text += str_cat(
      "\n`wvlock help COMMAND` or `wvlock COMMAND --help` describes one command.\n"
      "exit codes: 0 ok, 1 resolution or selection failed, 2 bad input or usage, 3 network or "
      "file system\n");
  write_out(text);
  return kExitOk;
}

}  // namespace
}  // namespace wv::cli

int main(int argc, char** argv) {
  using namespace wv::cli;
  std::vector<std::string> items(argv + 1, argv + argc);
  Arguments arguments(items);
  GlobalOptions options;
  const char* no_color = std::getenv("NO_COLOR");
  options.color = isatty(2) && !(no_color && *no_color);
  const char* command_name = nullptr;
  bool help_requested = false;
  std::vector<std::string> rest;
  std::vector<std::string> limit_settings;
  // Global options may come before or after the subcommand name; for `run`, only before CMD:
  // CMD and every argument after it (or after `--`) are CMD's, untouched.
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (command_name && std::strcmp(command_name, "run") == 0) {
      if (item == "--" || (!item.empty() && item[0] != '-')) {
        rest.push_back("--");
        rest.insert(rest.end(), items.begin() + std::ptrdiff_t(item == "--" ? i + 1 : i), items.end());
        break;
      }
      if (run_option_takes_value(item) && i + 1 < items.size()) {
        rest.push_back(item);
        rest.push_back(items[++i]);
        continue;
      }
    }
    auto value_of = [&](const char* name, std::string& out) -> bool {
      std::size_t length = std::strlen(name);
      if (item == name && i + 1 < items.size()) {
        out = items[++i];
        return true;
      }
      if (item.size() > length && item.compare(0, length, name) == 0 && item[length] == '=') {
        out = item.substr(length + 1);
        return true;
      }
      return false;
    };
    std::string color;
    std::string limit_setting;
    std::string refreshed;
    if (value_of("--keyring-provider", options.keyring_provider)) {
      if (options.keyring_provider != "subprocess" && options.keyring_provider != "disabled") {
        wv::print_diagnostic(
            wv::str_cat("error: `--keyring-provider` takes subprocess or disabled, not `",
                        options.keyring_provider, "`"));
        return kExitUsage;
      }
      continue;
    }
    if (value_of("--limit", limit_setting)) {
      limit_settings.push_back(limit_setting);
      continue;
    }
    if (value_of("--refresh-package", refreshed)) {
      wv::Result<wv::pkg::PackageName> name = wv::pkg::parse_package_name(refreshed);
      if (!name) {
        wv::print_diagnostic(
            wv::str_cat("error: `--refresh-package` takes a package name, not `", refreshed, "`"));
        return kExitUsage;
      }
      options.refresh_packages.push_back(std::move(*name));
      continue;
    }
    if (value_of("--project", options.project_dir) || value_of("--cache-dir", options.cache_dir)) {
      continue;
    }
    if (value_of("--color", color)) {
      if (color == "always") options.color = true;
      else if (color == "never") options.color = false;
      else if (color != "auto") {
        wv::print_diagnostic(
            wv::str_cat("error: `--color` takes auto, always or never, not `", color, "`"));
        return kExitUsage;
      }
      continue;
    }
    if (item == "--offline") options.offline = true;
    else if (item == "--refresh") options.refresh = true;
    else if (item == "-q" || item == "--quiet") options.verbosity = 0;
    else if (item == "-v" || item == "--verbose") options.verbosity = 2;
    else if (item == "-vv") options.verbosity = 3;
    // `CMD --help` describes and never runs CMD (a `sync --help` must not install).
    else if (item == "-h" || item == "--help") help_requested = true;
    else if (item == "-V" || item == "--version") command_name = command_name ? command_name : "version";
    else if (!command_name && !item.empty() && item[0] != '-') command_name = argv[i + 1];
    else rest.push_back(item);
  }
  wv::set_verbosity(wv::Verbosity(options.verbosity));
  wv::set_color(options.color);
  // Limits come from the environment first, so that --limit on the command line wins.
  wv::Result<void> limits = wv::apply_limit_environment(&std::getenv);
  for (const std::string& setting : limit_settings) {
    if (!limits) break;
    limits = wv::apply_limit_setting(setting);
  }
  if (!limits) {
    print_error(limits.error());
    return kExitUsage;
  }
  if (help_requested) {
    if (command_name) return print_command_help(command_name);
    Arguments none({});
    return run_help(options, none);
  }
  if (!command_name) {
    Arguments none({});
    run_help(options, none);
    return kExitUsage;
  }
  if (auto found = locate_workspace_root(options, command_name); !found) {
    print_error(found.error());
    return exit_code_for(found.error());
  }
  for (std::size_t i = 0; i < kCommandCount; ++i) {
    if (std::strcmp(kCommands[i].name, command_name) == 0) {
      Arguments command_arguments(rest);
      return kCommands[i].run(options, command_arguments);
    }
  }
  print_unknown_command(command_name);
  return kExitUsage;
}
