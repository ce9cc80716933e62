// `--python`: parsing a request and finding the interpreter that meets it.
#include "src/install/python_request.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "src/base/file_system.h"
#include "src/base/platform.h"
#include "src/base/str.h"
#include "src/pkg/version.h"

namespace wv::install {
namespace {

namespace fs = std::filesystem;

// `3`, `3.12`, `3.12.4`: digits only, 1 to 3 parts.
std::optional<std::vector<int>> parse_version_parts(std::string_view text) {
  std::vector<int> parts;
  for (std::string_view part : split(text, '.')) {
    std::optional<std::uint64_t> number = parse_uint64(part);
    if (!number || part.empty() || *number > 1000) return std::nullopt;
    parts.push_back(static_cast<int>(*number));
  }
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  return parts;
}

std::string version_text(const std::vector<int>& version) {
  std::vector<std::string> parts;
  for (int part : version) parts.push_back(std::to_string(part));
  return join(parts, ".");
}

bool is_executable_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The executable names that may answer a request, most specific first.
std::vector<std::string> candidate_names(const PythonRequest& request) {
  std::vector<std::string> names;
  if (request.version.size() >= 2) {
    names.push_back(str_cat("python", request.version[0], ".", request.version[1]));
  }
  names.push_back(request.version.empty() ? std::string("python3")
                                          : str_cat("python", request.version[0]));
  names.push_back("python");
  return names;
}

// Sub-folders of `root` holding a `bin`, newest version first (the folder names start with a
// version, `3.12.1` or `cpython-3.12.1-linux-x86_64-gnu`).
std::vector<std::string> installations(const std::string& root) {
  std::vector<std::pair<std::string, std::string>> found;  // (name, bin)
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string bin = (it->path() / "bin").string();
    if (fs::is_directory(bin, ec)) found.emplace_back(it->path().filename().string(), bin);
  }
  auto key = [](const std::string& name) {
    std::size_t start = name.find_first_of("0123456789");
    std::string rest = start == std::string::npos ? std::string() : name.substr(start);
    std::size_t stop = rest.find_first_not_of("0123456789.");
    Result<pkg::Version> parsed = pkg::parse_version(rest.substr(0, stop));
    return parsed ? std::optional<pkg::Version>(*parsed) : std::nullopt;
  };
  std::sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
    std::optional<pkg::Version> va = key(a.first);
    std::optional<pkg::Version> vb = key(b.first);
    if (va && vb && !(*va == *vb)) return *vb < *va;
    if (va.has_value() != vb.has_value()) return va.has_value();
    return a.first > b.first;
  });
  std::vector<std::string> bins;
  for (auto& [name, bin] : found) bins.push_back(std::move(bin));
  return bins;
}

std::vector<int> full_version_parts(const InterpreterFacts& facts) {
  return parse_version_parts(facts.full_version).value_or(std::vector<int>{});
}

}  // namespace

Result<PythonRequest> parse_python_request(std::string_view text) {
  PythonRequest request;
  request.text = std::string(text);
  if (text.empty()) {
    return make_error(ErrorCode::kInvalidInput,
                      "`--python` needs a value: a path, or a version such as `3.12`");
  }
  std::string_view rest = text;
  bool named = false;
  if (rest.substr(0, 7) == "cpython") {
    request.cpython_only = true;
    rest.remove_prefix(7);
    named = true;
  } else if (rest.substr(0, 6) == "python") {
    rest.remove_prefix(6);
    named = true;
  }
  if (named && !rest.empty() && (rest.front() == '@' || rest.front() == '-')) rest.remove_prefix(1);
  if (rest.empty() && named) return request;  // `python`, `cpython`: any version
  if (std::optional<std::vector<int>> version = parse_version_parts(rest)) {
    request.version = std::move(*version);
    return request;
  }
  request.cpython_only = false;
  request.executable = std::string(text);
  return request;
}

std::string describe(const PythonRequest& request) {
  if (!request.executable.empty()) return request.executable;
  std::string name = request.cpython_only ? "CPython" : "Python";
  return request.version.empty() ? name : str_cat(name, " ", version_text(request.version));
}

