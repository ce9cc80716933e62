// The targets of a project that declares no `[[tool.wvlock.target]]` (docs/targets.md "A
// project without targets"): one per platform uv's `environments` / `required-environments`
// name, else this host's (named `host`, its platform, libc or macOS version and accelerators
// as detected). uv's `conflicts` split such a target in one per choice of conflicting extras,
// so conflicting extras never meet in one resolution. Pure: detection is the caller's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "targets/host_profile.h"
#include "targets/target.h"

namespace wv::targets {

/// The name of the target made for this host.
inline constexpr std::string_view kHostTargetName = "host";

/// A target for the live host `live`: its platform, glibc/musl or macOS version and its GPUs
/// (CUDA driver and compute capabilities, ROCm and gfx, Intel device IPs) as declared facts;
/// no Python (the project's default is added by the reader). kUnsupported when the host's OS
/// or architecture has no platform shorthand.
Result<Target> host_target(const HostProfile& live, std::string name = std::string(kHostTargetName));

/// A target of platform `shorthand` with its implied facts only (glibc 2.28, macOS 13.0, the
/// CPU baselines); no Python.
Result<Target> platform_target(std::string name, std::string_view shorthand);

/// The platform shorthand (`linux-x86_64`, `macos-arm64`, ...) a uv environment marker names:
/// the first of linux-x86_64, linux-aarch64, macos-arm64, macos-x86_64, windows-amd64,
/// windows-arm64 whose marker environment (with Python `python`) satisfies `marker`; nullopt
/// when none does (a marker that names no platform, or only others). An error when the marker
/// does not parse.
Result<std::optional<std::string>> environment_platform(std::string_view marker,
                                                        const MajorMinor& python);

/// One conflict set of uv's `conflicts`: extras (PEP 685 normalised) that must not be
/// installed together.
using ConflictSet = std::vector<std::string>;

/// `target` locking every extra of `extras`, split in one target per way to take at most one
/// extra of each conflict set (`host` with `conflicts = [["cpu", "cu128"]]` -> `host-cpu`
/// locking cpu, `host-cu128` locking cu128, each with every extra no conflict names). A target
/// with no conflicting extra stays one target.
std::vector<Target> split_conflicting_extras(const Target& target,
                                             const std::vector<std::string>& extras,
                                             const std::vector<ConflictSet>& conflicts);

}  // namespace wv::targets
