// The Python a project locks for when neither a target nor `[tool.wvlock]` sets `python`, as uv
// picks a project's Python: the version `.python-version` in the project folder requests (its
// first line that is not a comment), else every version `.python-versions` lists, else the
// lowest minor among the interpreters found on PATH and in the usual places
// (install/python_request.h) that satisfies `requires-python`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/result.h"
#include "targets/project_file.h"

namespace wv::cli {

/// The versions a `.python-version` (`several` false: the first only) or `.python-versions`
/// file's text requests: `3.12`, `3.12.1` (the patch is dropped: a target's Python is `M.m`),
/// `python3.12`, `cpython@3.12`. Blank and `#` lines are skipped. An error names
/// `path:line:column` and what was expected.
Result<std::vector<targets::MajorMinor>> parse_python_version_file(std::string_view text,
                                                                   std::string_view path,
                                                                   bool several);

/// `.python-version`, else `.python-versions`, in `project_dir`; nullopt when neither exists.
Result<std::optional<std::vector<targets::MajorMinor>>> read_python_version_file(
    const FileSystem& file_system, const std::string& project_dir);

/// The answer for targets::read_project_file(): the version file, else the interpreters found.
targets::DefaultPythons project_default_pythons(const FileSystem& file_system);

}  // namespace wv::cli
