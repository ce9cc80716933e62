// The no-op fast path (install/sync_state.h): a sync that changed nothing records its inputs in
// the environment, an identical sync answers from the record, and every change the full sync
// would see (the lock, pyproject.toml, a package another tool removed, the host or the flags
// that choose the target) makes the next sync a full one. Detection runs a stand-in
// `nvidia-smi` that counts its calls: a full sync detects the host, the fast path does not.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli/cli_support.h"

namespace {

namespace fs = std::filesystem;

using wv::test::Run;
using wv::test::slurp;

std::string pyproject(const std::string& dependencies) {
  return "[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n"
         "dependencies = [" + dependencies + "]\n\n[tool.wvlock]\npython = \"" +
         wv::test::test_python_minor() +
         "\"\nindex-url = \"../generated/simple\"\n\n[[tool.wvlock.target]]\nname = \"cpu\"\n"
         "platform = \"linux-x86_64\"\nglibc = \"2.28\"\n";
}

// A one-dependency project, locked and synced into `venv`, whose detection calls `smi`.
struct SyncedProject : wv::test::ProjectCopy {
  std::string venv, smi_log, environment;

  SyncedProject() : ProjectCopy("app", pyproject("\"idna>=3.10\"")) {
    venv = tmp.path() + "/venv";
    smi_log = tmp.path() + "/smi.log";
    const std::string smi = tmp.path() + "/nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\necho called >> '" << smi_log << "'\nexit 9\n";
    fs::permissions(smi, fs::perms::owner_all);
    environment = "WVLOCK_NVML_LIBRARY= WVLOCK_CUDA_LIBRARY= WVLOCK_NVIDIA_SMI='" + smi +
                  "' WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= ";
    Run lock = wvlock("", "lock");
    INFO(lock.err);
    REQUIRE(lock.status == 0);
    REQUIRE(sync().status == 0);
  }
  Run sync(const std::string& extra_environment = "", const std::string& flags = "") const {
    return wvlock(environment + extra_environment, "sync --venv '" + venv + "' " + flags);
  }
  std::size_t detections() const {
    const std::string log = slurp(smi_log);
    return static_cast<std::size_t>(std::count(log.begin(), log.end(), '\n'));
  }
  bool recorded() const { return fs::exists(venv + "/.wvlock-state"); }
  // A full no-op sync that records, once the last change is older than the record's margin.
  Run record() const {
    ::usleep(120'000);
    Run run = sync();
    REQUIRE(run.status == 0);
    REQUIRE(recorded());
    return run;
  }
};

}  // namespace

TEST_CASE("cli sync state: an identical no-op sync answers from the record, as the full one did",
          "[cli][sync][state]") {
  SyncedProject project;
  Run full = project.record();
  CHECK(full.out.find("1 kept as they are") != std::string::npos);
  const std::size_t detections = project.detections();
  CHECK(detections >= 2);
  Run fast = project.sync();
  INFO(fast.err);
  CHECK(fast.status == 0);
  CHECK(fast.out == full.out);
  CHECK(project.detections() == detections);  // no detection, no lock parse, no interpreter
}

TEST_CASE("cli sync state: a change the full sync would see is never hidden by the record",
          "[cli][sync][state]") {
  SyncedProject project;
  const std::string idna_info = [&] {
    for (const auto& entry : fs::recursive_directory_iterator(project.venv)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("idna-", 0) == 0 && name.size() > 10 &&
          name.substr(name.size() - 10) == ".dist-info") {
        return entry.path().string();
      }
    }
    return std::string();
  }();
  REQUIRE(!idna_info.empty());
  project.record();
  const std::size_t before = project.detections();

  SECTION("the lock edited") {
    std::ofstream(project.dir + "/pylock.toml", std::ios::app) << "# edited\n";
    Run run = project.sync();
    CHECK(run.status == 0);
    CHECK(project.detections() > before);
  }
  SECTION("pyproject.toml changed: the lock is stale") {
    std::ofstream(project.dir + "/pyproject.toml") << pyproject("\"idna>=3.10\", \"certifi\"");
    Run stale = project.sync("", "--locked");
    INFO(stale.out << stale.err);
    CHECK(stale.status == 1);
    CHECK(stale.err.find("stale") != std::string::npos);
  }
  SECTION("a package removed by another tool (as pip uninstall does)") {
    const fs::path site = fs::path(idna_info).parent_path();
    fs::remove_all(idna_info);
    fs::remove_all(site / "idna");
    Run run = project.sync();
    INFO(run.out << run.err);
    CHECK(run.status == 0);
    CHECK(run.out.find("+ idna") != std::string::npos);
    CHECK(fs::exists(idna_info));
  }
  SECTION("a package's METADATA edited in place") {
    std::ofstream(idna_info + "/METADATA", std::ios::app) << "\n";
    Run run = project.sync();
    CHECK(run.status == 0);
    CHECK(project.detections() > before);
  }
  SECTION("a detection override") {
    Run run = project.sync("WVLOCK_OVERRIDE_X86_64_LEVEL=v1 ");
    INFO(run.err);
    CHECK(run.status == 0);
    CHECK(project.detections() > before);
  }
  SECTION("--target given") {
    Run run = project.sync("", "--target cpu");
    INFO(run.err);
    CHECK(run.status == 0);
    CHECK(project.detections() > before);
  }
  SECTION("--target names a target the lock lacks") {
    Run run = project.sync("", "--target gpu");
    CHECK(run.status != 0);
    CHECK(run.err.find("gpu") != std::string::npos);
  }
  SECTION("the interpreter's facts forgotten") {
    fs::remove(project.venv + "/.wvlock-interpreter");
    Run run = project.sync();
    CHECK(run.status == 0);
    CHECK(project.detections() > before);
  }
  // Whatever changed, the environment still holds exactly the lock's closure afterwards.
  Run settled = project.sync();
  CHECK(settled.status == 0);
  CHECK(fs::exists(idna_info));
}

TEST_CASE("cli sync state: a sync that changes the environment removes the record first",
          "[cli][sync][state]") {
  SyncedProject project;
  project.record();
  std::ofstream(project.dir + "/pyproject.toml") << pyproject("\"idna>=3.10\", \"certifi\"");
  Run run = project.sync();
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("+ certifi") != std::string::npos);
  CHECK_FALSE(project.recorded());  // written again only by a sync that changes nothing
  Run again = project.record();
  CHECK(again.out.find("2 kept as they are") != std::string::npos);
}
