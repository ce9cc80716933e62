// One distribution, one name and version (pip refuses the same, "inconsistent name/version"):
// checked on the selection before anything is fetched.
#pragma once

#include "src/base/result.h"
#include "src/install/select.h"
#include "lock/lockfile.h"

namespace wv::install {

/// The lock's entries, their wheels' file names and the plan must agree on each distribution:
/// two entries of one normalised name would share one dist-info slot and each remove the
/// other's files, and a wheel of another version would make the next sync misread what is
/// installed.
Result<void> check_selection(const lock::Lockfile& lockfile, const TargetChoice& selection);

}  // namespace wv::install
