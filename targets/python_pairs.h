// A target declared with several Pythons (`python = ["3.11", "3.12"]`) is one target per
// Python: `gpu` becomes `gpu-py3.11` and `gpu-py3.12`, each resolved, locked and selected like
// any target (docs/targets.md "Several Pythons"). Real targets keep every later step unchanged:
// per-target tables in pylock.toml, selection by the live Python fact, exports, trees.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "targets/target.h"

namespace wv::targets {

/// `gpu` and 3.11 -> `gpu-py3.11`.
std::string python_pair_name(std::string_view declared_name, const MajorMinor& python);

/// One target per Python: `target` itself (name unchanged) for one Python, else a copy per
/// Python named by python_pair_name() with `declared_name` set. Python facts are kDeclared.
std::vector<Target> expand_pythons(const Target& target, const std::vector<MajorMinor>& pythons);

/// Whether `name` names `target`: its own name, or the name it was declared with (a source's
/// `targets = ["gpu"]` applies to every Python of `gpu`). Compared as target names are.
bool answers_to(const Target& target, std::string_view name);

}  // namespace wv::targets
