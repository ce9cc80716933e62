// Enterprise networks end to end: `wvlock lock` and `sync` against a private index (nginx,
// HTTPS with a private CA, Basic auth; tests/cli/private_index.h): trust from SSL_CERT_FILE /
// SSL_CERT_DIR / CURL_CA_BUNDLE, credentials from WVLOCK_INDEX_<NAME>_*, NETRC and a keyring
// stand-in, the 401 hint, WVLOCK_HTTP_RETRIES; and the password in no lockfile, cache or message
// (one with a quote and the other sub-delims too, over a plain loopback server).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.h"
#include "tests/cli/private_index.h"
#include "tests/support/server_process.h"
#include "tests/support/skip.h"

namespace {

using wv::test::PrivateIndex;
using wv::test::ProjectCopy;
using wv::test::Run;

// A clean slate for every run: none of the caller's trust, credential or keyring settings, and
// a HOME without a .netrc; `extra` ("NAME=VALUE ...") on top.
std::string environment(const ProjectCopy& project, const std::string& extra) {
  return "env -u SSL_CERT_FILE -u SSL_CERT_DIR -u CURL_CA_BUNDLE -u NETRC -u "
         "WVLOCK_KEYRING_PROVIDER -u WVLOCK_INDEX_INTERNAL_USERNAME -u "
         "WVLOCK_INDEX_INTERNAL_PASSWORD -u WVLOCK_HTTP_RETRIES HOME='" +
         project.tmp.path() + "' " + extra;
}

// `wvlock ARGS` with a cache of its own (`cache` names it), so every run asks the server.
Run run(const ProjectCopy& project, const std::string& extra, const std::string& cache,
        const std::string& arguments) {
  return project.wvlock(environment(project, extra),
                        "--cache-dir '" + project.tmp.path() + "/" + cache + "' " + arguments);
}

std::string credentials() {
  return std::string("WVLOCK_INDEX_INTERNAL_USERNAME=") + wv::test::kIndexUser +
         " WVLOCK_INDEX_INTERNAL_PASSWORD=" + wv::test::kIndexPassword;
}

bool contains(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

// Every file under `dir` that contains `secret`.
std::string files_containing(const std::string& dir, const std::string& secret) {
  std::string found;
  if (!std::filesystem::exists(dir)) return found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    if (contains(wv::test::slurp(entry.path().string()), secret)) found += entry.path().string() + "\n";
  }
  return found;
}

}  // namespace

#define WV_NEEDS_PRIVATE_INDEX(index_variable)                                           \
  const std::string nginx = wv::test::find_nginx();                                      \
  if (nginx.empty()) WV_SKIP("nginx is not installed (scripts/setup.sh installs nginx-light)"); \
  PrivateIndex index_variable(nginx);                                                    \
  INFO(index_variable.error());                                                          \
  REQUIRE(index_variable.error().empty())

TEST_CASE("network auth: a private CA is trusted through SSL_CERT_FILE, SSL_CERT_DIR or "
          "CURL_CA_BUNDLE, and a refusal says which to set",
          "[cli][network][tls]") {
  WV_NEEDS_PRIVATE_INDEX(index);
  ProjectCopy project("app", index.pyproject());

  Run untrusted = run(project, credentials(), "cache-0", "lock");
  INFO(untrusted.err);
  CHECK(untrusted.status == 3);
  CHECK(contains(untrusted.err, "the server's TLS certificate did not verify"));
  CHECK(contains(untrusted.err, "set SSL_CERT_FILE to your organisation's CA bundle"));
  CHECK(contains(untrusted.err, "SSL_CERT_DIR"));
  CHECK_FALSE(std::filesystem::exists(project.dir + "/pylock.toml"));

  const std::string ca = index.file("ca.pem");
  int cache = 1;
  for (const std::string& trust : {"SSL_CERT_FILE='" + ca + "'", "CURL_CA_BUNDLE='" + ca + "'",
                                   "SSL_CERT_DIR='" + index.file("certs") + "'"}) {
    Run trusted = run(project, trust + " " + credentials(), "cache-" + std::to_string(cache++), "lock");
    INFO(trust << "\n" << trusted.err);
    CHECK(trusted.status == 0);
    CHECK(contains(project.lockfile(), "name = \"demo\""));
    std::filesystem::remove(project.dir + "/pylock.toml");
  }

  // A bundle that does not exist is named, and the system's certificates stay in use.
  Run missing = run(project, "SSL_CERT_FILE=/nonexistent/ca.pem " + credentials(), "cache-9", "lock");
  INFO(missing.err);
  CHECK(missing.status == 3);
  CHECK(contains(missing.err, "ignoring `SSL_CERT_FILE=/nonexistent/ca.pem`: no such file"));
  CHECK(contains(missing.err, "wvlock trusts the system's CA certificates"));
}

