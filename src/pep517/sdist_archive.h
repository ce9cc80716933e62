// Source distributions as archives (PyPA source distribution format): a `.tar.gz` or a `.zip`
// holding one top-level folder `{name}-{version}/` with PKG-INFO in it. An sdist is outside
// input, so every member is checked before anything is written: relative paths inside the one
// top-level folder, no `..`, no device or FIFO members, links only to what the tree itself
// holds, at most the sdist-bytes limit in all. libzip is used only in sdist_archive.cc.
#pragma once

#include <string>

#include "src/base/result.h"

namespace wv::build {

/// The PKG-INFO text of an sdist (.tar.gz, .tgz or .zip): the file `<top>/PKG-INFO` where
/// <top> is the single top-level folder; bounded by the metadata-bytes limit. kNotFound when it
/// has none. The whole archive is checked as unpack_sdist checks it, so both accept the same
/// files.
Result<std::string> read_sdist_pkg_info(const std::string& archive_path);

/// Unpacks the sdist into `destination` (created; it must not exist) and returns the path of
/// its single top-level folder (the source tree). The tree is made under a temporary name
/// beside `destination` and renamed, so `destination` is complete or absent.
Result<std::string> unpack_sdist(const std::string& archive_path, const std::string& destination);

}  // namespace wv::build
