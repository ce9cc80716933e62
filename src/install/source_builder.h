// How sync gets a wheel for a package the lock says to build (an sdist, a source tree, a git
// commit or a source archive; DESIGN.md §2.2). install/ only states what it needs: the build
// layer (src/build) implements it with isolated PEP 517 builds, and the CLI wires it in, so
// install never reaches the solver.
#pragma once

#include <string>

#include "src/base/result.h"
#include "lock/lockfile.h"

namespace wv::install {

struct BuildRequest {
  const lock::LockedPackage* package = nullptr;
  /// A verified local copy of the package's sdist or archive (checked against the lock's
  /// sha256); "" for a directory or vcs entry.
  std::string archive_path;
  /// The source tree of a directory entry (absolute, subdirectory applied); "" otherwise.
  std::string directory;
  /// Build an editable wheel (PEP 660) instead of a regular one.
  bool editable = false;
  /// The interpreter of the environment being installed: the wheel is built for it.
  std::string python;
};

class SourceBuilder {
 public:
  virtual ~SourceBuilder() = default;
  /// The path of a wheel built from the request's source (possibly from the build cache). An
  /// error names the package and carries the backend's last lines.
  virtual Result<std::string> build_wheel(const BuildRequest& request) = 0;
};

}  // namespace wv::install
