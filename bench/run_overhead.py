"""What `wvlock run` adds to a no-op sync, in one run: `wvlock run true` on a synced project,
against `wvlock sync` (no-op) and against running `true` directly (the baselines). Also a
PEP 723 script's cached environment (`wvlock run script.py`, second run) against running the
same script with the environment's Python directly. Goal: run adds at most 5 ms to a no-op sync.
Medians of many repetitions.

Usage: python3 bench/run_overhead.py build/src/cli/wvlock [runs]
"""
import base64, hashlib, os, shutil, statistics, subprocess, sys, tempfile, time, zipfile

WVLOCK = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
NAMES = ["alpha", "beta", "gamma"]
# No GPU facts, whatever the machine: the bench measures run, not detection differences.
ENV = dict(os.environ, WVLOCK_OVERRIDE_CUDA_DRIVER="", WVLOCK_OVERRIDE_CUDA_ARCH="",
           WVLOCK_OVERRIDE_ROCM="", WVLOCK_OVERRIDE_GFX="")


def wheel(folder, name):
    files = {
        f"{name}/__init__.py": "".join(f"def f{i}(): return {i}\n" for i in range(50)),
        f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = ""
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(text.encode())}\n"
    record += f"{name}-1.0.dist-info/RECORD,,\n"
    files[f"{name}-1.0.dist-info/RECORD"] = record
    with zipfile.ZipFile(f"{folder}/{name}-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in files.items():
            zf.writestr(path, text)


def timed(argv, cwd):
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{done.stderr.decode()}")
    return elapsed


def median(argv, cwd):
    timed(argv, cwd)  # warm
    return statistics.median(timed(argv, cwd) for _ in range(RUNS))


def main():
    root = tempfile.mkdtemp(prefix="wv-run-bench-")
    try:
        wheels = f"{root}/wheels"
        os.makedirs(wheels)
        for name in NAMES:
            wheel(wheels, name)
        folder = f"{root}/project"
        os.makedirs(folder)
        minor = "%d.%d" % sys.version_info[:2]
        with open(f"{folder}/pyproject.toml", "w") as f:
            f.write('[project]\nname = "bench"\nversion = "0"\ndependencies = ['
                    + ", ".join(f'"{n}"' for n in NAMES) + f']\n[tool.wvlock]\nfind-links = ["{wheels}"]\n'
                    '[[tool.wvlock.target]]\nname = "linux"\nplatform = "linux-x86_64"\n'
                    f'glibc = "2.28"\npython = "{minor}"\n')
        with open(f"{folder}/script.py", "w") as f:
            f.write("# /// script\n# dependencies = [\"alpha\"]\n# ///\nimport alpha\n")
        cache = ["--cache-dir", f"{root}/cache"]
        subprocess.run([WVLOCK, *cache, "sync"], cwd=folder, env=ENV, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([WVLOCK, *cache, "run", "script.py"], cwd=folder, env=ENV, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        true = shutil.which("true")
        direct = median([true], folder)
        sync = median([WVLOCK, *cache, "-q", "sync"], folder)
        run = median([WVLOCK, *cache, "-q", "run", "true"], folder)
        envs = f"{root}/cache/environments-v1"
        script_python = f"{envs}/{os.listdir(envs)[0]}/.venv/bin/python"
        script_direct = median([script_python, "script.py"], folder)
        script_run = median([WVLOCK, *cache, "run", "script.py"], folder)
        print(f"medians of {RUNS} runs, ms")
        print(f"  true, directly                 {direct:8.2f}")
        print(f"  wvlock sync (no-op)            {sync:8.2f}")
        print(f"  wvlock run true                {run:8.2f}   run - sync = {run - sync:+.2f} (goal <= 5)")
        print(f"  script.py, its venv's python   {script_direct:8.2f}")
        print(f"  wvlock run script.py (cached)  {script_run:8.2f}   overhead = {script_run - script_direct:+.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


main()
