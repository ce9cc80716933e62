// Paths read from a tree wvlock did not write (a git checkout, an unpacked sdist, a source
// folder, a `subdirectory` of one): every symbolic link on the way is followed, and the end must
// stay inside the tree. A commit or an archive may hold links to anywhere; without this a
// `pyproject.toml` linked to a file of the user's would be read as the package's, and a
// subdirectory linked to a folder of the user's would be built there.
#pragma once

#include <string>
#include <string_view>

#include "src/base/result.h"

namespace wv {

/// The real path (absolute, every link resolved) of `relative` inside the folder `root` (itself
/// resolved first: a root reached through a link the user gave is fine). "" is the root.
/// kNotFound when it does not exist (a dangling link included); kInvalidInput when it ends
/// outside the root, the message naming `relative`, `what` (the tree, as "the checkout of git
/// `URL` at commit 0123abcd") and where it leads.
Result<std::string> resolve_inside(const std::string& root, std::string_view relative,
                                   std::string_view what);

}  // namespace wv
