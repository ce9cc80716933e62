// The venv: creation, interpreter facts, installed distributions, the sync lock.
#include "src/install/environment.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/pkg/name.h"
#include "src/base/process.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

// Printed one `key=value` per line; paths relative to sys.prefix so that a venv reached
// through a symlink still maps inside the root.
constexpr const char* kFactsScript = R"PY(
import os, platform, sys, sysconfig
p = sysconfig.get_paths()
v = sys.version_info
out = {
  "version": "%d.%d.%d" % (v[0], v[1], v[2]),
  "free_threaded": str(int(bool(sysconfig.get_config_var("Py_GIL_DISABLED")))),
  "implementation_name": sys.implementation.name,
  "implementation_version": "%d.%d.%d" % sys.implementation.version[:3],
  "os_name": os.name,
  "platform_machine": platform.machine(),
  "platform_python_implementation": platform.python_implementation(),
  "platform_release": platform.release(),
  "platform_system": platform.system(),
  "platform_version": platform.version(),
  "python_full_version": platform.python_version(),
  "python_version": "%d.%d" % (v[0], v[1]),
  "sys_platform": sys.platform,
  "headers": os.path.join("include", "site", "python%d.%d" % (v[0], v[1])),
  "base_executable": os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable),
}
for k in ("purelib", "platlib", "scripts", "data"):
  out[k] = os.path.relpath(p[k], sys.prefix)
for k, val in out.items():
  print(k + "=" + str(val).replace("\n", " "))
)PY";

Result<std::string> checked_scheme_path(std::string value, std::string_view key) {
  if (value == ".") value.clear();
  if (!value.empty() && (value.front() == '/' || !check_member_name(value).empty())) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("the interpreter's ", key, " folder ", in_backticks(value),
                              " is not inside the environment"));
  }
  return value;
}

}  // namespace

Result<std::string> absolute_venv_path(const std::string& path) {
  std::string text = absolute_path(path);
  if (text.empty() || text.front() != '/') {
    return make_error(ErrorCode::kIo, str_cat("cannot resolve ", in_backticks(path),
                                              ": the working folder cannot be read"));
  }
  return text;
}

Result<bool> ensure_venv(const std::string& venv, const std::string& base_python) {
  if (fs::exists(path_join(venv, "pyvenv.cfg"))) return false;
  auto output = run_process({base_python, "-m", "venv", "--without-pip", venv},
                                    std::chrono::seconds(120), {}, true);
  if (!output) {
    return make_error(ErrorCode::kIo, str_cat("cannot run ", in_backticks(base_python), ": ",
                                              output.error().message));
  }
  if (output->exit_code != 0) {
    return make_error(ErrorCode::kIo,
                      str_cat("`", base_python, " -m venv --without-pip ", venv, "` failed: ",
                              printable_text(trim(output->output))));
  }
  return true;
}

namespace {

/// What the facts script's answer depends on: the interpreter binary (symlinks followed), the
/// environment's pyvenv.cfg, and the kernel (platform_release and platform_version).
std::string facts_key(const std::string& root, const std::string& python) {
  RealFileSystem file_system;
  std::string key = str_cat("wvlock-interpreter 1 ", python);
  for (const std::string& path : {python, path_join(root, "pyvenv.cfg")}) {
    Result<FileInfo> info = file_system.stat_followed(path);
    if (!info) return "";
    key += str_cat(" ", info->device, ":", info->inode, ":", info->size, ":", info->modified_ns);
  }
  struct utsname names;
  if (::uname(&names) != 0) return "";
  return str_cat(key, " ", names.release, " ", names.version);
}

/// The facts script's output, from `root/.wvlock-interpreter` when its key still matches (a
/// no-op sync then starts no interpreter), else from running `python`.
Result<std::string> interpreter_answer(const std::string& root, const std::string& python,
                                       bool cacheable) {
  RealFileSystem file_system;
  const std::string cache = path_join(root, kFactsCacheName);
  const std::string key = cacheable ? facts_key(root, python) : std::string();
  if (!key.empty()) {
    if (Result<std::string> text = file_system.read_file(cache, Limit::kRecordBytes)) {
      if (text->compare(0, key.size() + 1, key + "\n") == 0) return text->substr(key.size() + 1);
    }
  }
  auto output = run_process({python, "-I", "-c", kFactsScript}, std::chrono::seconds(60),
                                    {"PYTHONHOME", "PYTHONPATH"});
  if (!output) return std::move(output).error();
  if (output->exit_code != 0) {
    return make_error(ErrorCode::kIo, str_cat("the environment's python ", in_backticks(python),
                                              " failed (exit ", output->exit_code, ")"));
  }
  // Only a hint: a failed write costs the next sync one interpreter start.
  if (!key.empty()) (void)file_system.write_file_atomic(cache, key + "\n" + output->output, false);
  return std::move(output->output);
}

}  // namespace