TEST_CASE("network auth: a 401 names the index and the variables to set, environment credentials "
          "pass, and the password is stored and printed nowhere",
          "[cli][network][auth]") {
  WV_NEEDS_PRIVATE_INDEX(index);
  ProjectCopy project("app", index.pyproject());
  const std::string trust = "SSL_CERT_FILE='" + index.file("ca.pem") + "' ";

  Run anonymous = run(project, trust, "cache-a", "lock");
  INFO(anonymous.err);
  CHECK(anonymous.status == 3);
  CHECK(contains(anonymous.err, "HTTP 401 (unauthorized) for index `internal` (`" + index.url() + "`)"));
  CHECK(contains(anonymous.err, "carried no credentials"));
  CHECK(contains(anonymous.err, "WVLOCK_INDEX_INTERNAL_USERNAME and WVLOCK_INDEX_INTERNAL_PASSWORD"));
  CHECK(contains(anonymous.err, "the netrc file `" + project.tmp.path() + "/.netrc` (NETRC names another)"));
  CHECK(contains(anonymous.err, "--keyring-provider subprocess"));

  Run wrong = run(project, trust + "WVLOCK_INDEX_INTERNAL_USERNAME=alice WVLOCK_INDEX_INTERNAL_PASSWORD=wrong-pw",
                  "cache-w", "lock");
  INFO(wrong.err);
  CHECK(wrong.status == 3);
  CHECK(contains(wrong.err, "credentials from WVLOCK_INDEX_INTERNAL_USERNAME and "
                            "WVLOCK_INDEX_INTERNAL_PASSWORD, and the server refused them"));
  CHECK_FALSE(contains(wrong.err, "wrong-pw"));

  Run allowed = run(project, trust + credentials(), "cache-ok", "-vv lock");
  INFO(allowed.err);
  REQUIRE(allowed.status == 0);
  CHECK(contains(project.lockfile(), "url = \"https://127.0.0.1:"));
  CHECK_FALSE(contains(project.lockfile(), wv::test::kIndexPassword));
  CHECK_FALSE(contains(project.lockfile(), "alice"));
  CHECK_FALSE(contains(allowed.err, wv::test::kIndexPassword));
  CHECK(files_containing(project.tmp.path() + "/cache-ok", wv::test::kIndexPassword).empty());
  CHECK(files_containing(project.tmp.path() + "/cache-ok", "alice").empty());
}

TEST_CASE("network auth: NETRC names the netrc file, ~/.netrc is the default", "[cli][network][auth]") {
  WV_NEEDS_PRIVATE_INDEX(index);
  ProjectCopy project("app", index.pyproject());
  const std::string trust = "SSL_CERT_FILE='" + index.file("ca.pem") + "' ";
  const std::string netrc = std::string("machine 127.0.0.1 login ") + wv::test::kIndexUser +
                            " password " + wv::test::kIndexPassword + "\n";
  std::ofstream(project.tmp.path() + "/corp-netrc") << netrc;

  Run named = run(project, trust + "NETRC='" + project.tmp.path() + "/corp-netrc'", "cache-n", "lock");
  INFO(named.err);
  CHECK(named.status == 0);

  std::ofstream(project.tmp.path() + "/.netrc") << netrc;
  Run home = run(project, trust, "cache-h", "lock");
  INFO(home.err);
  CHECK(home.status == 0);
  CHECK_FALSE(contains(project.lockfile(), wv::test::kIndexPassword));
}

