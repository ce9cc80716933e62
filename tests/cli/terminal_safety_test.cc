// A build backend's output on our stderr: its terminal escapes (colours, a window title, a
// cursor move) arrive only as visible text, never raw (base/str.h printable_text).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_support.h"

namespace fs = std::filesystem;
using wv::test::Run;

TEST_CASE("terminal safety: a failing backend's escape sequences reach stderr escaped",
          "[cli][build][hostile]") {
  wv::test::TempDir tmp;
  const std::string app = tmp.path() + "/app";
  fs::create_directories(tmp.path() + "/wheels");
  // The sibling's version is dynamic, so the lock asks its in-tree backend, which fails loudly.
  wv::test::write_text(tmp.path() + "/mylib/pyproject.toml",
        "[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\"_b\"]\n"
        "[project]\nname = \"mylib\"\ndynamic = [\"version\"]\n");
  wv::test::write_text(tmp.path() + "/mylib/_b/backend.py",
        "import sys\n"
        "def fail(*args, **kwargs):\n"
        "    sys.stdout.write('\\x1b[31mred alert\\x1b[0m\\n')\n"
        "    sys.stdout.write('\\x1b]0;owned\\x07\\x1b[2J\\rover\\n')\n"
        "    sys.stdout.flush()\n"
        "    raise RuntimeError('broken on purpose')\n"
        "get_requires_for_build_wheel = prepare_metadata_for_build_wheel = build_wheel = fail\n");
  wv::test::write_text(app + "/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"mylib\"]\n\n"
        "[tool.wvlock]\nfind-links = [\"../wheels\"]\n\n"
        "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
        "python = \"" + wv::test::test_python_minor() + "\"\n\n"
        "[tool.wvlock.sources]\nmylib = { path = \"../mylib\" }\n");
  for (const char* arguments : {"lock", "-vv lock --json"}) {
    INFO(arguments);
    Run failed = wv::test::shell(app, "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY
                                      "' --color never --cache-dir '" + tmp.path() + "/cache' " +
                                          arguments);
    INFO(failed.err);
    CHECK(failed.status != 0);
    CHECK(failed.err.find("broken on purpose") != std::string::npos);
    CHECK(failed.err.find("\\x1b[31mred alert\\x1b[0m") != std::string::npos);
    CHECK(failed.err.find("\\x1b]0;owned\\x07\\x1b[2J\\x0dover") != std::string::npos);
    for (const std::string* stream : {&failed.err, &failed.out}) {
      CHECK(stream->find('\x1b') == std::string::npos);
      CHECK(stream->find('\x07') == std::string::npos);
      CHECK(stream->find('\r') == std::string::npos);
    }
  }
}
