// `--python` (uv's convention): a path or executable name, or a version request (`3.12`,
// `3.11.4`, `python3.12`, `cpython3.12`, `cpython@3.12`) met by the first interpreter found on
// PATH and in the usual places (platform::interpreter_places: on Linux /usr/bin, /usr/local/bin,
// ~/.pyenv/versions/*/bin, ~/.local/share/uv/python/*/bin) whose own answer matches.
// Candidates are asked, never judged by their file name: a `python3` may be any version.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/base/result.h"
#include "src/install/environment.h"

namespace wv::install {

struct PythonRequest {
  std::string text;  ///< as given
  /// A path or a bare executable name; "" for a version request.
  std::string executable;
  /// 1 to 3 parts (`3`, `3.12`, `3.12.4`); empty: any version.
  std::vector<int> version;
  bool cpython_only = false;  ///< `cpython3.12`, `cpython@3.12`
};

/// Reads `text`: a version request when it is one (optionally `python`/`cpython` before it,
/// `@` or `-` between), otherwise an executable (a path when it holds a `/`).
Result<PythonRequest> parse_python_request(std::string_view text);

/// `3.12` or `cpython 3.12` for messages.
std::string describe(const PythonRequest& request);

/// Whether an interpreter meets a version request (a path request is met only by the
/// interpreter it names: same_interpreter()).
bool satisfies(const InterpreterFacts& facts, const PythonRequest& request);

/// Whether two interpreters are the same one: same base executable (symlinks resolved) and
/// same full version.
bool same_interpreter(const InterpreterFacts& a, const InterpreterFacts& b);

/// Where to look: the PATH variable's value and the home folder ("" when unset).
struct PythonSearch {
  std::string path_variable;
  std::string home;
};

/// The folders looked in, in order: PATH's, then the system's (platform::interpreter_places: on
/// Linux /usr/bin, /usr/local/bin, the pyenv and uv installations, newest first).
std::vector<std::string> python_search_folders(const PythonSearch& search);

/// The interpreter a request names: the executable itself (a bare name looked up on PATH), or
/// the first candidate whose answer matches the version request. kInvalidInput naming where
/// it looked and what each candidate was when none matches.
Result<std::string> find_python(const PythonRequest& request, const PythonSearch& search);

/// One interpreter found.
struct FoundPython {
  std::string path;
  InterpreterFacts facts;
};

/// Every interpreter in the folders find_python() looks in (`python3`, `python3.N`), each asked
/// once (symlinks resolved), in search order. Candidates that do not answer are skipped.
std::vector<FoundPython> find_pythons(const PythonSearch& search);

}  // namespace wv::install