TEST_CASE("network auth: the keyring command is asked for the index URL and the username, once a "
          "run, and only when it is turned on",
          "[cli][network][auth][keyring]") {
  WV_NEEDS_PRIVATE_INDEX(index);
  ProjectCopy project("app", index.pyproject());
  const std::string bin = project.tmp.path() + "/bin";
  const std::string log = project.tmp.path() + "/keyring.log";
  std::filesystem::create_directory(bin);
  // A stand-in for keyring's CLI: logs its arguments, knows one entry (uv's service name).
  std::ofstream(bin + "/keyring") << "#!/bin/sh\necho \"$*\" >> '" << log << "'\n"
                                  << "if [ \"$*\" = \"get " << index.url() << " alice\" ]; then echo "
                                  << wv::test::kIndexPassword << "; exit 0; fi\nexit 1\n";
  std::filesystem::permissions(bin + "/keyring", std::filesystem::perms::owner_all);
  const std::string base = "PATH='" + bin + ":'\"$PATH\" SSL_CERT_FILE='" + index.file("ca.pem") + "' ";
  const std::string user = "WVLOCK_INDEX_INTERNAL_USERNAME=alice ";

  Run flag = run(project, base + user, "cache-f", "-vv --keyring-provider subprocess lock");
  INFO(flag.err);
  CHECK(flag.status == 0);
  CHECK(wv::test::slurp(log) == "get " + index.url() + " alice\n");  // once for every request
  CHECK_FALSE(contains(flag.err, wv::test::kIndexPassword));
  CHECK_FALSE(contains(project.lockfile(), wv::test::kIndexPassword));
  CHECK(files_containing(project.tmp.path() + "/cache-f", wv::test::kIndexPassword).empty());

  Run from_environment = run(project, base + user + "WVLOCK_KEYRING_PROVIDER=subprocess", "cache-e", "lock");
  INFO(from_environment.err);
  CHECK(from_environment.status == 0);

  // The command line wins over the environment.
  Run disabled = run(project, base + user + "WVLOCK_KEYRING_PROVIDER=subprocess", "cache-d",
                     "--keyring-provider disabled lock");
  INFO(disabled.err);
  CHECK(disabled.status == 3);
  CHECK(contains(disabled.err, "HTTP 401"));

  // Without a username the keyring is not asked (uv's rule), and the hint says so.
  std::filesystem::remove(log);
  Run nameless = run(project, base + "WVLOCK_KEYRING_PROVIDER=subprocess", "cache-u", "lock");
  INFO(nameless.err);
  CHECK(nameless.status == 3);
  CHECK_FALSE(std::filesystem::exists(log));
  CHECK(contains(nameless.err, "asked only when a username is known without a password"));

  // `keyring-provider = "subprocess"` in the project file.
  ProjectCopy configured("app", index.pyproject("keyring-provider = \"subprocess\"\n"));
  Run from_file = configured.wvlock(environment(configured, base + user),
                                    "--cache-dir '" + configured.tmp.path() + "/cache' lock");
  INFO(from_file.err);
  CHECK(from_file.status == 0);
}

