// Sdists from a server and links that need decoding, end to end through the wvlock binary: a
// PyPI-shaped index served over loopback HTTP whose packages include sdist-only releases (one
// with static PEP 643 metadata, one that only its backend can describe), locked and synced into
// a real venv with real setuptools builds; and a `file://` index whose hrefs are percent-encoded
// (`%2B` for the `+` of a local version, as PyTorch's indexes write them).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_support.h"
#include "tests/support/server_process.h"

namespace fs = std::filesystem;
using wv::test::Run;
using wv::test::shell;
using wv::test::slurp;

namespace {

// Writes a PEP 503 index under `root`: `simple/<name>/index.html` linking to `files/` with
// sha256 fragments (hrefs percent-encoded), the sdists made with Python's tarfile, a plain wheel
// with a `+local` version, and Debian's setuptools and wheel wheels for the builds.
constexpr const char* kMakeIndex = R"PY(
import hashlib, io, os, re, shutil, sys, tarfile, urllib.parse, zipfile, base64
root = sys.argv[1]
files = os.path.join(root, 'files')
os.makedirs(files, exist_ok=True)
def sdist(name, version, metadata_version, requires, deps):
    base = f'{name}-{version}'
    pkg_info = f'Metadata-Version: {metadata_version}\nName: {name}\nVersion: {version}\n'
    for r in requires: pkg_info += f'Requires-Dist: {r}\n'
    pyproject = ('[build-system]\nrequires = ["setuptools>=61"]\n'
                 'build-backend = "setuptools.build_meta"\n[project]\n'
                 f'name = "{name}"\nversion = "{version}"\ndependencies = {deps}\n')
    members = {f'{base}/PKG-INFO': pkg_info, f'{base}/pyproject.toml': pyproject,
               f'{base}/src/{name}/__init__.py': f'NAME = "{name}"\n'}
    with tarfile.open(os.path.join(files, f'{base}.tar.gz'), 'w:gz') as tf:
        for member, text in members.items():
            data = text.encode(); info = tarfile.TarInfo(member); info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
def wheel(name, version):
    dist = f'{name}-{version}.dist-info'
    body = {f'{name}/__init__.py': f'VERSION = "{version}"\n',
            f'{dist}/METADATA': f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n',
            f'{dist}/WHEEL': 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'}
    record = ''
    for path, text in body.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()
        record += f'{path},sha256={digest},{len(text.encode())}\n'
    record += f'{dist}/RECORD,,\n'
    with zipfile.ZipFile(os.path.join(files, f'{name}-{version}-py3-none-any.whl'), 'w') as zf:
        for path, text in body.items(): zf.writestr(path, text)
        zf.writestr(f'{dist}/RECORD', record)
# PEP 643 static: Requires-Dist `wheel` in PKG-INFO, none in pyproject (the lock follows PKG-INFO).
sdist('sdstatic', '1.0', '2.2', ['wheel'], '[]')
# Metadata-Version 2.1 promises nothing: the backend says `wheel`.
sdist('sdbuild', '2.0', '2.1', [], '["wheel"]')
wheel('localver', '1.0+cpu')
for leaf in os.listdir('/usr/share/python-wheels'):
    if leaf.startswith(('setuptools-', 'wheel-')):
        shutil.copy(os.path.join('/usr/share/python-wheels', leaf), files)
projects = {}
for leaf in sorted(os.listdir(files)):
    m = re.match(r'([A-Za-z0-9_.]+?)-\d', leaf)
    projects.setdefault(re.sub(r'[-_.]+', '-', m.group(1)).lower(), []).append(leaf)
for project, leaves in projects.items():
    folder = os.path.join(root, 'simple', project)
    os.makedirs(folder, exist_ok=True)
    links = ''
    for leaf in leaves:
        digest = hashlib.sha256(open(os.path.join(files, leaf), 'rb').read()).hexdigest()
        links += f'<a href="../../files/{urllib.parse.quote(leaf)}#sha256={digest}">{leaf}</a>\n'
    open(os.path.join(folder, 'index.html'), 'w').write(f'<html><body>\n{links}</body></html>\n')
)PY";

// <tmp>/index (the index's files), <tmp>/app (the project) naming `index_url` and depending on
// `dependencies` (a TOML array's insides).
struct RemoteProject {
  wv::test::TempDir tmp;
  std::string index = tmp.path() + "/index";
  std::string app = tmp.path() + "/app";

  RemoteProject() {
    wv::test::write_text(tmp.path() + "/make_index.py", kMakeIndex);
    Run made = shell(tmp.path(), "'" WV_TEST_PYTHON "' make_index.py '" + index + "'");
    INFO(made.err);
    REQUIRE(made.status == 0);
  }

  void project(const std::string& index_url, const std::string& dependencies) const {
    wv::test::write_text(app + "/pyproject.toml",
          "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [" + dependencies +
              "]\n\n[tool.wvlock]\nindex-url = \"" + index_url + "\"\n\n"
              "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\n"
              "glibc = \"2.28\"\npython = \"" + wv::test::test_python_minor() + "\"\n");
  }

