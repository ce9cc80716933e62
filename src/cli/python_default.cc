#include "src/cli/python_default.h"

#include <algorithm>
#include <cstdlib>

#include "src/base/str.h"
#include "src/install/python_request.h"
#include "src/pkg/specifier.h"
#include "src/pkg/version.h"

namespace wv::cli {
namespace {

// One request line as the Python a target locks for.
Result<targets::MajorMinor> line_version(std::string_view request_text) {
  Result<install::PythonRequest> request = install::parse_python_request(request_text);
  if (!request || !request->executable.empty() || request->version.size() < 2 ||
      request->version[0] != 3) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(request_text),
                              " is not a CPython 3 version wvlock can lock for: expected a "
                              "version such as `3.12`, `3.12.1` or `cpython@3.12`"));
  }
  return targets::MajorMinor{request->version[0], request->version[1]};
}

// The lowest minor among the interpreters found that requires-python admits (as the lock
// checks a target's Python: `M.m.0`).
Result<std::vector<targets::MajorMinor>> found_pythons(const targets::ProjectConfig& config) {
  std::optional<pkg::SpecifierSet> allowed;
  if (config.requires_python) {
    auto parsed = pkg::parse_specifier_set(*config.requires_python);
    if (!parsed) return std::move(parsed).error().with_context("the project's requires-python");
    allowed = std::move(*parsed);
  }
  install::PythonSearch search;
  if (const char* path = std::getenv("PATH")) search.path_variable = path;
  if (const char* home = std::getenv("HOME")) search.home = home;
  std::optional<targets::MajorMinor> lowest;
  std::vector<std::string> seen;
  for (const install::FoundPython& found : install::find_pythons(search)) {
    const targets::MajorMinor version = found.facts.version;
    seen.push_back(str_cat(found.path, " is ", found.facts.full_version));
    if (found.facts.markers.implementation_name != "cpython") continue;
    const pkg::Version floor = pkg::Version::from_release(
        {std::uint64_t(version.major), std::uint64_t(version.minor), 0});
    if (allowed && !allowed->contains(floor, true)) continue;
    if (!lowest || version < *lowest) lowest = version;
  }
  if (lowest) return std::vector<targets::MajorMinor>{*lowest};
  return make_error(ErrorCode::kInvalidInput,
                    str_cat(in_backticks(config.path),
                            ": no target sets `python`, there is no `.python-version`, and no "
                            "interpreter found on PATH or in the usual places satisfies "
                            "requires-python ",
                            in_backticks(config.requires_python.value_or("(any)"))))
      .with_note(seen.empty() ? std::string("no interpreter answered")
                              : str_cat("found: ", join(seen, "; ")))
      .with_note("hint: set `python = \"3.12\"` in `[tool.wvlock]` or write a `.python-version`");
}

}  // namespace

Result<std::vector<targets::MajorMinor>> parse_python_version_file(std::string_view text,
                                                                   std::string_view path,
                                                                   bool several) {
  std::vector<targets::MajorMinor> versions;
  int line_number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_number;
    const std::size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos || line[start] == '#') continue;
    std::string_view request = line.substr(start);
    while (!request.empty() && (request.back() == ' ' || request.back() == '\t' ||
                                request.back() == '\r')) {
      request.remove_suffix(1);
    }
    Result<targets::MajorMinor> version = line_version(request);
    if (!version) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(path), ":", line_number, ":", start + 1, ": ",
                                version.error().message));
    }
    if (std::find(versions.begin(), versions.end(), *version) == versions.end()) {
      versions.push_back(*version);
    }
    if (!several) break;
  }
  if (versions.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(in_backticks(path), ": names no Python version"));
  }
  return versions;
}

Result<std::optional<std::vector<targets::MajorMinor>>> read_python_version_file(
    const FileSystem& file_system, const std::string& project_dir) {
  // uv's order for a project: the one-version file first.
  for (bool several : {false, true}) {
    const std::string path =
        path_join(project_dir, several ? ".python-versions" : ".python-version");
    Result<std::string> text = file_system.read_file(path);
    if (!text) {
      if (text.error().code == ErrorCode::kNotFound) continue;
      return text.error();
    }
    WV_ASSIGN_OR_RETURN(auto versions, parse_python_version_file(*text, path, several));
    return std::optional<std::vector<targets::MajorMinor>>(std::move(versions));
  }
  return std::optional<std::vector<targets::MajorMinor>>();
}

targets::DefaultPythons project_default_pythons(const FileSystem& file_system) {
  return [&file_system](const targets::ProjectConfig& config)
             -> Result<std::vector<targets::MajorMinor>> {
    WV_ASSIGN_OR_RETURN(auto from_file, read_python_version_file(file_system, config.project_dir));
    if (from_file) return std::move(*from_file);
    return found_pythons(config);
  };
}

}  // namespace wv::cli