Result<InterpreterFacts> read_interpreter(const std::string& venv,
                                         const std::string& python_override) {
  WV_ASSIGN_OR_RETURN(std::string root, absolute_venv_path(venv));
  const std::string python =
      python_override.empty() ? path_join(root, "bin/python") : python_override;
  if (python_override.empty() && !fs::exists(python)) {
    return make_error(ErrorCode::kNotFound,
                      str_cat(in_backticks(root), " is not a virtual environment: no ",
                              in_backticks("bin/python")));
  }
  WV_ASSIGN_OR_RETURN(std::string answer, interpreter_answer(root, python, python_override.empty()));
  // ~20 `key=value` lines: a scan per key costs less than a map of copies.
  const std::vector<std::string_view> lines = split(answer, '\n');
  auto get = [&](std::string_view key) {
    std::string value;  // the last line of the key wins
    for (std::string_view line : lines) {
      if (line.size() > key.size() && line[key.size()] == '=' && line.substr(0, key.size()) == key) {
        value = std::string(line.substr(key.size() + 1));
      }
    }
    return value;
  };
  InterpreterFacts facts;
  facts.full_version = get("version");
  facts.base_executable = get("base_executable");
  WV_ASSIGN_OR_RETURN(facts.version, targets::parse_major_minor(get("python_version"),
                                                                "the interpreter's version"));
  facts.free_threaded = get("free_threaded") == "1";
  pkg::MarkerEnvironment& m = facts.markers;
  m.implementation_name = get("implementation_name");
  m.implementation_version = get("implementation_version");
  m.os_name = get("os_name");
  m.platform_machine = get("platform_machine");
  m.platform_python_implementation = get("platform_python_implementation");
  m.platform_release = get("platform_release");
  m.platform_system = get("platform_system");
  m.platform_version = get("platform_version");
  m.python_full_version = get("python_full_version");
  m.python_version = get("python_version");
  m.sys_platform = get("sys_platform");
  InstallScheme& scheme = facts.scheme;
  scheme.root = root;
  scheme.python = python;
  WV_ASSIGN_OR_RETURN(scheme.purelib, checked_scheme_path(get("purelib"), "purelib"));
  WV_ASSIGN_OR_RETURN(scheme.platlib, checked_scheme_path(get("platlib"), "platlib"));
  WV_ASSIGN_OR_RETURN(scheme.scripts, checked_scheme_path(get("scripts"), "scripts"));
  WV_ASSIGN_OR_RETURN(scheme.data, checked_scheme_path(get("data"), "data"));
  WV_ASSIGN_OR_RETURN(scheme.headers, checked_scheme_path(get("headers"), "headers"));
  if (scheme.purelib.empty() || scheme.scripts.empty()) {
    return make_error(ErrorCode::kIo, str_cat("cannot read the install scheme of ",
                                              in_backticks(python)));
  }
  return facts;
}

targets::HostProfile with_interpreter(targets::HostProfile host, const InterpreterFacts& facts) {
  // WVLOCK_OVERRIDE_PYTHON replaces the interpreter's answer too, as every override replaces
  // what it names (docs/targets.md §4): CI judges a lock's other Pythons without them.
  if (!host.python_version.known() || host.python_version.source != targets::FactSource::kOverride) {
    host.python_version.set(facts.version, targets::FactSource::kDeclared);
  }
  host.python_free_threaded.set(facts.free_threaded, targets::FactSource::kDeclared);
  return host;
}

