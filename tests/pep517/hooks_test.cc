// PEP 517 / PEP 660 hooks run for real: Debian's setuptools and wheel unpacked into a venv made
// at test time, tiny projects, in-tree backends (backend-path) that fail, hang or report what
// they were given.
#include "src/pep517/hooks.h"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "src/base/limits.h"
#include "src/base/str.h"
#include "tests/support/temp_dir.h"

namespace wv::build {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSetuptoolsWheel =
    "/usr/share/python-wheels/setuptools-66.1.1-py3-none-any.whl";
constexpr const char* kWheelWheel = "/usr/share/python-wheels/wheel-0.38.4-py3-none-any.whl";
// The signature PEP 517 gives the one hook every backend has.
#define BUILD_WHEEL_SIGNATURE \
  "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"

void write_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A venv holding setuptools and wheel, made once for every test of this file.
const std::string& build_python() {
  static test::TempDir dir;
  static const std::string python = [] {
    const std::string env = dir.file("env");
    REQUIRE(std::system(str_cat(WV_TEST_PYTHON, " -m venv --without-pip ", env).c_str()) == 0);
    std::string site;
    for (const auto& entry : fs::directory_iterator(env + "/lib")) {
      site = (entry.path() / "site-packages").string();
    }
    for (const char* wheel : {kSetuptoolsWheel, kWheelWheel}) {
      REQUIRE(std::system(str_cat(WV_TEST_PYTHON, " -m zipfile -e ", wheel, " ", site).c_str()) ==
              0);
    }
    return env + "/bin/python";
  }();
  return python;
}

/// A source tree with an output folder and a work folder beside it.
struct Project {
  test::TempDir dir;
  std::string source = dir.file("source");
  std::string output = dir.file("output");
  std::string work = dir.file("work");

  Project() {
    fs::create_directories(source);
    fs::create_directories(output);
    fs::create_directories(work);
  }

  HookCall call(Hook hook, std::string backend = "setuptools.build_meta",
                std::vector<std::string> backend_path = {}) const {
    HookCall call;
    call.python = build_python();
    call.source_dir = source;
    call.backend = std::move(backend);
    call.backend_path = std::move(backend_path);
    call.hook = hook;
    call.output_dir = output;
    call.work_dir = work;
    call.what = "demo 1.0 (a test source tree)";
    return call;
  }
};

/// A setuptools project: [project] metadata, a console script, the src layout.
void write_setuptools_project(const Project& project) {
  write_file(project.source + "/pyproject.toml",
             "[build-system]\n"
             "requires = [\"setuptools>=61\"]\n"
             "build-backend = \"setuptools.build_meta\"\n"
             "[project]\n"
             "name = \"demo\"\n"
             "version = \"1.0\"\n"
             "dependencies = [\"six>=1.0\"]\n"
             "[project.scripts]\n"
             "demo = \"demo:main\"\n");
  write_file(project.source + "/src/demo/__init__.py", "def main():\n    print('demo')\n");
}

/// An in-tree backend: `_build/_backend.py` holding `body`.
void write_backend(const Project& project, const std::string& body) {
  write_file(project.source + "/_build/_backend.py", "import os, sys, time, zipfile\n" + body);
}

/// The indented log lines of an error's notes.
std::vector<std::string> log_lines(const Error& error) {
  std::vector<std::string> lines;
  for (const std::string& note : error.notes) {
    if (note.rfind("    ", 0) == 0) lines.push_back(note);
  }
  return lines;
}

/// The call failed with `code` and a message that holds `text`.
void check_fails(const Result<HookResult>& result, ErrorCode code, std::string_view text) {
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == code);
  CHECK(result.error().message.find(text) != std::string::npos);
}

