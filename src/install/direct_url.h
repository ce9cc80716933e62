// What `direct_url.json` (PEP 610, "Recording the Direct URL Origin of installed
// distributions") a package gets when sync installs it. The spec records where a distribution
// came from only when it was not installed by name and version: a wheel or archive named by a
// path or URL, a folder (the project too; `dir_info.editable` when installed editable), a git
// commit. A wheel or sdist from an index or a find-links folder gets none, so `pip freeze` reads
// it as `name==version`, the same on every machine.
#pragma once

#include <string>

#include "src/install/sync.h"
#include "lock/lockfile.h"

namespace wv::install {

/// Whether the lock names `package` by where it is rather than by name and version: a source
/// tree, a git commit, a source archive, or wheels of an entry without `index` (a path or URL
/// source, a PEP 508 direct reference).
bool is_direct_reference(const lock::LockedPackage& package);

/// The content of `direct_url.json` for `package`, "" when it gets none. `wheel` is the locked
/// wheel being installed (nullptr when the package is built from source); `local_path` the
/// verified local copy of that wheel or of the archive built (absolute; "" for none): a file
/// the lock names by path is recorded as its `file://` URL, one named by URL as that URL.
std::string direct_url_json(const lock::LockedPackage& package, const lock::LockedFile* wheel,
                            const std::string& local_path, const SyncOptions& options);

}  // namespace wv::install
