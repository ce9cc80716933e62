#include "src/cli/help.h"

#include "src/base/str.h"

namespace wv::cli {
namespace {

struct HelpText {
  const char* name;
  const char* usage;
  const char* description;
  const char* options;  ///< one option per line, its description aligned after it
};

const HelpText kHelp[] = {
    {"init", "wvlock init [DIR] [--name NAME] [--python PYTHON] [--bare] [--package | --lib]",
     "Writes DIR/pyproject.toml (DIR defaults to the project folder and is made if needed):\n"
     "[project] with requires-python from the interpreter found, [tool.wvlock] with a target\n"
     "named `host` for this machine (platform, glibc or macOS, GPU) and commented GPU target\n"
     "examples; also .python-version and main.py. Never replaces a pyproject.toml (exit 2).",
     "  --name NAME              the project's name (default: the folder's, normalised)\n"
     "  --python PYTHON          the interpreter whose M.m requires-python starts at\n"
     "                           (default: python3 on PATH)\n"
     "  --bare                   pyproject.toml with the [project] table only, nothing else\n"
     "  --package                a package: src/NAME/__init__.py, [build-system], a script\n"
     "  --lib                    a library package: src/NAME/__init__.py and py.typed\n"},
    {"add", "wvlock add REQUIREMENT ... [--group NAME | --dev | --optional EXTRA] [options]",
     "Adds each requirement to pyproject.toml in place (every other byte kept), then locks and\n"
     "syncs. A package already listed has its requirement replaced; a bare name gets `>=` the\n"
     "version the lock chose. When the lock fails, pyproject.toml and pylock.toml are put back\n"
     "as they were and lock's exit code is returned.",
     "  --group NAME             add to [dependency-groups] NAME (synced with --group NAME)\n"
     "  --dev                    the same as --group dev\n"
     "  --optional EXTRA         add to [project.optional-dependencies] EXTRA\n"
     "  --index NAME             pin the packages to a declared index ([tool.wvlock.sources])\n"
     "  --target NAME            with --index: the pin applies to this target only\n"
     "  --package NAME           in a workspace: edit this member (default: the member whose\n"
     "                           folder add started in, else the root); the root's lock\n"
     "  --no-sync                lock, but do not sync\n"
     "  --frozen                 edit pyproject.toml only: no lock, no sync\n"},
    {"remove", "wvlock remove NAME ... [--group NAME | --dev | --optional EXTRA] [options]",
     "Removes every requirement naming each package from the chosen list (and the package's\n"
     "[tool.wvlock.sources] entry once no list names it), then locks and syncs. A package\n"
     "that is not in the list is an error (exit 2) and nothing changes.",
     "  --group NAME             remove from [dependency-groups] NAME\n"
     "  --dev                    the same as --group dev\n"
     "  --optional EXTRA         remove from [project.optional-dependencies] EXTRA\n"
     "  --package NAME           in a workspace: edit this member (default: the member whose\n"
     "                           folder remove started in, else the root)\n"
     "  --no-sync                lock, but do not sync\n"
     "  --frozen                 edit pyproject.toml only: no lock, no sync\n"},
    {"lock", "wvlock lock [--check] [--json] [--upgrade | --upgrade-package NAME ...]",
     "Resolves the project's requirements for every declared target and writes pylock.toml.\n"
     "Versions already in the lock are kept unless an upgrade is asked for; what moved is\n"
     "listed. Exits 1 when a target has no resolution, with the reason; 2 when a target's\n"
     "Python is outside the project's requires-python.",
     "  --check                  exit 1 when a fresh lock would differ; write nothing\n"
     "  --json                   one JSON object on stdout (docs/json.md)\n"
     "  -U, --upgrade            allow every package to move to its newest version\n"
     "  --upgrade-package NAME   allow NAME to move (repeatable; warns when no target needs it)\n"},
    {"sync", "wvlock sync [options]",
     "Detects this host, picks the locked target that fits it and each package's wheel for it,\n"
     "and makes the project's environment (.venv) match: installs what is missing, removes\n"
     "what the lock does not name. An activated environment ($VIRTUAL_ENV) is used only with\n"
     "--active. A missing or stale pylock.toml is locked first (the changes are listed as\n"
     "`wvlock lock` lists them). Nothing changes when a step fails, and a new environment is\n"
     "removed again.",
     "  --target NAME            take this target instead of the detected one\n"
     "  --no-verify-target       with --target: install it even when it does not fit this host\n"
     "  --allow-cpu-fallback     on a GPU host that no GPU target serves, install the CPU target\n"
     "                           with a warning instead of refusing (also\n"
     "                           WVLOCK_ALLOW_CPU_FALLBACK=1, `cpu-fallback = true`)\n"
     "  --extra NAME             require an extra the selected target locks (repeatable)\n"
     "  --all-extras             every extra the selected target locks (always installed)\n"
     "  --group NAME             install a dependency group too (repeatable)\n"
     "  --no-group NAME          leave a dependency group out (repeatable; wins over the others)\n"
     "  --only-group NAME        only this group: not the project or its dependencies (repeatable)\n"
     "  --all-groups             install every dependency group\n"
     "  --no-default-groups      leave out the lock's default-groups (dev unless set)\n"
     "  --no-dev                 leave out the dev group (--no-group dev)\n"
     "  --inexact                keep installed packages the lock does not name\n"
     "  --locked                 fail when pylock.toml is missing or stale instead of locking\n"
     "                           (exit 1; the setting for CI)\n"
     "  --frozen                 install pylock.toml as it is, without checking it is fresh\n"
     "  --lockfile PATH          install this pylock.toml / pylock.NAME.toml; one without wvlock\n"
     "                           targets (another tool's, an export) by PEP 751's rules\n"
     "  --dry-run                print the plan; change nothing\n"
     "  --reinstall              reinstall every package, even one already right, and extract\n"
     "                           its wheel again instead of using the unpacked cache\n"
     "  --link-mode MODE         clone, hardlink or copy files from the unpacked cache (also\n"
     "                           WVLOCK_LINK_MODE; default: clone where the file system can,\n"
     "                           else hardlink, else copy)\n"
     "  --compile-bytecode       byte-compile the installed modules (.pyc, listed in RECORD;\n"
     "                           also WVLOCK_COMPILE_BYTECODE=1)\n"
     "  --no-install-project     install the dependencies but not the project itself\n"
     "  --package NAME           in a workspace: this member and its dependencies (repeatable;\n"
     "                           default: the member whose folder sync started in, else the root)\n"
     "  --all-packages           in a workspace: the root and every member\n"
     "  --no-editable            install the project as a regular wheel, not editable\n"
     "  --no-build               never build from source; fail where only a source is locked\n"
     "  --venv DIR               the environment to sync (default the project's .venv)\n"
     "  --active                 sync the activated environment ($VIRTUAL_ENV) instead\n"
     "  --no-active              ignore $VIRTUAL_ENV without the warning\n"
     "  --python PYTHON          a path, or a version (3.12, cpython@3.12) looked up on PATH and\n"
     "                           in the usual places; a venv of another Python is recreated\n"
     "  --wheelhouse DIR         take each locked file from DIR (`wvlock fetch --into DIR`) by\n"
     "                           name and sha256 before the cache and the network (also\n"
     "                           WVLOCK_WHEELHOUSE)\n"
     "  --json                   the plan and outcome as one JSON object (docs/json.md)\n"},
    {"run", "wvlock run [sync options] [--] CMD [ARGS...]",
     "Locks if pylock.toml is missing or stale, syncs the environment as `wvlock sync` does\n"
     "(the plan on stderr), then replaces itself with CMD: the environment's bin first on PATH,\n"
     "VIRTUAL_ENV set, PYTHONHOME unset. CMD's exit code is run's. Options are read up to CMD\n"
     "(or `--`); everything after it is CMD's, global options too. `wvlock run script.py` runs\n"
     "the script with the environment's Python; a script with inline metadata (PEP 723,\n"
     "`# /// script`) gets an environment of its own, resolved for this host and cached by its\n"
     "metadata. Exits 2 when CMD is missing or cannot be started.",
     "  (every option of `wvlock sync`, except --json)\n"
     "  --no-sync                run in the environment as it is: no lock, no sync\n"
     "  --script                 read CMD as a PEP 723 script whatever its name\n"},
    {"targets", "wvlock targets [options]",
     "Shows the declared targets, which one this host would pick, and why not the others.\n"
     "Exits 1 when no target fits, or when a GPU host would get a CPU target (as sync refuses).",
     "  --target NAME            check this target as `sync --target` would\n"
     "  --no-verify-target       with --target: take it even when it does not fit\n"
     "  --allow-cpu-fallback     let a GPU host that no GPU target serves pick the CPU target\n"
     "  --extra NAME             require an extra the selected target locks (repeatable)\n"
     "  --all-extras             every extra the selected target locks (always counted)\n"
     "  --group NAME             count this group too (repeatable)\n"
     "  --no-group NAME          leave this group out (repeatable)\n"
     "  --only-group NAME        count only this group, not the project's dependencies\n"
     "  --all-groups             count every dependency group\n"
     "  --no-default-groups      leave out the lock's default-groups\n"
     "  --no-dev                 leave out the dev group\n"
     "  --frozen                 read pylock.toml without checking it is fresh\n"
     "  --venv DIR               judge with this environment's Python (default .venv)\n"
     "  --active                 judge with the activated environment ($VIRTUAL_ENV)\n"
     "  --no-active              ignore $VIRTUAL_ENV without the warning\n"
     "  --python PYTHON          judge with this Python, as `sync --python` would install\n"
     "  --json                   the host facts and each target's verdict as JSON (docs/json.md)\n"},
    {"detect", "wvlock detect [--json]",
     "Prints this machine's host profile (each fact with where it came from) and each\n"
     "variant provider's output, in the order providers rank them.",
     "  --json                   one JSON object (docs/json.md)\n"},
    {"fetch", "wvlock fetch [--target NAME ...] [--into DIR] [--frozen] [--json]",
     "Downloads and verifies (sha256) every file the targets install, all targets by default:\n"
     "each wheel a target keeps, and the sdist or archive of each package it builds; a git\n"
     "source is fetched into the cache's git database. Files go into the cache, so that\n"
     "`sync --offline` needs no network; with --into also into a flat wheelhouse (each file\n"
     "under its own name, listed in SHA256SUMS) that another machine syncs from with\n"
     "`sync --wheelhouse DIR --offline`. Downloads run in parallel (WVLOCK_CONCURRENT_DOWNLOADS);\n"
     "with --offline nothing is downloaded: fetch checks that the cache holds every file.\n"
     "Exit codes as sync: 1 a stale lock, 2 a file that does not match the lock, 3 network or\n"
     "file system.",
     "  --target NAME            only this target (repeatable)\n"
     "  --into DIR               also write every file into the wheelhouse DIR\n"
     "  --frozen                 read pylock.toml without checking it is fresh\n"
     "  --json                   each file and where it came from as JSON (docs/json.md)\n"},
    {"check", "wvlock check [--lockfile PATH] [--json]",
     "Verifies that pylock.toml is fresh (pyproject.toml has not changed since it was written),\n"
     "that every target's closure is complete and installable, and that each file a target\n"
     "would install (the wheels it keeps, the sdists and archives it would build) is here with\n"
     "the locked size and sha256. A url's file is looked for in the download cache only: check\n"
     "never uses the network. Exits 1 when the lock is stale or a file is missing or changed,\n"
     "3 when a file cannot be read.",
     "  --lockfile PATH          a PEP 751 lock (pylock.toml or pylock.NAME.toml, any tool's):\n"
     "                           valid, and every file of every package here as locked\n"
     "  --json                   one JSON object (docs/json.md)\n"},
    {"tree", "wvlock tree [--target NAME] [--depth N] [--invert] [--package NAME]",
     "Prints each target's dependency tree from the lockfile; (*) marks a package shown above.\n"
     "Inverted, each package is followed by what depends on it, up to what the project asks for.",
     "  --target NAME            only this target\n"
     "  --depth N                at most N levels below the target (default 255; 1: the roots)\n"
     "  --invert                 from the leaves (or --package) up to the project\n"
     "  --package NAME           start from this package (repeatable); a workspace member:\n"
     "                           that member's tree\n"
     "  --all-packages           in a workspace: the root's and every member's tree\n"
     "  --json                   one JSON object (docs/json.md)\n"},
    {"why", "wvlock why PACKAGE [--target NAME]",
     "Shows the shortest chain of requirements that brings PACKAGE into each target.\n"
     "Exits 1 when no target needs it.",
     "  --target NAME            only this target\n"},
    {"export",
     "wvlock export --target NAME [--format pylock|requirements] [--extra NAME] [--group NAME]\n"
     "                     [--no-extras] [--no-groups] [--output FILE|-] [--json]",
     "Writes one target's packages as a plain PEP 751 lock (pylock.NAME.toml by default) or as\n"
     "a hashed requirements file (stdout by default): every extra and dependency group the\n"
     "target locked, unless --extra/--group name some (each kind narrowed on its own). In the\n"
     "PEP 751 file a package needed only by an extra or group is marked so, and a standard\n"
     "installer installs it only when asked for that extra or group.",
     "  --target NAME            the target to export (required)\n"
     "  --format FORMAT          pylock (default) or requirements\n"
     "  --extra NAME             only this extra of the project (repeatable)\n"
     "  --no-extras              no extra at all\n"
     "  --group NAME             only this dependency group (repeatable)\n"
     "  --no-groups              no dependency group at all\n"
     "  --package NAME           in a workspace: this member and its dependencies (repeatable)\n"
     "  --all-packages           in a workspace: the root and every member\n"
     "  --output FILE            where to write; - for stdout\n"
     "  --json                   also print a summary of the export as JSON (docs/json.md)\n"},
    {"cache", "wvlock cache dir | clean [NAME ...] | prune [--older-than DAYS] | verify [--json]",
     "Looks after the cache (`--cache-dir`): downloaded files, index pages, and the unpacked\n"
     "wheels a sync links environments from. `dir` prints its folder. `clean` removes all of\n"
     "it, or the unpacked wheels of the named packages. `prune` removes what an interrupted\n"
     "write left, unpacked wheels whose files changed, and those no sync used for DAYS (30).\n"
     "`verify` re-hashes every unpacked file against its wheel's RECORD, removes damaged\n"
     "entries and exits 1 when it found any. prune, clean and verify wait for running syncs.",
     "  --older-than DAYS        prune: unpacked wheels unused this long go (default 30)\n"
     "  --json                   what was checked and removed as one JSON object (docs/json.md)\n"},
    {"help", "wvlock help [COMMAND]", "Shows the commands, or one command's help.", ""},
    {"version", "wvlock version", "Prints wvlock's version.", ""},
};

}  // namespace

std::optional<std::string> command_help(std::string_view name) {
  for (const HelpText& help : kHelp) {
    if (name != help.name) continue;
    std::string text = str_cat("usage: ", help.usage, "\n\n", help.description, "\n");
    std::string options = help.options;
    options += "  -h, --help               show this help and do nothing else\n";
    text += "\noptions:\n" + options;
    text += "\nglobal options (any command): see `wvlock help`\n";
    return text;
  }
  return std::nullopt;
}

}  // namespace wv::cli
