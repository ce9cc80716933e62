// Test helper: writes real wheel files (zip) with libzip, including deliberately broken ones
// (lying RECORD, `..` names, symlink entries), and the LockedFile entries that describe them.
#pragma once

#include <string>
#include <vector>

#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::test {

struct WheelEntry {
  WheelEntry(std::string entry_name, std::string entry_content, bool is_executable = false,
             bool is_symlink = false, bool is_in_record = true, std::string hash = "")
      : name(std::move(entry_name)), content(std::move(entry_content)),
        executable(is_executable), symlink(is_symlink), in_record(is_in_record),
        record_hash(std::move(hash)) {}
  std::string name;
  std::string content;
  bool executable = false;
  bool symlink = false;       ///< stored with the unix symlink mode (content = link target)
  bool in_record = true;      ///< listed in RECORD
  std::string record_hash;    ///< overrides the RECORD hash when not empty
};

struct WheelSpec {
  std::string name;     ///< distribution name as written in the filename (`my_pkg`)
  std::string version;
  std::string build;    ///< build tag, "" for none
  std::string tags = "py3-none-any";
  std::string label;    ///< variant label, "" for none
  bool root_is_purelib = true;
  std::string entry_points;  ///< entry_points.txt content, "" for none
  std::vector<WheelEntry> files;
  /// Deliberately inconsistent wheels: the METADATA text ("" for `Name: {name}`, `Version:
  /// {version}`) and the .dist-info folder's stem ("" for `{name}-{version}`).
  std::string metadata;
  std::string dist_info_stem;
};

/// `{name}-{version}[-{build}]-{tags}[-{label}].whl`
std::string wheel_filename(const WheelSpec& spec);
/// Writes the wheel into `dir` (METADATA, WHEEL and RECORD added) and returns its path.
std::string build_wheel(const WheelSpec& spec, const std::string& dir);
/// A LockedFile for a wheel on disk: `path` absolute, sha256 and size of the file.
lock::LockedFile locked_file(const std::string& path);
/// This machine's architecture (uname), for a target's `platform`.
std::string machine();
/// A Linux host profile of this machine's architecture with glibc 2.35 (a sync's live host).
targets::HostProfile live_host();
/// Runs a shell command; returns its exit code and fills `output` with stdout+stderr.
int run_command(const std::string& command, std::string* output = nullptr);
/// The same as a test step: checks the exit code and returns the output.
std::string run_checked(const std::string& command, int expected_exit = 0);
/// One valid target `cpu` of this machine whose closure is every given wheel, each its own
/// package (the name and version its file name says).
lock::Lockfile lock_of_wheels(const std::vector<lock::LockedFile>& files);

}  // namespace wv::test
