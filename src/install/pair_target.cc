#include "src/install/pair_target.h"

#include <vector>

#include "src/base/str.h"
#include "targets/target.h"

namespace wv::install {

Result<std::string> pair_target(const lock::Lockfile& lockfile, const targets::HostProfile& live,
                                const std::string& forced) {
  if (forced.empty() || lockfile.find_target(forced) != nullptr) return forced;
  std::vector<std::string> pairs;
  for (const lock::LockedTarget& target : lockfile.targets) {
    const targets::Target& declared = target.declared;
    if (declared.declared_name.empty() ||
        !targets::same_target_name(declared.declared_name, forced)) {
      continue;
    }
    if (live.python_version.known() && declared.profile.python_version.known() &&
        *declared.profile.python_version.value == *live.python_version.value) {
      return target.name;
    }
    pairs.push_back(target.name);
  }
  if (pairs.empty()) return forced;
  const std::string python = live.python_version.known()
                                 ? str_cat("Python ", live.python_version.value->to_string())
                                 : std::string("an unknown Python");
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("`--target ", forced, "`: the lock has it for other Pythons (",
                            join_backticked(pairs), "), and the environment has ", python))
      .with_note("hint: name one (`--target " + pairs.front() +
                 "`), or sync an environment of its Python (`--python`)");
}

}  // namespace wv::install