TEST_CASE("network auth: sync downloads from the private index with credentials, and a 401 says "
          "which index refused it",
          "[cli][network][auth][sync]") {
  WV_NEEDS_PRIVATE_INDEX(index);
  ProjectCopy project("app", index.pyproject());
  const std::string trust = "SSL_CERT_FILE='" + index.file("ca.pem") + "' ";
  Run lock = run(project, trust + credentials(), "cache-lock", "lock");
  INFO(lock.err);
  REQUIRE(lock.status == 0);

  Run anonymous = run(project, trust, "cache-sync", "sync");
  INFO(anonymous.err);
  CHECK(anonymous.status == 3);
  CHECK(contains(anonymous.err, "demo-1.0-py3-none-any.whl`: the server answered HTTP 401 "
                                "(unauthorized) for index `internal`"));
  CHECK(contains(anonymous.err, "WVLOCK_INDEX_INTERNAL_USERNAME and WVLOCK_INDEX_INTERNAL_PASSWORD"));

  Run allowed = run(project, trust + credentials(), "cache-sync", "sync");
  INFO(allowed.err);
  CHECK(allowed.status == 0);
  bool installed = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(project.dir + "/.venv")) {
    if (entry.path().filename() == "__init__.py" && entry.path().parent_path().filename() == "demo") {
      installed = wv::test::slurp(entry.path().string()) == "VALUE = 42\n";
    }
  }
  CHECK(installed);
  CHECK(files_containing(project.tmp.path() + "/cache-sync", wv::test::kIndexPassword).empty());
  CHECK(files_containing(project.dir + "/.venv", wv::test::kIndexPassword).empty());
}

TEST_CASE("network auth: WVLOCK_HTTP_RETRIES sets how often a failed transfer is tried again",
          "[cli][network]") {
  ProjectCopy project("app", "[project]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\"demo\"]\n"
                             "[tool.wvlock]\npython = \"3.11\"\nindex-url = \"http://127.0.0.1:1/simple/\"\n"
                             "[[tool.wvlock.target]]\nname = \"linux\"\nplatform = \"linux-x86_64\"\n"
                             "glibc = \"2.17\"\n");
  Run none = run(project, "WVLOCK_HTTP_RETRIES=0", "cache", "lock");
  INFO(none.err);
  CHECK(none.status == 3);
  CHECK(contains(none.err, "cannot connect to the server"));
  CHECK_FALSE(contains(none.err, "attempts)"));

  Run two = run(project, "WVLOCK_HTTP_RETRIES=2", "cache", "lock");
  INFO(two.err);
  CHECK(two.status == 3);
  CHECK(contains(two.err, "cannot connect to the server (after 3 attempts)"));

  // A value out of range is named and ignored (offline: the warning, without the default wait).
  Run bad = run(project, "WVLOCK_HTTP_RETRIES=21", "cache", "--offline lock");
  INFO(bad.err);
  CHECK(contains(bad.err, "ignoring `WVLOCK_HTTP_RETRIES=21`: expected a number of retries between 0 and 20"));
}

TEST_CASE("network auth: over nginx, a page within max-age is not asked again, --refresh asks "
          "with validators and gets 304",
          "[cli][network][freshness]") {
  const std::string nginx = wv::test::find_nginx();
  if (nginx.empty()) WV_SKIP("nginx is not installed (scripts/setup.sh installs nginx-light)");
  PrivateIndex index(nginx, 600);
  INFO(index.error());
  REQUIRE(index.error().empty());
  ProjectCopy project("app", index.pyproject());
  const std::string trust = "SSL_CERT_FILE='" + index.file("ca.pem") + "' " + credentials();
  auto requests = [&] {
    std::string log = index.access_log();
    return std::count(log.begin(), log.end(), '\n');
  };
  Run cold = run(project, trust, "cache", "lock");
  INFO(cold.err);
  REQUIRE(cold.status == 0);
  const std::string lock = project.lockfile();
  const auto after_cold = requests();
  CHECK(after_cold >= 1);

  Run warm = run(project, trust, "cache", "lock");
  REQUIRE(warm.status == 0);
  CHECK(requests() == after_cold);  // the page is fresh, its metadata pinned by hash
  CHECK(project.lockfile() == lock);

  Run refresh = run(project, trust, "cache", "--refresh lock");
  REQUIRE(refresh.status == 0);
  CHECK(requests() == after_cold + 1);
  CHECK(contains(index.access_log().substr(index.access_log().rfind("GET ")), "\" 304 "));
  CHECK(project.lockfile() == lock);
}

