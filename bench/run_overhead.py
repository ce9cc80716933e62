"""What `wvlock run` adds to a no-op sync, in one run: `wvlock run true` on a synced project,
against `wvlock sync` (no-op) and against running `true` directly (the baselines). Also a
PEP 723 script's cached environment (`wvlock run script.py`, second run) against running the
same script with the environment's Python directly. Goal: run adds at most 5 ms to a no-op sync.
Medians of many repetitions.

Usage: python3 bench/run_overhead.py build/src/cli/wvlock [runs]
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdist_bench_files import wheel as shared_wheel  # noqa: E402


def wheel(folder, name):
    shared_wheel(folder, name, functions=50)


WVLOCK = os.path.abspath(sys.argv[1])
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
NAMES = ["alpha", "beta", "gamma"]
# No GPU facts, whatever the machine: the bench measures run, not detection differences.
ENV = dict(os.environ, WVLOCK_OVERRIDE_CUDA_DRIVER="", WVLOCK_OVERRIDE_CUDA_ARCH="",
           WVLOCK_OVERRIDE_ROCM="", WVLOCK_OVERRIDE_GFX="")


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
