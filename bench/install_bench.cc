// Install benchmark: generates a closure of wheels (most small, a few with many files, all
// deflated, with real RECORDs), then times wv::install::sync() into a fresh venv against pip
// installing the same files (`python -m pip install --no-deps --no-index --target DIR`, with and
// without byte-compiling) in the same run, and prints the ratio. Venv creation is not timed.
// Options: --wheels N (30), --big N (how many have many files, 5), --files N (files in a big
// wheel, 600), --rounds N (best of N, 3), --python PATH (the pip interpreter; the first of
// /usr/bin/python3 and python3 that has pip), --no-pip, --dir DIR (/tmp; /dev/shm measures
// the installers without the disk file system).
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "base/str.h"
#include "install/sync.h"
#include "lock/lockfile.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  int wheels = 30;
  int big = 5;
  int files = 600;
  int rounds = 3;
  std::string python;
  bool pip = true;
  std::string dir = "/tmp";  ///< where the wheels, venvs and pip targets go
};

bool add(zip_t* archive, const std::string& name, const std::string& content) {
  void* data = std::malloc(content.size() + 1);
  std::memcpy(data, content.data(), content.size());
  zip_source_t* source = zip_source_buffer(archive, data, content.size(), 1);
  if (source == nullptr) return false;
  zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
  if (index < 0) {
    zip_source_free(source);
    return false;
  }
  zip_file_set_external_attributes(archive, static_cast<zip_uint64_t>(index), 0, ZIP_OPSYS_UNIX,
                                   (0100644u) << 16);
  return true;
}

/// A python module of roughly `size` bytes (compressible like real code).
std::string module_text(std::mt19937& random, std::size_t size) {
  std::string text;
  int n = 0;
  while (text.size() < size) {
    text += wv::str_cat("def function_", n, "(x, y=", random() % 1000, "):\n    return x * ", n,
                        " + y  # ", random(), "\n\n");
    ++n;
  }
  return text;
}

