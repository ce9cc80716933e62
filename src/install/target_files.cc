#include "src/install/target_files.h"

#include "src/install/built_sources.h"

namespace wv::install {

std::vector<const lock::LockedFile*> files_of(const lock::LockedPackage& package,
                                              const lock::TargetUse& use) {
  std::vector<const lock::LockedFile*> files;
  for (const std::string& wheel : use.wheels) {
    if (const lock::LockedFile* file = package.find_wheel(wheel)) files.push_back(file);
  }
  if (use.wheels.empty()) {
    if (const lock::LockedFile* source = source_file(package)) files.push_back(source);
  }
  return files;
}

}  // namespace wv::install
