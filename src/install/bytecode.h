// `--compile-bytecode` (uv's flag; pip compiles by default): the staged modules of a sync are
// byte-compiled by the environment's own interpreter, several processes at once, before the
// commit, so the `.pyc` files move in with their sources and are listed in RECORD (an
// uninstall removes them). Each `.pyc` names the module's final path (`dfile`), not its staged
// one, and uses timestamp invalidation, which the commit's renames keep valid. A module that
// does not compile (a template, another Python's syntax) is left without a `.pyc`, as pip's
// compileall leaves it.
#pragma once

#include <string>
#include <vector>

#include "src/base/result.h"

namespace wv::install {

/// One module to compile: where it is staged and where it will be installed (both absolute).
struct CompileJob {
  std::string staged;
  std::string installed;
};

/// A `.pyc` written next to its staged module (`__pycache__/NAME.TAG.pyc`), absolute.
struct CompiledFile {
  std::size_t job = 0;  ///< the index of its CompileJob
  std::string pyc;
};

/// Compiles `jobs` with `python`, `workers` processes at once (0: one per core). `scratch` is a
/// folder for the job lists. An error only when the interpreter cannot run at all.
Result<std::vector<CompiledFile>> compile_bytecode(const std::string& python,
                                                   const std::vector<CompileJob>& jobs,
                                                   const std::string& scratch,
                                                   unsigned workers = 0);

}  // namespace wv::install