std::string build_wheel(const std::string& dir, int index, int files, std::mt19937& random) {
  const std::string name = wv::str_cat("pkg", index);
  const std::string dist_info = name + "-1.0.dist-info";
  const std::string path = wv::str_cat(dir, "/", name, "-1.0-py3-none-any.whl");
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (archive == nullptr) return "";
  std::string record;
  auto put = [&](const std::string& member, const std::string& content) {
    add(archive, member, content);
    record += wv::str_cat(member, ",", wv::sha256_record_digest(content), ",", content.size(), "\n");
  };
  for (int f = 0; f < files; ++f) {
    put(wv::str_cat(name, "/sub", f / 50, "/mod", f, ".py"), module_text(random, 1000 + random() % 6000));
  }
  put(name + "/__init__.py", "VALUE = 1\n");
  put(dist_info + "/METADATA", wv::str_cat("Metadata-Version: 2.1\nName: ", name, "\nVersion: 1.0\n\n"));
  put(dist_info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
  put(dist_info + "/entry_points.txt", wv::str_cat("[console_scripts]\n", name, "-run = ", name, ":VALUE\n"));
  record += dist_info + "/RECORD,,\n";
  add(archive, dist_info + "/RECORD", record);
  if (zip_close(archive) != 0) return "";
  return path;
}

int run_shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string find_pip_python() {
  for (const char* candidate : {"/usr/bin/python3", "python3"}) {
    if (run_shell(wv::str_cat(candidate, " -m pip --version >/dev/null 2>&1")) == 0) return candidate;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--wheels") options.wheels = std::atoi(next().c_str());
    else if (arg == "--big") options.big = std::atoi(next().c_str());
    else if (arg == "--files") options.files = std::atoi(next().c_str());
    else if (arg == "--rounds") options.rounds = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--python") options.python = next();
    else if (arg == "--no-pip") options.pip = false;
    else if (arg == "--dir") options.dir = next();
    else {
      std::fprintf(stderr, "unknown option `%s`\n", arg.c_str());
      return 2;
    }
  }
  std::string dir_template = options.dir + "/wvlock-install-bench-XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) return 3;
  const std::string dir = dir_template;
  const std::string wheels = dir + "/wheels";
  fs::create_directories(wheels);

  // The closure: `big` wheels with many files, the rest small.
  std::mt19937 random(42);
  wv::lock::Lockfile lockfile;
  struct utsname uname_result;
  ::uname(&uname_result);
  const std::string machine = uname_result.machine;
  wv::lock::LockedTarget target;
  target.name = "any";
  target.declared = *wv::targets::target_from_facts("any", {{"platform", "linux-" + machine}});
  std::uint64_t total_bytes = 0;
  int total_files = 0;
  std::vector<std::string> paths;
  for (int w = 0; w < options.wheels; ++w) {
    int files = w < options.big ? options.files : 10 + static_cast<int>(random() % 20);
    total_files += files + 5;
    std::string path = build_wheel(wheels, w, files, random);
    if (path.empty()) {
      std::fprintf(stderr, "cannot write a wheel in %s\n", wheels.c_str());
      return 3;
    }
    paths.push_back(path);
    wv::lock::LockedPackage package;
    package.name = wv::str_cat("pkg", w);
    package.version = "1.0";
    wv::lock::LockedFile file;
    file.name = fs::path(path).filename().string();
    file.path = path;
    file.sha256 = wv::sha256_file_hex(path).value();
    file.size = fs::file_size(path);
    total_bytes += *file.size;
    package.wheels = {file};
    package.targets["any"].wheels = {file.name};
    target.roots.push_back(package.name + "==1.0");
    lockfile.packages.push_back(package);
  }
  lockfile.targets = {target};
  wv::lock::canonicalize(lockfile);

  wv::targets::HostProfile host;
  host.os.set(wv::targets::OsKind::kLinux, wv::targets::FactSource::kUname);
  host.arch.set(machine, wv::targets::FactSource::kUname);
  host.libc.set(wv::targets::LibcKind::kGlibc, wv::targets::FactSource::kLibc);
  host.libc_version.set({2, 35}, wv::targets::FactSource::kLibc);

  std::printf("closure: %d wheels (%d with %d files), %d files, %.1f MiB of wheels\n",
              options.wheels, options.big, options.files, total_files,
              static_cast<double>(total_bytes) / (1 << 20));

  double best_wvlock = 1e9;
  for (int round = 0; round < options.rounds; ++round) {
    const std::string venv = wv::str_cat(dir, "/venv", round);
    if (run_shell(wv::str_cat("python3 -m venv --without-pip ", venv)) != 0) return 3;
    wv::install::SyncOptions sync_options;
    sync_options.venv = venv;
    wv::install::LocalWheelStore store("");
    auto start = Clock::now();
    auto report = wv::install::sync(sync_options, lockfile, host, store);
    double elapsed = seconds_since(start);
    if (!report) {
      std::fprintf(stderr, "sync failed: %s\n", report.error().to_string().c_str());
      return 1;
    }
    best_wvlock = std::min(best_wvlock, elapsed);
  }
  std::printf("wvlock sync (fresh venv, verify + unpack + RECORD): %8.3f s (best of %d)\n",
              best_wvlock, options.rounds);

  if (options.pip) {
    std::string python = options.python.empty() ? find_pip_python() : options.python;
    if (python.empty()) {
      std::printf("pip: not available (no python with pip); ratio not measured\n");
    } else {
      std::string files;
      for (const std::string& path : paths) files += " " + path;
      for (bool compile : {true, false}) {
        double best_pip = 1e9;
        for (int round = 0; round < options.rounds; ++round) {
          const std::string target_dir = wv::str_cat(dir, "/pip", compile ? "c" : "n", round);
          auto start = Clock::now();
          int code = run_shell(wv::str_cat(python, " -m pip install -q --no-deps --no-index",
                                           " --disable-pip-version-check",
                                           compile ? "" : " --no-compile", " --target ",
                                           target_dir, files, " >/dev/null 2>&1"));
          double elapsed = seconds_since(start);
          if (code != 0) {
            std::printf("pip failed (exit %d)\n", code);
            break;
          }
          best_pip = std::min(best_pip, elapsed);
        }
        std::printf("%s -m pip install --target%-13s %8.3f s (best of %d)  ratio %.1fx\n",
                    python.c_str(), compile ? "" : " --no-compile", best_pip, options.rounds,
                    best_pip / best_wvlock);
      }
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