namespace {

// A password with what RFC 3986 allows in user-info and prose would end a URL at: a quote,
// the other sub-delims, colons and a percent escape.
constexpr const char* kOddPassword = "pa'ss!$&()*+,;=:%27w0rd";

std::string odd_index_project(const std::string& host_port) {
  return std::string("[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\n") +
         "dependencies = [\"goood\"]\n\n[tool.wvlock]\npython = \"3.11\"\n\n" +
         "[[tool.wvlock.index]]\nname = \"internal\"\nurl = \"http://alice:" + kOddPassword + "@" +
         host_port + "/pypi/simple\"\ndefault = true\n\n[[tool.wvlock.target]]\nname = \"linux\"\n" +
         "platform = \"linux-x86_64\"\nglibc = \"2.17\"\n";
}

// No piece of the user-info in `text`, wherever it is.
void check_no_credentials(const std::string& text) {
  CHECK_FALSE(contains(text, kOddPassword));
  CHECK_FALSE(contains(text, "pa'ss"));
  CHECK_FALSE(contains(text, "%27w0rd"));
  CHECK_FALSE(contains(text, "alice"));
}

}  // namespace

TEST_CASE("network auth: a password with a quote and other sub-delims reaches no output, "
          "-vv --json included, for a failed fetch and a project no index has",
          "[cli][network][auth][hostile]") {
  const char* build = std::getenv("WV_BUILD_DIR");
  REQUIRE(build);
  wv::test::ServerProcess server({WV_SOURCE_DIR "/tests/net/fault_server.py", "--root",
                                  std::string(build) + "/fixtures/ecosystem/today", "--chaos",
                                  "0", "--chaos-rate", "0"});
  REQUIRE(server.ok());
  const std::string host_port = "127.0.0.1:" + std::to_string(server.port());

  // The index answers 404: the explanation names what was searched, masked.
  ProjectCopy missing("app", odd_index_project(host_port));
  for (const char* arguments : {"lock", "-vv lock --json"}) {
    INFO(arguments);
    Run run_missing = run(missing, "", "cache", arguments);
    INFO(run_missing.err);
    INFO(run_missing.out);
    CHECK(run_missing.status == 1);
    CHECK(contains(run_missing.err, "no package source has a project named `goood`"));
    CHECK(contains(run_missing.err, "http://****@" + host_port + "/pypi/simple"));
    check_no_credentials(run_missing.err);
    check_no_credentials(run_missing.out);
    CHECK(files_containing(missing.tmp.path() + "/cache", "pa'ss").empty());
    if (contains(arguments, "--json")) {
      const nlohmann::json document = nlohmann::json::parse(run_missing.out);
      REQUIRE(document.contains("failures"));
      REQUIRE_FALSE(document["failures"].empty());
      const std::string explanation = document["failures"][0]["explanation"].get<std::string>();
      CHECK(contains(explanation, "http://****@" + host_port + "/pypi/simple"));
    }
  }

  // Nothing listens on port 1: the fetch error names the URL, masked.
  ProjectCopy down("app", odd_index_project("127.0.0.1:1"));
  for (const char* arguments : {"lock", "-vv lock --json"}) {
    INFO(arguments);
    Run failed = run(down, "WVLOCK_HTTP_RETRIES=0 WVLOCK_HTTP_TIMEOUT=2", "cache", arguments);
    INFO(failed.err);
    INFO(failed.out);
    CHECK(failed.status == 3);
    CHECK(contains(failed.err, "http://****@127.0.0.1:1/"));
    check_no_credentials(failed.err);
    check_no_credentials(failed.out);
  }
}
