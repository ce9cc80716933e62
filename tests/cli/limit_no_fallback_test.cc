// A limit error is an error on every path (hardening round three): an sdist whose PKG-INFO is
// over metadata-bytes is refused at lock, and its build backend (the costlier path, and code
// from the archive) never runs in its place.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_support.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;

namespace {

// big-1.0.tar.gz: a PKG-INFO of ~8 KB (PEP 643 static, so without the limit it is read as it
// is) and an in-tree backend that, imported, writes `<marker>`.
constexpr const char* kMakeSdist = R"PY(
import io, sys, tarfile
out, marker = sys.argv[1], sys.argv[2]
pkg_info = "Metadata-Version: 2.2\nName: big\nVersion: 1.0\n" + "Summary: padding\n" * 500
backend = ("import pathlib\npathlib.Path(%r).write_text('the backend ran')\n" % marker +
           "def prepare_metadata_for_build_wheel(d, c=None): raise SystemExit('ran')\n"
           "def build_wheel(d, c=None, m=None): raise SystemExit('ran')\n")
pyproject = ('[build-system]\nrequires = []\nbuild-backend = "hostile_backend"\n'
             'backend-path = ["."]\n')
members = {"big-1.0/PKG-INFO": pkg_info, "big-1.0/pyproject.toml": pyproject,
           "big-1.0/hostile_backend.py": backend}
with tarfile.open(out, "w:gz") as tf:
    for name, text in members.items():
        data = text.encode(); info = tarfile.TarInfo(name); info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
)PY";

}  // namespace

TEST_CASE("limits: an sdist's PKG-INFO over metadata-bytes fails the lock and runs no backend",
          "[cli][hostile][build]") {
  wv::test::TempDir tmp;
  const std::string marker = tmp.path() + "/backend-ran";
  const std::string sdist = tmp.path() + "/dist/big-1.0.tar.gz";
  fs::create_directories(tmp.path() + "/dist");
  wv::test::write_text(tmp.path() + "/make_sdist.py", kMakeSdist);
  Run made = shell(tmp.path(), "'" WV_TEST_PYTHON "' make_sdist.py '" + sdist + "' '" + marker + "'");
  INFO(made.err);
  REQUIRE(made.status == 0);
  const std::string app = tmp.path() + "/app";
  wv::test::write_text(app + "/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"big\"]\n\n"
        "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\nglibc = \"2.28\"\n"
        "python = \"" + wv::test::test_python_minor() + "\"\n\n"
        "[tool.wvlock.sources]\nbig = { path = \"" + sdist + "\" }\n");
  const std::string wvlock = "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY "' ";

  Run refused = shell(app, wvlock + "--limit metadata-bytes=4096 lock");
  INFO(refused.err);
  CHECK(refused.status != 0);
  CHECK(refused.err.find("metadata-bytes") != std::string::npos);
  CHECK(refused.err.find("PKG-INFO") != std::string::npos);
  CHECK_FALSE(fs::exists(marker));
  CHECK_FALSE(fs::exists(app + "/pylock.toml"));

  // Under the default limit the same sdist locks from its static PKG-INFO, still without
  // running the backend: the refusal above was the limit, nothing else.
  Run locked = shell(app, wvlock + "lock");
  INFO(locked.err);
  CHECK(locked.status == 0);
  CHECK_FALSE(fs::exists(marker));
}
