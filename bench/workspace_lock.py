"""Locking a three-member workspace (a core library, a trainer with a GPU target, a small
service: docs/user-guide.md, "Workspaces") against locking each member alone as its own project
(the same targets, the same indexes; a sibling it needs as an editable path source), in one
run: the one workspace lock should cost less than the sum of the three, since the shared
packages (core, numpy) are resolved and their metadata read once.

Each round deletes pylock.toml first (a full resolution, no previous lock to prefer) and keeps
the cache warm (index pages, built metadata), so the figure is resolution, not downloads.
Times are the median of --runs wall-clock runs of the wvlock binary.

Usage: python3 bench/workspace_lock.py build/src/cli/wvlock build/fixtures/ecosystem [runs]
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

WVLOCK = os.path.abspath(sys.argv[1])
ECOSYSTEM = os.path.abspath(sys.argv[2])
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
MINOR = "%d.%d" % sys.version_info[:2]

SETTINGS = (f'[tool.wvlock]\npython = "{MINOR}"\nfind-links = ["{{wheels}}"]\n'
            f'index-url = "{{index}}"\n\n'
            '[[tool.wvlock.target]]\nname = "cpu"\nplatform = "linux-x86_64"\nglibc = "2.28"\n\n'
            '[[tool.wvlock.target]]\nname = "h100"\nplatform = "linux-x86_64"\nglibc = "2.28"\n'
            'nvidia = { cuda-driver = "12.8", compute-capability = "9.0" }\nextras = ["cuda"]\n')
MEMBERS = {
    "core": ('"numpy>=2"', ""),
    "trainer": ('"core", "torch>=2.8", "transformers[torch]>=4.55"',
                "[project.optional-dependencies]\ncuda = [\"flash-attn>=2.7 ; sys_platform == 'linux'\"]\n"),
    "service": ('"core", "requests[socks]>=2.32"', ""),
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def member_text(name, sources):
    deps, more = MEMBERS[name]
    return ('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
            f'[project]\nname = "{name}"\nversion = "0.1.0"\ndependencies = [{deps}]\n{more}{sources}')


def setup(tmp):
    wheels = f"{tmp}/wheels"
    os.makedirs(wheels)
    for leaf in os.listdir("/usr/share/python-wheels"):
        if leaf.startswith(("setuptools-", "wheel-")):
            shutil.copy(f"/usr/share/python-wheels/{leaf}", wheels)
    settings = SETTINGS.replace("{wheels}", wheels).replace("{index}", f"{ECOSYSTEM}/simple")
    root = f"{tmp}/ws"
    write(f"{root}/pyproject.toml", '[tool.wvlock.workspace]\nmembers = ["packages/*"]\n' + settings)
    for name in MEMBERS:
        sources = "" if name == "core" else "[tool.wvlock.sources]\ncore = { workspace = true }\n"
        write(f"{root}/packages/{name}/pyproject.toml", member_text(name, sources))
        write(f"{root}/packages/{name}/src/{name}/__init__.py", "")
    alone = {}
    for name in MEMBERS:
        folder = f"{tmp}/alone/{name}"
        sources = "" if name == "core" else f'\n[tool.wvlock.sources]\ncore = {{ path = "{tmp}/alone/core", editable = true }}\n'
        # Only the trainer declares the `cuda` extra that h100 locks.
        own = settings if name == "trainer" else settings.replace('extras = ["cuda"]\n', "")
        write(f"{folder}/pyproject.toml", member_text(name, "") + "\n" + own + sources)
        write(f"{folder}/src/{name}/__init__.py", "")
        alone[name] = folder
    return root, alone


def lock_time(folder, cache):
    lockfile = f"{folder}/pylock.toml"
    if os.path.exists(lockfile):
        os.remove(lockfile)
    env = dict(os.environ, WVLOCK_CACHE_DIR=cache)
    start = time.perf_counter()
    run = subprocess.run([WVLOCK, "--cache-dir", cache, "-q", "lock"], cwd=folder, env=env,
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"lock failed in {folder}:\n{run.stderr}")
    return elapsed


def packages(folder):
    with open(f"{folder}/pylock.toml") as f:
        return sum(1 for line in f if line == "[[packages]]\n")


def main():
    tmp = tempfile.mkdtemp(prefix="wvlock-workspace-bench-")
    try:
        root, alone = setup(tmp)
        cache = f"{tmp}/cache"
        lock_time(root, cache)  # warm: index pages read, member metadata built once
        for folder in alone.values():
            lock_time(folder, cache)
        workspace = [lock_time(root, cache) for _ in range(RUNS)]
        each = {name: [lock_time(folder, cache) for _ in range(RUNS)] for name, folder in alone.items()}
        ws = statistics.median(workspace)
        total = sum(statistics.median(times) for times in each.values())
        print(f"workspace lock (3 members, 2 targets): {ws * 1000:.0f} ms, {packages(root)} package entries")
        for name, times in each.items():
            print(f"  {name} alone: {statistics.median(times) * 1000:.0f} ms, {packages(alone[name])} package entries")
        print(f"sum of the members alone: {total * 1000:.0f} ms")
        print(f"workspace / sum: {ws / total:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
