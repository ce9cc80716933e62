"""Re-syncing a project whose three dependencies are sdists, against the same project with
wheels of them (the baseline), in one run: wvlock builds the sdists once and caches the wheels
by (sdist sha256, interpreter, platform), so a re-sync into a fresh venv and a no-op re-sync
should cost what the wheel-only project costs (issue goal: at most 2x).

Usage: python3 bench/sdist_resync.py build/src/cli/wvlock [runs]
"""
import io, os, shutil, statistics, subprocess, sys, tarfile, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdist_bench_files import wheel  # noqa: E402

WVLOCK = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
PYTHON = "/usr/bin/python3"
NAMES = ["alpha", "beta", "gamma"]


def sdist(folder, name):
    base = f"{name}-1.0"
    members = {
        f"{base}/PKG-INFO": f"Metadata-Version: 2.2\nName: {name}\nVersion: 1.0\n",
        f"{base}/pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\n'
        'build-backend = "setuptools.build_meta"\n[project]\n'
        f'name = "{name}"\nversion = "1.0"\n',
        f"{base}/src/{name}/__init__.py": "".join(f"def f{i}(): return {i}\n" for i in range(200)),
    }
    with tarfile.open(f"{folder}/{base}.tar.gz", "w:gz") as tf:
        for member, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def project(folder, links):
    os.makedirs(folder)
    minor = "%d.%d" % sys.version_info[:2]
    with open(f"{folder}/pyproject.toml", "w") as f:
        f.write('[project]\nname = "bench"\nversion = "0"\ndependencies = ['
                + ", ".join(f'"{n}"' for n in NAMES) + ']\n[tool.wvlock]\nfind-links = ['
                + ", ".join(f'"{l}"' for l in links) + ']\n[[tool.wvlock.target]]\nname = "linux"\n'
                f'platform = "linux-x86_64"\nglibc = "2.28"\npython = "{minor}"\n')


def run(folder, *args):
    started = time.perf_counter()
    subprocess.run([WVLOCK, "--cache-dir", CACHE, *args], cwd=folder, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return (time.perf_counter() - started) * 1000


def medians(folders, fresh):
    """The median sync time of each folder, runs interleaved so load on the machine hits both."""
    times = {folder: [] for folder in folders}
    for _ in range(RUNS):
        for folder in folders:
            if fresh:
                shutil.rmtree(f"{folder}/.venv", ignore_errors=True)
            times[folder].append(run(folder, "sync", "--python", PYTHON))
    return {folder: statistics.median(values) for folder, values in times.items()}


root = tempfile.mkdtemp(prefix="wvlock-sdist-bench-")
CACHE = f"{root}/cache"
try:
    for leaf in ("backend", "sdists", "wheels"):
        os.makedirs(f"{root}/{leaf}")
    for leaf in os.listdir("/usr/share/python-wheels"):
        if leaf.startswith(("setuptools-", "wheel-")):
            shutil.copy(f"/usr/share/python-wheels/{leaf}", f"{root}/backend/")
    for name in NAMES:
        sdist(f"{root}/sdists", name)
        wheel(f"{root}/wheels", name)
    project(f"{root}/from-sdists", ["../sdists", "../backend"])
    project(f"{root}/from-wheels", ["../wheels"])
    for folder in ("from-sdists", "from-wheels"):
        run(f"{root}/{folder}", "lock")
    cold = run(f"{root}/from-sdists", "sync", "--python", PYTHON)
    folders = [f"{root}/from-sdists", f"{root}/from-wheels"]
    fresh = medians(folders, True)
    noop = medians(folders, False)
    print(f"three sdists, first sync (three isolated builds): {cold:8.1f} ms")
    print(f"{'':34} {'sdists':>10} {'wheels':>10} {'ratio':>7}")
    for label, result in (("re-sync into a fresh venv", fresh), ("no-op re-sync", noop)):
        s, w = result[folders[0]], result[folders[1]]
        print(f"{label:34} {s:8.1f} ms {w:7.1f} ms {s / w:6.2f}x")
finally:
    shutil.rmtree(root, ignore_errors=True)