bool satisfies(const InterpreterFacts& facts, const PythonRequest& request) {
  if (!request.executable.empty()) return false;
  if (request.cpython_only && facts.markers.implementation_name != "cpython") return false;
  const std::vector<int> have = full_version_parts(facts);
  if (have.size() < request.version.size()) return false;
  return std::equal(request.version.begin(), request.version.end(), have.begin());
}

bool same_interpreter(const InterpreterFacts& a, const InterpreterFacts& b) {
  return a.full_version == b.full_version && !a.base_executable.empty() &&
         a.base_executable == b.base_executable;
}

std::vector<std::string> python_search_folders(const PythonSearch& search) {
  std::vector<std::string> folders;
  for (std::string_view folder : split(search.path_variable, ':')) {
    if (!folder.empty()) folders.emplace_back(folder);
  }
  platform::InterpreterPlaces places = platform::interpreter_places(search.home);
  for (std::string& folder : places.folders) folders.push_back(std::move(folder));
  for (const std::string& root : places.installation_roots) {
    for (std::string& bin : installations(root)) folders.push_back(std::move(bin));
  }
  return folders;
}

Result<std::string> find_python(const PythonRequest& request, const PythonSearch& search) {
  const std::vector<std::string> folders = python_search_folders(search);
  if (!request.executable.empty()) {
    std::string path = request.executable;
    if (path.find('/') == std::string::npos) {
      path.clear();
      for (const std::string& folder : folders) {
        if (is_executable_file(path_join(folder, request.executable))) {
          path = path_join(folder, request.executable);
          break;
        }
      }
      if (path.empty()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("`--python ", request.text, "`: no executable ",
                                  in_backticks(request.executable),
                                  " on PATH or in the usual places; give a path or a version "
                                  "such as `3.12`"));
      }
    }
    Result<InterpreterFacts> facts = read_interpreter(".", path);
    if (!facts) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("`--python ", request.text, "`: ", in_backticks(path),
                                " is not a Python interpreter wvlock can use: ",
                                facts.error().message));
    }
    return path;
  }
  std::set<std::string> asked;  // resolved paths, each interpreter asked once
  std::set<std::string> answered;  // base executables, each named once in the error
  std::vector<std::string> seen;
  for (const std::string& folder : folders) {
    for (const std::string& name : candidate_names(request)) {
      const std::string path = path_join(folder, name);
      if (!is_executable_file(path)) continue;
      std::error_code ec;
      const std::string resolved = fs::canonical(path, ec).string();
      if (!asked.insert(ec ? path : resolved).second) continue;
      Result<InterpreterFacts> facts = read_interpreter(".", path);
      if (!facts) continue;
      if (satisfies(*facts, request)) return path;
      if (!answered.insert(facts->base_executable).second) continue;
      seen.push_back(str_cat(path, " is ", facts->markers.implementation_name, " ",
                             facts->full_version));
    }
  }
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("no ", describe(request), " found for `--python ", request.text,
                            "`: looked on PATH, in ",
                            platform::interpreter_places(search.home).described))
      .with_note(seen.empty() ? std::string("no interpreter answered")
                              : str_cat("found: ", join(seen, "; ")))
      .with_note("hint: give the interpreter's path, `--python /path/to/python`");
}

std::vector<FoundPython> find_pythons(const PythonSearch& search) {
  std::vector<FoundPython> found;
  std::set<std::string> asked;  // resolved paths, each interpreter asked once
  for (const std::string& folder : python_search_folders(search)) {
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      // `python3` or `python3.N`: not `python3-config`, `python3.11m-config`...
      if (name != "python3" && !(name.rfind("python3.", 0) == 0 &&
                                 parse_uint64(std::string_view(name).substr(8)))) {
        continue;
      }
      names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string path = path_join(folder, name);
      if (!is_executable_file(path)) continue;
      const std::string resolved = fs::canonical(path, ec).string();
      if (!asked.insert(ec ? path : resolved).second) continue;
      Result<InterpreterFacts> facts = read_interpreter(".", path);
      if (facts) found.push_back({path, std::move(*facts)});
    }
  }
  return found;
}

}  // namespace wv::install
