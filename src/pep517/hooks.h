// Calling a PEP 517 / PEP 660 build backend hook: our runner script (hook_script.h) runs in the
// build environment's interpreter, with the source tree as its working folder, in a clean
// environment (nothing of the caller's: no PYTHONPATH, no pip configuration, HOME and TMPDIR
// of its own), under the build-seconds limit, and its process group dies with it.
// nlohmann is used only in hooks.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"

namespace wv::build {

enum class Hook {
  kGetRequiresForBuildWheel,
  kGetRequiresForBuildEditable,
  kPrepareMetadataForBuildWheel,
  kPrepareMetadataForBuildEditable,
  kBuildWheel,
  kBuildEditable,
  kBuildSdist,
};

/// The hook's Python name: "build_wheel".
std::string_view hook_name(Hook hook);

struct HookCall {
  std::string python;      ///< the build environment's interpreter (absolute: a venv's bin/python)
  std::string source_dir;  ///< the source tree: the hook's working folder (absolute)
  std::string backend;     ///< build-backend: "setuptools.build_meta" or "pkg.mod:obj"
  /// PEP 517 backend-path entries, relative to source_dir; the backend must be imported from
  /// one of them when there are any.
  std::vector<std::string> backend_path;
  Hook hook = Hook::kBuildWheel;
  /// wheel_directory / metadata_directory / sdist_directory (absolute, existing).
  std::string output_dir;
  /// build_wheel / build_editable: the parent of a prepared .dist-info, "" = none.
  std::string metadata_directory;
  /// An empty folder (absolute, existing) for the runner script, its request and result,
  /// HOME and TMPDIR.
  std::string work_dir;
  /// Names the package in messages: "demo 1.0 (sdist demo-1.0.tar.gz)".
  std::string what;
  /// NAME=value entries added to the clean environment.
  std::vector<std::string> extra_environment;
};

struct HookResult {
  /// The backend has no such hook (or, for build_sdist, raised its UnsupportedOperation): the
  /// caller falls back to PEP 517's defaults (get_requires_* -> [], prepare_metadata_* -> build
  /// the wheel and read its metadata). Never set for build_wheel, which PEP 517 requires.
  bool hook_missing = false;
  /// get_requires_*: the returned requirements.
  std::vector<std::string> requirements;
  /// prepare_metadata_*: the .dist-info folder's name; build_*: the file created in output_dir.
  std::string basename;
  /// The last lines (at most kHookLogLines) of the backend's stdout and stderr together.
  std::string log_tail;
};

/// How many lines of a backend's output a result or an error keeps.
inline constexpr std::size_t kHookLogLines = 40;

/// Runs one hook. Errors (each naming `call.what` and the hook, with the backend's last lines
/// of output as notes): kNotFound when the interpreter cannot be started, kLimit when the hook
/// ran past the build-seconds limit, kInvalidInput for a backend PEP 517 does not allow
/// (outside backend-path), kUnavailable when the backend cannot be imported, failed or
/// answered nonsense.
Result<HookResult> call_hook(const HookCall& call);

}  // namespace wv::build
