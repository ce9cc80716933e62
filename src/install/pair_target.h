// `--target NAME` where NAME is a target declared with several Pythons (`gpu`, locked as
// `gpu-py3.11` and `gpu-py3.12`, targets/python_pairs.h): the environment's interpreter picks
// the pair, as selection does without `--target`.
#pragma once

#include <string>

#include "src/base/result.h"
#include "lock/lockfile.h"
#include "targets/host_profile.h"

namespace wv::install {

/// The lock's name for `forced`: `forced` itself when the lock declares it; the pair of the
/// declared name `forced` whose Python is the live host's. kInvalidInput when no pair is for
/// this Python (naming the pairs and `--python`); an unknown name is returned unchanged for
/// the caller's own error.
Result<std::string> pair_target(const lock::Lockfile& lockfile, const targets::HostProfile& live,
                                const std::string& forced);

}  // namespace wv::install
