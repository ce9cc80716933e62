// The target Python environment (a venv, PEP 405): creating it, reading its interpreter's
// facts once (version, PEP 508 marker values, sysconfig install scheme), listing installed
// distributions (PyPA "Recording installed projects": *.dist-info with RECORD), and the
// per-environment sync lock (flock) that keeps two syncs apart. POSIX only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/install/wheel_unpack.h"
#include "src/pkg/name.h"
#include "src/pkg/marker_environment.h"
#include "targets/host_profile.h"

namespace wv::install {

/// `path` made absolute and normal, without a trailing `/`: how an environment's root is named.
Result<std::string> absolute_venv_path(const std::string& path);

/// What the environment's interpreter says about itself.
struct InterpreterFacts {
  targets::MajorMinor version;
  std::string full_version;  ///< 3.12.4
  /// The interpreter a venv's python runs, symlinks resolved (`sys._base_executable`): what
  /// tells two interpreters of one version apart.
  std::string base_executable;
  bool free_threaded = false;
  pkg::MarkerEnvironment markers;
  InstallScheme scheme;  ///< paths relative to scheme.root
};

/// Creates `venv` with `base_python -m venv --without-pip` when it has no pyvenv.cfg.
/// Returns true when it created it.
Result<bool> ensure_venv(const std::string& venv, const std::string& base_python);

/// Runs the environment's python once with a tiny script and reads its facts. The scheme's
/// folders must lie inside the environment. `python` overrides `{venv}/bin/python` (a dry run
/// on an environment that does not exist yet asks the base interpreter).
Result<InterpreterFacts> read_interpreter(const std::string& venv, const std::string& python = "");

/// The live host profile with the interpreter's Python facts (version, free-threading) in
/// place of whatever detection said; a WVLOCK_OVERRIDE_PYTHON version stays.
targets::HostProfile with_interpreter(targets::HostProfile host, const InterpreterFacts& facts);

/// One installed distribution.
struct InstalledDistribution {
  /// METADATA's Name (the folder's when METADATA names none), when it is a valid project name.
  /// Whatever else is installed has none: no lock names it, so sync removes it (or keeps it
  /// under --inexact), and it is shown by its folder.
  std::optional<pkg::PackageName> name;
  /// The name part of the dist-info folder as written (`Bad Name` of `Bad Name-1.0.dist-info`).
  std::string folder_name;
  /// name, or folder_name for a distribution without one: how plans and messages show it.
  std::string_view shown_name() const { return name ? std::string_view(name->str()) : folder_name; }
  std::string version;
  std::string dist_info;  ///< relative to the root
  std::string installer;  ///< INSTALLER's first line ("" when absent)
  std::string wheel;      ///< the wheel wvlock installed it from ("" when not wvlock)
  std::string wheel_sha256;
};

/// Every *.dist-info in purelib and platlib, sorted by name.
Result<std::vector<InstalledDistribution>> list_installed(const InstallScheme& scheme);

/// The files a distribution's RECORD lists, relative to the root, normalised; entries that
/// would leave the environment are refused (error), missing RECORD is an error.
Result<std::vector<std::string>> installed_files(const InstallScheme& scheme,
                                                 const InstalledDistribution& distribution);

/// An exclusive lock on `{venv}/.wvlock.lock` held while the object lives.
/// An flock held on an open file while the object lives (closing releases it): what the sync
/// lock and the cache lock (unpacked_cache.h) hold.
class FileLock {
 public:
  FileLock() = default;
  explicit FileLock(int fd) : fd_(fd) {}
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  ~FileLock();

 private:
  int fd_ = -1;
};

class SyncLock : public FileLock {
 public:
  /// Fails at once (kUnavailable) when another process holds it.
  static Result<SyncLock> acquire(const std::string& venv);
  using FileLock::FileLock;
};

/// The names wvlock keeps inside the environment root.
inline constexpr std::string_view kLockName = ".wvlock.lock";
/// The interpreter's facts kept for the next sync (read_interpreter).
inline constexpr std::string_view kFactsCacheName = ".wvlock-interpreter";
inline constexpr std::string_view kJournalName = ".wvlock-journal";
inline constexpr std::string_view kStagingPrefix = ".wvlock-staging";
inline constexpr std::string_view kTrashName = ".wvlock-trash";

}  // namespace wv::install
