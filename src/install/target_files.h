// The files a target installs (docs/install.md, "Checking the locked files"): every wheel it
// keeps (the live host may pick any of them) and the sdist or archive of each package it
// builds. One rule for `wvlock check`, which verifies them, and `wvlock fetch`, which
// downloads them.
#pragma once

#include <vector>

#include "lock/lockfile.h"

namespace wv::install {

/// The files `use` (one target's use of `package`) installs: every kept wheel, or, when it
/// keeps none, the sdist or archive it builds from (none for a folder or a git commit).
std::vector<const lock::LockedFile*> files_of(const lock::LockedPackage& package,
                                              const lock::TargetUse& use);

}  // namespace wv::install