bool notes_contain(const Error& error, std::string_view text) {
  for (const std::string& note : error.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("setuptools: requirements, metadata, wheel and editable wheel") {
  Project project;
  write_setuptools_project(project);

  auto requirements = call_hook(project.call(Hook::kGetRequiresForBuildWheel));
  REQUIRE(requirements.has_value());
  CHECK_FALSE(requirements->hook_missing);
  CHECK(requirements->requirements == std::vector<std::string>{"wheel"});  // setuptools 66

  auto editable_requirements = call_hook(project.call(Hook::kGetRequiresForBuildEditable));
  REQUIRE(editable_requirements.has_value());
  CHECK_FALSE(editable_requirements->hook_missing);

  auto metadata = call_hook(project.call(Hook::kPrepareMetadataForBuildWheel));
  REQUIRE(metadata.has_value());
  CHECK(metadata->basename == "demo-1.0.dist-info");
  const std::string metadata_text = read_file(project.output + "/demo-1.0.dist-info/METADATA");
  CHECK(metadata_text.find("Name: demo\n") != std::string::npos);
  CHECK(metadata_text.find("Requires-Dist: six") != std::string::npos);

  HookCall wheel_call = project.call(Hook::kBuildWheel);
  wheel_call.metadata_directory = project.output;
  auto wheel = call_hook(wheel_call);
  REQUIRE(wheel.has_value());
  CHECK(wheel->basename == "demo-1.0-py3-none-any.whl");
  CHECK(fs::is_regular_file(project.output + "/" + wheel->basename));
  CHECK_FALSE(wheel->log_tail.empty());

  auto editable = call_hook(project.call(Hook::kBuildEditable));
  REQUIRE(editable.has_value());
  CHECK(editable->basename.find("editable") != std::string::npos);
  CHECK(editable->basename.ends_with(".whl"));
  CHECK(fs::is_regular_file(project.output + "/" + editable->basename));
}

TEST_CASE("the legacy backend imports modules beside setup.py") {
  Project project;
  write_file(project.source + "/helper.py", "NAME = 'legacy'\n");
  write_file(project.source + "/setup.py",
             "import helper\nfrom setuptools import setup\n"
             "setup(name=helper.NAME, version='2.0', py_modules=['helper'])\n");
  auto requirements =
      call_hook(project.call(Hook::kGetRequiresForBuildWheel, "setuptools.build_meta:__legacy__"));
  REQUIRE(requirements.has_value());
  auto metadata = call_hook(
      project.call(Hook::kPrepareMetadataForBuildWheel, "setuptools.build_meta:__legacy__"));
  REQUIRE(metadata.has_value());
  CHECK(metadata->basename == "legacy-2.0.dist-info");
}

TEST_CASE("an in-tree backend from backend-path builds; its missing hooks are reported") {
  Project project;
  write_backend(project,
                BUILD_WHEEL_SIGNATURE
                "    name = 'intree-1.0-py3-none-any.whl'\n"
                "    with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w') as wheel:\n"
                "        wheel.writestr('intree/__init__.py', '')\n"
                "    return name\n");
  auto wheel = call_hook(project.call(Hook::kBuildWheel, "_backend", {"_build"}));
  REQUIRE(wheel.has_value());
  CHECK(wheel->basename == "intree-1.0-py3-none-any.whl");
  CHECK(fs::is_regular_file(project.output + "/intree-1.0-py3-none-any.whl"));

  for (Hook hook : {Hook::kPrepareMetadataForBuildWheel, Hook::kGetRequiresForBuildWheel,
                    Hook::kBuildEditable, Hook::kBuildSdist}) {
    auto missing = call_hook(project.call(hook, "_backend", {"_build"}));
    REQUIRE(missing.has_value());
    CHECK(missing->hook_missing);
  }
  // build_wheel is the one hook PEP 517 requires.
  write_backend(project, "def build_sdist(sdist_directory, config_settings=None):\n    pass\n");
  auto no_wheel = call_hook(project.call(Hook::kBuildWheel, "_backend", {"_build"}));
  REQUIRE_FALSE(no_wheel.has_value());
  CHECK(no_wheel.error().message.find("PEP 517 requires") != std::string::npos);
}

TEST_CASE("a backend that does not come from backend-path is refused") {
  Project project;
  write_setuptools_project(project);
  write_backend(project, "");
  SECTION("imported from the environment") {
    auto result = call_hook(project.call(Hook::kBuildWheel, "setuptools.build_meta", {"_build"}));
    check_fails(result, ErrorCode::kInvalidInput, "not from backend-path");
    CHECK(result.error().message.find("demo 1.0") != std::string::npos);
  }
  SECTION("a backend-path entry outside the source tree") {
    write_file(project.dir.file("outside/_backend.py"), "");
    auto result = call_hook(project.call(Hook::kBuildWheel, "_backend", {"../outside"}));
    check_fails(result, ErrorCode::kInvalidInput, "outside the source tree");
  }
}

TEST_CASE("a failing backend: the error names the package and the hook, notes end its output") {
  Project project;
  write_backend(project,
                BUILD_WHEEL_SIGNATURE
                "    for i in range(100):\n"
                "        print('compiling', i)\n"
                "    raise RuntimeError('broken on purpose')\n");
  auto result = call_hook(project.call(Hook::kBuildWheel, "_backend", {"_build"}));
  REQUIRE_FALSE(result.has_value());
  const Error& error = result.error();
  CHECK(error.code == ErrorCode::kUnavailable);
  CHECK(error.message.find("demo 1.0 (a test source tree)") != std::string::npos);
  CHECK(error.message.find("`build_wheel`") != std::string::npos);
  CHECK(notes_contain(error, "RuntimeError: broken on purpose"));
  CHECK(log_lines(error).size() <= kHookLogLines);
  const std::vector<std::string> lines = log_lines(error);
  CHECK(std::find(lines.begin(), lines.end(), "    compiling 99") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "    compiling 10") == lines.end());
}

TEST_CASE("a backend's terminal escapes reach the error's notes only as visible text") {
  Project project;
  // Colours, a window title (OSC ... BEL), a cursor move, a carriage return, then a failure.
  write_backend(project,
                BUILD_WHEEL_SIGNATURE
                "    sys.stdout.write('\\x1b[31mred alert\\x1b[0m\\n')\n"
                "    sys.stdout.write('\\x1b]0;owned\\x07\\x1b[2J\\rover\\n')\n"
                "    sys.stdout.flush()\n"
                "    raise RuntimeError('broken on purpose')\n");
  auto result = call_hook(project.call(Hook::kBuildWheel, "_backend", {"_build"}));
  REQUIRE_FALSE(result.has_value());
  const Error& error = result.error();
  for (const std::string& note : error.notes) {
    INFO(note);
    CHECK(note.find('\x1b') == std::string::npos);
    CHECK(note.find('\x07') == std::string::npos);
    CHECK(note.find('\r') == std::string::npos);
  }
  CHECK(notes_contain(error, "\\x1b[31mred alert\\x1b[0m"));
  CHECK(notes_contain(error, "\\x1b]0;owned\\x07\\x1b[2J\\x0dover"));
  CHECK(notes_contain(error, "RuntimeError: broken on purpose"));
}

TEST_CASE("a backend that cannot be imported says so") {
  Project project;
  auto result = call_hook(project.call(Hook::kBuildWheel, "no_such_backend.api"));
  check_fails(result, ErrorCode::kUnavailable, "`no_such_backend.api` cannot be imported");
  CHECK(notes_contain(result.error(), "ModuleNotFoundError: No module named 'no_such_backend'"));
}

TEST_CASE("a backend that answers nonsense is an error") {
  Project project;
  write_backend(project,
                "def get_requires_for_build_wheel(config_settings=None):\n"
                "    return 'wheel'\n"
                BUILD_WHEEL_SIGNATURE
                "    return 'missing-1.0-py3-none-any.whl'\n"
                "def build_sdist(sdist_directory, config_settings=None):\n"
                "    return '../escape.tar.gz'\n");
  for (Hook hook : {Hook::kGetRequiresForBuildWheel, Hook::kBuildWheel, Hook::kBuildSdist}) {
    auto result = call_hook(project.call(hook, "_backend", {"_build"}));
    check_fails(result, ErrorCode::kUnavailable, "breaks PEP 517");
  }
}

TEST_CASE("a hook past the build-seconds limit is killed with its process group") {
  Project project;
  write_backend(project,
                "import subprocess\n"
                BUILD_WHEEL_SIGNATURE
                "    child = subprocess.Popen(['sleep', '60'])\n"
                "    with open(os.path.join(wheel_directory, 'child.pid'), 'w') as file:\n"
                "        file.write(str(child.pid))\n"
                "    print('waiting', flush=True)\n"
                "    time.sleep(60)\n");
  // 3 s, not 1: the backend's Python must start, spawn its child and print within the limit
  // even when every core is busy with other tests (CI runs several at once).
  set_limit_value(Limit::kBuildSeconds, 3);
  const auto start = std::chrono::steady_clock::now();
  auto result = call_hook(project.call(Hook::kBuildWheel, "_backend", {"_build"}));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  reset_limit_values();
  check_fails(result, ErrorCode::kLimit, "timed out");
  CHECK(result.error().message.find("3 seconds") != std::string::npos);
  CHECK(notes_contain(result.error(), "--limit build-seconds="));
  CHECK(notes_contain(result.error(), "waiting"));
  CHECK(elapsed < std::chrono::seconds(20));
  // The backend's own child died with the group (gone, or a zombie awaiting its reaper).
  const std::string pid = read_file(project.output + "/child.pid");
  REQUIRE_FALSE(pid.empty());
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    const std::string stat = read_file("/proc/" + pid + "/stat");
    gone = stat.empty() || stat.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
}

TEST_CASE("the backend sees a clean environment, none of ours") {
  Project project;
  write_backend(project,
                "import json\n"
                BUILD_WHEEL_SIGNATURE
                "    with open(os.path.join(wheel_directory, 'environ.txt'), 'w') as file:\n"
                "        for name, value in sorted(os.environ.items()):\n"
                "            file.write(name + '=' + value + '\\n')\n"
                "        file.write('sys.path=' + repr(sys.path) + '\\n')\n"
                "        file.write('config=' + repr(config_settings) + '\\n')\n"
                "    return 'environ.txt'\n");
  ::setenv("WV_HOOKS_TEST_MARKER", "leaked", 1);
  ::setenv("PYTHONPATH", "/leaked", 1);
  ::setenv("PIP_INDEX_URL", "http://leaked.invalid", 1);
  ::setenv("SOURCE_DATE_EPOCH", "0", 1);
  HookCall call = project.call(Hook::kBuildWheel, "_backend", {"_build"});
  call.extra_environment = {"WV_EXTRA=given"};
  auto result = call_hook(call);
  for (const char* name :
       {"WV_HOOKS_TEST_MARKER", "PYTHONPATH", "PIP_INDEX_URL", "SOURCE_DATE_EPOCH"}) {
    ::unsetenv(name);
  }
  REQUIRE(result.has_value());
  const std::string environ = "\n" + read_file(project.output + "/environ.txt");
  CHECK(environ.find("leaked") == std::string::npos);
  CHECK(environ.find("SOURCE_DATE_EPOCH") == std::string::npos);
  CHECK(environ.find("PIP_") == std::string::npos);
  const std::string bin = fs::path(build_python()).parent_path().string();
  CHECK(environ.find("\nPATH=" + bin + ":/usr/bin:/bin\n") != std::string::npos);
  CHECK(environ.find("\nHOME=" + project.work + "/home\n") != std::string::npos);
  CHECK(environ.find("\nTMPDIR=" + project.work + "/tmp\n") != std::string::npos);
  CHECK(environ.find("LANG=C.UTF-8\n") != std::string::npos);
  CHECK(environ.find("PYTHONNOUSERSITE=1\n") != std::string::npos);
  CHECK(environ.find("WV_EXTRA=given\n") != std::string::npos);
  CHECK(environ.find("config={}\n") != std::string::npos);
  // -I: neither the source tree (the working folder) nor the runner's folder is importable.
  CHECK(environ.find("'" + project.source + "'") == std::string::npos);
  CHECK(environ.find("'" + project.work + "'") == std::string::npos);
}

TEST_CASE("an interpreter that cannot be started is an error naming the hook") {
  Project project;
  HookCall call = project.call(Hook::kBuildWheel);
  call.python = project.dir.file("no-such-env/bin/python");
  auto result = call_hook(call);
  check_fails(result, ErrorCode::kNotFound, "`build_wheel` of demo 1.0");
}

}  // namespace
}  // namespace wv::build
