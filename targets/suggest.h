// What to tell a user whose GPU host no GPU target of the lock serves (docs/targets.md §6,
// "Never a silent CPU build"): a ready-to-paste `[[tool.wvlock.target]]` for the live
// hardware, and the declaration of an existing target widened to serve it. Pure: no I/O.
#pragma once

#include <string>

#include "targets/host_profile.h"
#include "targets/match.h"
#include "targets/target.h"

namespace wv::targets {

/// A `[[tool.wvlock.target]]` table for the live host's `vendor` GPU, multi-line, ready to
/// paste: its platform and libc from `like` (a declared target of that vendor), its GPU facts
/// the live host's (a fact the host lacks, such as an unknown ROCm, taken from `like`).
std::string suggested_target(const HostProfile& live, const Target& like, GpuVendor vendor);

/// The one-line declaration that would let `declared` serve the live GPU, when widening can:
/// a compute capability the host's GPUs are above (`compute-capability = ">=9.0"`), gfx
/// architectures added to the list. "" when it cannot (the driver or ROCm is older than the
/// target's builds need, or unknown): a wider declaration would not make those builds run.
std::string widened_declaration(const Target& declared, const HostProfile& live, GpuVendor vendor);

}  // namespace wv::targets
