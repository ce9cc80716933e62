// Declared targets (DESIGN.md §1–§2): a name plus a host profile written in pyproject.toml,
// the platform shorthands (`linux-x86_64`, `linux-musl-aarch64`, `macos-arm64`,
// `windows-amd64`, ...), and the expansion of a host profile into the PEP 508 marker
// environment and the ordered PEP 425 tag list (pkg::compatible_tags). Cheap to include.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/pkg/marker_environment.h"
#include "src/pkg/tags.h"
#include "targets/host_profile.h"

namespace wv::targets {

/// What a platform shorthand means.
struct Platform {
  OsKind os = OsKind::kLinux;
  std::string arch;  ///< canonical: x86_64 or aarch64
  LibcKind libc = LibcKind::kGlibc;  ///< Linux only
};

/// The shorthands wvlock accepts, for messages and docs.
inline constexpr std::string_view kPlatformShorthands[] = {
    "linux-x86_64",      "linux-aarch64", "linux-musl-x86_64", "linux-musl-aarch64",
    "macos-arm64",       "macos-x86_64",  "windows-amd64",     "windows-arm64"};

/// Parses a platform shorthand (case-sensitive, as listed in kPlatformShorthands); the error
/// lists the accepted names.
Result<Platform> parse_platform(std::string_view shorthand);

/// The default libc/macOS version of a platform when a target gives none, as uv's
/// `x86_64-unknown-linux-gnu` and `aarch64-apple-darwin` assume: glibc 2.28 (manylinux_2_28),
/// musl 1.2, macOS 13.0.
MajorMinor default_platform_version(const Platform& platform);

/// A target name: letters, digits, `-`, `_`, `.`, starting with a letter or digit (so it is
/// safe in a file name: `pylock.NAME.toml`). Checked wherever a name is read.
bool is_valid_target_name(std::string_view name);

/// The form target names are compared in: a package name's normalization (lower case, each run
/// of `-`, `_`, `.` as one `-`), so `CPU`, `cpu` and `Cpu` name one target everywhere. A target
/// keeps the spelling it was declared with.
std::string normalize_target_name(std::string_view name);
bool same_target_name(std::string_view a, std::string_view b);

/// Records a target's declared `compute-capability` entries in `profile`: each `X.Y` (serves
/// X.Z, Z >= Y) or `>=X.Y` (serves every capability at or above X.Y; at most one). Both the
/// project file and the lockfile's facts go through here. An error says what was expected.
Result<void> set_declared_capabilities(const std::vector<std::string>& entries, HostProfile& profile);

/// A declared target.
struct Target {
  std::string name;
  std::string platform;  ///< the shorthand as written
  HostProfile profile;   ///< declared facts (source kDeclared; implied ones kDefault)
  /// Project extras this target locks and installs (`extras = ["cuda"]`), as written.
  std::vector<std::string> extras;
  /// The name written in pyproject.toml when this target is one Python of a target declared
  /// with several (`gpu` for `gpu-py3.11`, targets/python_pairs.h); "" otherwise.
  std::string declared_name;

  bool operator==(const Target&) const = default;
};

/// A declared target's facts in pyproject.toml spelling, as the lockfile records them:
/// `platform`, `python`, `glibc` or `musl`, `macos`, `x86-64-level`, `aarch64-version`,
/// `cuda-driver`, `compute-capability`, `rocm`, `gfx`, `intel-device-ip` (lists comma-joined).
/// Only declared facts (and the platform and Python) are written; implied ones are not.
std::map<std::string, std::string> declared_facts(const Target& target);

/// The inverse of declared_facts(): a Target whose profile has the declared facts (source
/// kDeclared) and the platform's implied ones (kDefault), with `properties` as its declared
/// raw provider answers. An error names the key and what was expected.
Result<Target> target_from_facts(std::string name, const std::map<std::string, std::string>& facts,
                                 std::map<std::string, pkg::FeatureValues> properties = {});

/// The PEP 508 marker environment of a host profile (needs os, arch and python_version).
/// `python_full_version` is `M.m.0` unless the profile knows more; platform_release and
/// platform_version are empty (unknown for a declared target).
Result<pkg::MarkerEnvironment> marker_environment(const HostProfile& host);

/// The marker environment as far as `host` knows it: like marker_environment() but never fails;
/// unknown values stay "" (for provider enable-if on a live host whose Python is not known yet).
pkg::MarkerEnvironment partial_marker_environment(const HostProfile& host);

/// The tag platform of a host profile (needs os, arch, python; libc/macOS version when known).
Result<pkg::TagPlatform> tag_platform(const HostProfile& host);

/// The ordered compatible tags of a host profile (most preferred first).
Result<std::vector<pkg::Tag>> compatible_tags(const HostProfile& host);

/// A one-line summary: `linux x86_64 glibc 2.28 python 3.12 cuda 12.8 sm 9.0`.
std::string describe(const HostProfile& host);

}  // namespace wv::targets
