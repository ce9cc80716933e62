// The state record a sync that changed nothing leaves in the environment (`.wvlock-state`): the
// fingerprint of everything its outcome was computed from, the identity (device, inode, mode,
// size, modification and change times) of every file and folder it read, and what it printed.
// The next sync with the same fingerprint compares those identities with a few lstat calls and,
// when none changed, prints the same answer without parsing the lock, detecting the host,
// asking the interpreter or listing the distributions (docs/install.md, "The no-op fast path").
// Any difference means the full sync, which writes a new record when it again changed nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/install/wheel_unpack.h"

namespace wv::install {

inline constexpr std::string_view kStateName = ".wvlock-state";

/// The output the recorded sync printed, when `venv` holds a record made for `fingerprint` and
/// nothing it watched changed since; nullopt otherwise (no record, another fingerprint, a
/// change, or another sync holding the environment's lock).
std::optional<std::string> matching_state(const std::string& venv, std::string_view fingerprint);

/// What record_state() writes: `watched` are the caller's files (pyproject.toml, a path
/// source's metadata files, `.python-version`: an absent one is watched as absent); the
/// environment's own (its interpreter, install folders, every `*.dist-info` and its METADATA,
/// the journal's absence) are added from `scheme`.
struct StateRecord {
  std::string fingerprint;
  std::vector<std::string> watched;
  std::string output;
};

/// Writes the record of a sync that changed nothing (not durably: a lost record costs one full
/// sync). `since_ns` is the wall-clock time (ns since the epoch) the sync began reading its
/// inputs: when a watched path changed after a moment just before it, the change may have
/// come during the sync, or too close to it for time stamps to tell a later change apart, so
/// nothing is recorded (the next sync is a full one and records). Returns whether it recorded.
bool record_state(const InstallScheme& scheme, const StateRecord& record, std::int64_t since_ns);

/// Removes the environment's record; a sync that is about to change the environment calls it.
void forget_state(const std::string& venv);

/// The wall-clock time now, in ns since the epoch (for `since_ns`).
std::int64_t wall_clock_ns();

}  // namespace wv::install
