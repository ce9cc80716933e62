// The versions a target's solve prefers (lock/resolve.cc): the previous lockfile's and the
// earlier targets' choices, each kept only where it costs the target no hardware.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/base/result.h"
#include "lock/python_provider.h"
#include "lock/resolve.h"

namespace wv::lock {

/// The preferences of one target: the existing lockfile's choice for this target, else the
/// version an earlier target chose (`earlier`: name -> version), else the existing lockfile's
/// choice for any target — each kept only when it does not give this target a lower wheel
/// class than its best version. Their listings, and the variants files the comparison reads,
/// are read as one batch each.
Result<std::vector<std::pair<PythonProvider::Package, int>>> preferences(
    PythonProvider& provider, const TargetContext& target,
    const std::map<std::string, std::string>& earlier, const ResolveOptions& options);

}  // namespace wv::lock
