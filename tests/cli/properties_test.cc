// A target's declared `properties` answer for a namespace no built-in provider knows
// (DESIGN.md §1): the lock picks the matching build, and install takes the target's answer
// instead of asking the host, so the lock installs on a machine without that provider.
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.h"
#include "lock/lockfile.h"

namespace {

const char* kProject = R"(
[project]
name = "solver-app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["blasy"]

[tool.wvlock]
python = "3.11"
index-url = "../generated/simple"

[[tool.wvlock.target]]
name = "openblas-box"
platform = "linux-x86_64"
glibc = "2.28"
properties = { blas_lapack = { provider = ["openblas"] } }

[[tool.wvlock.target]]
name = "mkl-box"
platform = "linux-x86_64"
glibc = "2.28"
properties = { blas_lapack = { provider = ["mkl"] } }
)";

const char* kVariant =
    "import blasy\n"
    "print(blasy.__variant__)\n";

}  // namespace

TEST_CASE("properties: a declared namespace answer locks and installs without a provider",
          "[cli][properties]") {
  wv::test::ProjectCopy project("solver-app", kProject);
  wv::test::Run lock = project.wvlock("", "lock");
  INFO(lock.out << lock.err);
  REQUIRE(lock.status == 0);
  auto lockfile = wv::lock::read_lockfile(project.lockfile(), "pylock.toml");
  REQUIRE(lockfile.has_value());
  const wv::lock::LockedPackage* blasy = lockfile->find_package_for_target(*wv::pkg::parse_package_name("blasy"), "openblas-box");
  REQUIRE(blasy);
  CHECK(blasy->targets.at("openblas-box").wheels.front() == "blasy-1.0-py3-none-any-openblas.whl");
  CHECK(blasy->targets.at("mkl-box").wheels.front() == "blasy-1.0-py3-none-any-mkl.whl");
  // The declared answer is part of the lock's target, read back typed.
  const wv::lock::LockedTarget* target = lockfile->find_target("mkl-box");
  REQUIRE(target);
  CHECK(target->declared.profile.properties.at("blas_lapack").at("provider") ==
        std::vector<std::string>{"mkl"});

  // This host runs no blas_lapack provider: each target still fits, with its own build.
  wv::test::Run targets = project.wvlock("", "targets");
  INFO(targets.out << targets.err);
  CHECK(targets.status == 0);
  CHECK(targets.out.find("* openblas-box") != std::string::npos);
  CHECK(targets.out.find("needs blas_lapack") == std::string::npos);
  std::string venv = project.tmp.path() + "/venv";
  wv::test::Run sync = project.wvlock("", "sync --venv '" + venv + "'");
  INFO(sync.out << sync.err);
  REQUIRE(sync.status == 0);
  CHECK(project.python(venv, kVariant) == "openblas\n");
  wv::test::Run mkl = project.wvlock("", "sync --target mkl-box --venv '" + venv + "'");
  INFO(mkl.out << mkl.err);
  REQUIRE(mkl.status == 0);
  CHECK(project.python(venv, kVariant) == "mkl\n");
}