  Run wvlock(const std::string& arguments) const {
    return shell(app, "WVLOCK_CACHE_DIR='" + tmp.path() + "/cache' '" WVLOCK_BINARY "' " + arguments);
  }
};

// The project of the two sdist-only releases on the HTTP index (HTML pages only: the server
// has no JSON pages to negotiate), locked.
struct LockedRemote {
  RemoteProject remote;
  wv::test::ServerProcess server{{WV_SOURCE_DIR "/tests/index/range_server.py", "--root", remote.index}};
  std::string url;
  Run lock;

  LockedRemote() {
    REQUIRE(fs::exists("/usr/share/python-wheels"));
    REQUIRE(server.ok());
    url = "http://127.0.0.1:" + std::to_string(server.port());
    remote.project(url + "/htmlonly/simple", "\"sdstatic\", \"sdbuild\"");
    lock = remote.wvlock("lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
  }
};

}  // namespace

TEST_CASE("remote sdists: sdist-only releases on an HTTP index lock (static PKG-INFO and a "
          "backend's metadata) and sync with real builds",
          "[cli][sources][build][http]") {
  LockedRemote locked;
  RemoteProject& remote = locked.remote;
  const std::string& url = locked.url;
  const std::string lockfile = slurp(remote.app + "/pylock.toml");
  INFO(lockfile);
  // Each release is locked as its sdist, by its URL on the index (never the cache's path).
  CHECK(lockfile.find("sdist = { name = \"sdstatic-1.0.tar.gz\", url = \"" + url +
                      "/htmlonly/files/sdstatic-1.0.tar.gz\"") != std::string::npos);
  CHECK(lockfile.find("sdist = { name = \"sdbuild-2.0.tar.gz\", url = \"" + url +
                      "/htmlonly/files/sdbuild-2.0.tar.gz\"") != std::string::npos);
  // PKG-INFO's `wheel` for the static one; the backend's `wheel` for the other.
  for (const std::string name : {"sdstatic", "sdbuild"}) {
    const std::size_t entry = lockfile.find("name = \"" + name + "\"");
    REQUIRE(entry != std::string::npos);
    const std::size_t next = lockfile.find("[[packages]]", entry);
    CHECK(lockfile.substr(entry, next - entry).find("dependencies = [\"wheel==") != std::string::npos);
  }
  CHECK(lockfile.find("/cache/") == std::string::npos);

  Run sync = remote.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run names = shell(remote.app, ".venv/bin/python -c 'import sdstatic, sdbuild, wheel; "
                                "print(sdstatic.NAME, sdbuild.NAME)'");
  CHECK(names.out == "sdstatic sdbuild\n");

  // The files are in the cache now: a fresh venv builds offline, the server unused.
  fs::remove_all(remote.app + "/.venv");
  Run offline = remote.wvlock("sync --offline --python '" WV_TEST_PYTHON "'");
  INFO(offline.err);
  CHECK(offline.status == 0);
}

TEST_CASE("remote sdists: a file:// index's percent-encoded links are decoded once, at lock and "
          "at sync",
          "[cli][sources]") {
  RemoteProject remote;
  remote.project("file://" + remote.index + "/simple", "\"localver\"");
  Run lock = remote.wvlock("lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);
  const std::string lockfile = slurp(remote.app + "/pylock.toml");
  INFO(lockfile);
  // The lock records the file's real path, `+` and all.
  CHECK(lockfile.find("localver-1.0+cpu-py3-none-any.whl\", path = \"../index/files/"
                      "localver-1.0+cpu-py3-none-any.whl\"") != std::string::npos);
  CHECK(lockfile.find("%2B") == std::string::npos);
  Run sync = remote.wvlock("sync --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run version = shell(remote.app, ".venv/bin/python -c 'import localver; print(localver.VERSION)'");
  CHECK(version.out == "1.0+cpu\n");
}

TEST_CASE("remote sdists: an export synced as a standard lock in a folder of its own builds its "
          "sdists for real, their build requirements from the index each entry names",
          "[cli][sources][build][standard]") {
  LockedRemote locked;
  RemoteProject& remote = locked.remote;
  const std::string deploy = remote.tmp.path() + "/deploy";
  fs::create_directories(deploy);
  Run exported = remote.wvlock("export --target linux --output '" + deploy + "/pylock.toml'");
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const std::string standard = slurp(deploy + "/pylock.toml");
  INFO(standard);
  CHECK(standard.find("[[tool.wvlock.target]]") == std::string::npos);
  CHECK(standard.find("sdstatic-1.0.tar.gz") != std::string::npos);

  // No pyproject.toml here: only the export, installed by the standard's rules.
  Run sync = shell(deploy, "WVLOCK_CACHE_DIR='" + remote.tmp.path() + "/cache' '" WVLOCK_BINARY
                           "' sync --lockfile pylock.toml --python '" WV_TEST_PYTHON "'");
  INFO(sync.err);
  REQUIRE(sync.status == 0);
  Run names = shell(deploy, ".venv/bin/python -c 'import sdstatic, sdbuild, wheel; "
                            "print(sdstatic.NAME, sdbuild.NAME)'");
  CHECK(names.out == "sdstatic sdbuild\n");
  // Installed as distributions, with the versions the lock names.
  Run versions = shell(deploy, ".venv/bin/python -c 'import importlib.metadata as m; "
                               "print(m.version(\"sdstatic\"), m.version(\"sdbuild\"))'");
  CHECK(versions.out == "1.0 2.0\n");
  CHECK_FALSE(fs::exists(deploy + "/pyproject.toml"));
}
