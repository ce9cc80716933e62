"""A fresh venv of a project with two editable folders, against the same project with wheels of
them (the baseline), in one run: wvlock caches an editable build by the folder's path and its
metadata files (pyproject.toml, setup.cfg, setup.py), as uv does, so a new venv reuses it
instead of running the backend again (issue goal: at most 2x the wheel project).

Usage: python3 bench/editable_fresh.py build/src/cli/wvlock [runs]
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdist_bench_files import wheel  # noqa: E402

WVLOCK = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PYTHON = "/usr/bin/python3"
NAMES = ["alpha", "beta"]


def folder_package(folder, name):
    os.makedirs(f"{folder}/src/{name}")
    with open(f"{folder}/pyproject.toml", "w") as f:
        f.write('[build-system]\nrequires = ["setuptools>=61"]\n'
                'build-backend = "setuptools.build_meta"\n[project]\n'
                f'name = "{name}"\nversion = "1.0"\n')
    with open(f"{folder}/src/{name}/__init__.py", "w") as f:
        f.write("".join(f"def f{i}(): return {i}\n" for i in range(200)))


def project(folder, links, sources):
    os.makedirs(folder)
    minor = "%d.%d" % sys.version_info[:2]
    with open(f"{folder}/pyproject.toml", "w") as f:
        f.write('[project]\nname = "bench"\nversion = "0"\ndependencies = ['
                + ", ".join(f'"{n}"' for n in NAMES) + ']\n[tool.wvlock]\nfind-links = ['
                + ", ".join(f'"{l}"' for l in links) + ']\n[[tool.wvlock.target]]\nname = "linux"\n'
                f'platform = "linux-x86_64"\nglibc = "2.28"\npython = "{minor}"\n' + sources)


def run(folder, *args):
    started = time.perf_counter()
    subprocess.run([WVLOCK, "--cache-dir", CACHE, *args], cwd=folder, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return (time.perf_counter() - started) * 1000


root = tempfile.mkdtemp(prefix="wvlock-editable-bench-")
CACHE = f"{root}/cache"
try:
    for leaf in ("backend", "wheels"):
        os.makedirs(f"{root}/{leaf}")
    for leaf in os.listdir("/usr/share/python-wheels"):
        if leaf.startswith(("setuptools-", "wheel-")):
            shutil.copy(f"/usr/share/python-wheels/{leaf}", f"{root}/backend/")
    sources = "[tool.wvlock.sources]\n"
    for name in NAMES:
        folder_package(f"{root}/{name}", name)
        wheel(f"{root}/wheels", name)
        sources += f'{name} = {{ path = "../{name}", editable = true }}\n'
    project(f"{root}/editable", ["../backend"], sources)
    project(f"{root}/from-wheels", ["../wheels"], "")
    folders = [f"{root}/editable", f"{root}/from-wheels"]
    for folder in folders:
        run(folder, "lock")
    cold = run(folders[0], "sync", "--python", PYTHON)
    times = {folder: [] for folder in folders}
    for _ in range(RUNS):
        for folder in folders:  # interleaved, so load on the machine hits both
            shutil.rmtree(f"{folder}/.venv", ignore_errors=True)
            times[folder].append(run(folder, "sync", "--python", PYTHON))
    e, w = (statistics.median(times[folder]) for folder in folders)
    print(f"two editable folders, first sync (two backend builds): {cold:8.1f} ms")
    print(f"{'':28} {'editable':>10} {'wheels':>10} {'ratio':>7}")
    print(f"{'sync into a fresh venv':28} {e:8.1f} ms {w:7.1f} ms {e / w:6.2f}x")
finally:
    shutil.rmtree(root, ignore_errors=True)