Result<std::vector<InstalledDistribution>> list_installed(const InstallScheme& scheme) {
  std::vector<InstalledDistribution> result;
  std::vector<std::string> sites = {scheme.purelib};
  if (scheme.platlib != scheme.purelib) sites.push_back(scheme.platlib);
  RealFileSystem file_system;
  for (const std::string& site : sites) {
    const std::string site_path = path_join(scheme.root, site);
    if (!file_system.exists(site_path)) continue;
    WV_ASSIGN_OR_RETURN(auto entries, file_system.list_directory(site_path));
    for (const DirectoryEntry& entry : entries) {
      if (entry.type != FileType::kDirectory || entry.name.size() <= 10 ||
          entry.name.compare(entry.name.size() - 10, 10, ".dist-info") != 0) {
        continue;
      }
      InstalledDistribution distribution;
      distribution.dist_info = path_join(site, entry.name);
      const std::string folder = path_join(site_path, entry.name);
      // Name and version from METADATA; the folder name is the fallback.
      std::string stem = entry.name.substr(0, entry.name.size() - 10);
      std::size_t dash = stem.rfind('-');
      distribution.folder_name = stem.substr(0, dash);
      std::string stated_name = distribution.folder_name;
      if (dash != std::string::npos) distribution.version = stem.substr(dash + 1);
      if (auto metadata = file_system.read_file(path_join(folder, "METADATA"))) {
        for (std::string_view line : split(*metadata, '\n')) {
          if (trim(line).empty()) break;  // the body starts
          if (line.substr(0, 5) == "Name:") stated_name = std::string(trim(line.substr(5)));
          if (line.substr(0, 8) == "Version:") distribution.version = std::string(trim(line.substr(8)));
        }
      }
      if (auto name = pkg::parse_package_name(stated_name)) distribution.name = std::move(*name);
      if (auto installer = file_system.read_file(path_join(folder, "INSTALLER"))) {
        distribution.installer = std::string(trim(split(*installer, '\n').front()));
      }
      if (auto marker = file_system.read_file(path_join(folder, "WVLOCK"))) {
        for (std::string_view line : split(*marker, '\n')) {
          std::size_t equals = line.find('=');
          if (equals == std::string_view::npos) continue;
          std::string_view key = trim(line.substr(0, equals));
          std::string_view value = trim(line.substr(equals + 1));
          if (key == "wheel") distribution.wheel = std::string(value);
          if (key == "sha256") distribution.wheel_sha256 = std::string(value);
        }
      }
      result.push_back(std::move(distribution));
    }
  }
  std::sort(result.begin(), result.end(),
            [](const auto& a, const auto& b) { return a.shown_name() < b.shown_name(); });
  return result;
}

Result<std::vector<std::string>> installed_files(const InstallScheme& scheme,
                                                 const InstalledDistribution& distribution) {
  RealFileSystem file_system;
  const std::string record_path = path_join(path_join(scheme.root, distribution.dist_info), "RECORD");
  WV_ASSIGN_OR_RETURN(std::string text, file_system.read_file(record_path));
  WV_ASSIGN_OR_RETURN(std::vector<RecordRow> rows, parse_record(text, record_path));
  const fs::path site = fs::path(distribution.dist_info).parent_path();
  std::vector<std::string> files;
  for (const RecordRow& row : rows) {
    if (row.path.empty()) continue;
    fs::path relative = row.path.front() == '/'
                            ? fs::path(row.path).lexically_relative(scheme.root)
                            : (site / row.path).lexically_normal();
    std::string text_path = relative.generic_string();
    if (relative.empty() || text_path == "." || text_path.compare(0, 2, "..") == 0 ||
        text_path.front() == '/') {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(record_path), " lists ", in_backticks(row.path),
                                ", which is outside the environment; refusing to remove it"));
    }
    files.push_back(std::move(text_path));
  }
  return files;
}

Result<SyncLock> SyncLock::acquire(const std::string& venv) {
  const std::string path = path_join(venv, kLockName);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    return make_error(ErrorCode::kIo,
                      str_cat("cannot open the sync lock ", in_backticks(path), ": ",
                              std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int saved = errno;
    ::close(fd);
    if (saved == EWOULDBLOCK) {
      return make_error(ErrorCode::kUnavailable,
                        str_cat("another `wvlock sync` is changing ", in_backticks(venv),
                                " (it holds ", in_backticks(path), "); wait for it to finish"));
    }
    return make_error(ErrorCode::kIo,
                      str_cat("cannot lock ", in_backticks(path), ": ", std::strerror(saved)));
  }
  return SyncLock(fd);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace wv::install
