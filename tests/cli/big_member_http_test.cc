// A wheel with a member big enough to be hashed and written on a thread of its own while it
// inflates (install/piece_writer.h, 16 MiB and up), fetched from a PEP 503 index over loopback
// HTTP and synced by the wvlock binary: the installed file is the published one, and a RECORD
// that lies about that member stops the sync with the environment as it was.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

namespace {

// Writes `simple/<name>/index.html` and `files/` under argv[1]: `biglib` (a 20 MiB member, hex
// text that deflates about 2x) and `biglie` (the same, its RECORD hash for the member wrong);
// the member's sha256 goes to `data.sha256`.
constexpr const char* kMakeIndex = R"PY(
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
files = os.path.join(root, 'files')
os.makedirs(files, exist_ok=True)
data = b''.join(hashlib.sha256(str(i).encode()).hexdigest().encode() for i in range(20 * 2**20 // 64))
open(os.path.join(root, 'data.sha256'), 'w').write(hashlib.sha256(data).hexdigest())
def record_hash(content):
    return 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b'=').decode()
def wheel(name, lie):
    dist = f'{name}-1.0.dist-info'
    body = {f'{name}/__init__.py': b'', f'{name}/data.bin': data,
            f'{dist}/METADATA': f'Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n'.encode(),
            f'{dist}/WHEEL': b'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'}
    record = ''
    for path, content in body.items():
        digest = record_hash(b'not the content' if lie and path.endswith('data.bin') else content)
        record += f'{path},{digest},{len(content)}\n'
    record += f'{dist}/RECORD,,\n'
    leaf = f'{name}-1.0-py3-none-any.whl'
    with zipfile.ZipFile(os.path.join(files, leaf), 'w', zipfile.ZIP_DEFLATED) as zf:
        for path, content in body.items(): zf.writestr(path, content)
        zf.writestr(f'{dist}/RECORD', record)
    folder = os.path.join(root, 'simple', name)
    os.makedirs(folder, exist_ok=True)
    sha = hashlib.sha256(open(os.path.join(files, leaf), 'rb').read()).hexdigest()
    open(os.path.join(folder, 'index.html'), 'w').write(
        f'<html><body><a href="../../files/{leaf}#sha256={sha}">{leaf}</a></body></html>\n')
wheel('biglib', False)
wheel('biglie', True)
)PY";

struct BigIndex {
  wv::test::TempDir tmp;
  std::string index = tmp.path() + "/index";

  BigIndex() {
    wv::test::write_text(tmp.path() + "/make_index.py", kMakeIndex);
    Run made = shell(tmp.path(), "'" WV_TEST_PYTHON "' make_index.py '" + index + "'");
    INFO(made.err);
    REQUIRE(made.status == 0);
  }

  // A project in <tmp>/<name> depending on `name`, from the index at `url`.
  std::string project(const std::string& name, const std::string& url) const {
    const std::string app = tmp.path() + "/" + name;
    wv::test::write_text(app + "/pyproject.toml",
          "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"" + name +
              "\"]\n\n[tool.wvlock]\nindex-url = \"" + url + "\"\n\n"
              "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\n"
              "glibc = \"2.28\"\npython = \"" + wv::test::test_python_minor() + "\"\n");
    return app;
  }

  Run wvlock(const std::string& app, const std::string& arguments) const {
    return shell(app, "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY "' " + arguments);
  }
};

}  // namespace

TEST_CASE("big member over HTTP: a 20 MiB member hashed and written beside its inflate installs "
          "the published bytes, and a RECORD lying about it leaves the environment unchanged",
          "[cli][install][http]") {
  BigIndex big;
  wv::test::ServerProcess server{{WV_SOURCE_DIR "/tests/index/range_server.py", "--root", big.index}};
  REQUIRE(server.ok());
  // HTML pages only: the index has no JSON pages to negotiate.
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/htmlonly/simple";

  const std::string app = big.project("biglib", url);
  Run lock = big.wvlock(app, "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  Run sync = big.wvlock(app, "sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run digest = shell(app, ".venv/bin/python -c 'import biglib, hashlib, os; print(hashlib.sha256("
                          "open(os.path.join(os.path.dirname(biglib.__file__), \"data.bin\"), "
                          "\"rb\").read()).hexdigest())'");
  INFO(digest.err);
  CHECK(digest.out == slurp(big.index + "/data.sha256") + "\n");

  const std::string liar = big.project("biglie", url);
  Run locked = big.wvlock(liar, "lock");
  INFO(locked.err);
  REQUIRE(locked.status == 0);
  Run refused = big.wvlock(liar, "sync --python '" WV_TEST_PYTHON "'");
  CHECK(refused.status != 0);
  CHECK(refused.err.find("hash mismatch for `biglie/data.bin`") != std::string::npos);
  // Nothing of it was installed, and nothing half-made is left in the cache for a later sync.
  Run absent = shell(liar, ".venv/bin/python -c 'import biglie' 2>/dev/null || echo absent");
  CHECK(absent.out.find("absent") != std::string::npos);
  const std::string staging = big.tmp.path() + "/cache/unpacked-v1/.tmp";
  CHECK((!fs::exists(staging) || fs::is_empty(staging)));
}
