// uv's configuration as written (docs/guides/pytorch.md "A uv project as it is"): the six
// configurations of uv's PyTorch guide (docs/guides/integration/pytorch.md in uv's repository)
// lock unmodified over the today fixture indexes, each target getting the build the guide
// promises; `constraint-dependencies` and `override-dependencies` change a dependency's pin; a
// project without targets locks for this host (`host`), and one with only `requires-python`
// needs no `python`.
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.h"
#include "lock/lockfile.h"

namespace {

using wv::test::ProjectCopy;
using wv::test::Run;

// The host facts every lock here is made on (detection overrides, docs/targets.md).
const std::string kLinuxHost = wv::test::kNoGpu +
    "WVLOCK_OVERRIDE_OS=linux WVLOCK_OVERRIDE_ARCH=x86_64 WVLOCK_OVERRIDE_GLIBC=2.35 ";
const std::string kMacHost = wv::test::kNoGpu +
    "WVLOCK_OVERRIDE_OS=macos WVLOCK_OVERRIDE_ARCH=aarch64 WVLOCK_OVERRIDE_MACOS=14.0 ";
const std::string kH100Host = "WVLOCK_OVERRIDE_ROCM= WVLOCK_OVERRIDE_GFX= "
    "WVLOCK_OVERRIDE_OS=linux WVLOCK_OVERRIDE_ARCH=x86_64 WVLOCK_OVERRIDE_GLIBC=2.35 "
    "WVLOCK_OVERRIDE_CUDA_DRIVER=12.8 WVLOCK_OVERRIDE_CUDA_ARCH=9.0 ";

// uv asks PyPI when no index is the default; the tests reach no network, so the fixture's
// PyPI stands in for it, appended after the guide's text (which is otherwise unchanged).
std::string with_public_index(const std::string& guide_text,
                              const std::string& url = "../generated/today/pypi/simple") {
  return guide_text + "\n# Stands in for PyPI, uv's default index.\n[[tool.uv.index]]\n"
                      "name = \"pypi\"\nurl = \"" + url + "\"\ndefault = true\n";
}

struct UvProject : ProjectCopy {
  explicit UvProject(const std::string& pyproject) : ProjectCopy("uv-project", pyproject) {
    // The fixture's wheels are cp311-cp313; uv reads `.python-version` as wvlock does.
    wv::test::write_text(dir + "/.python-version", "3.11\n");
  }

  wv::lock::Lockfile lock(const std::string& host) const {
    Run run = wvlock(host, "lock");
    INFO(run.out << run.err);
    REQUIRE(run.status == 0);
    auto lockfile = wv::lock::read_lockfile(lockfile_text(), dir + "/pylock.toml");
    INFO((lockfile ? std::string() : lockfile.error().message));
    REQUIRE(lockfile.has_value());
    return std::move(*lockfile);
  }
  std::string lockfile_text() const { return lockfile(); }
};

// "version from index" of `name` in `target`'s lock.
std::string build(const wv::lock::Lockfile& lockfile, const std::string& name,
                  const std::string& target) {
  const wv::lock::LockedPackage* package = lockfile.find_package_for_target(*wv::pkg::parse_package_name(name), target);
  if (package == nullptr) return "(none)";
  return package->version + " from " + package->index_name;
}

// ---- uv's PyTorch guide, adapted only where the fixture must: torch 2.9.0 / torchvision
// 0.24.0 stand for 2.11.0 / 0.26.0, Python 3.11 for 3.14, CUDA 12.8 for 13.0 and ROCm 6.4 for
// 7.2 (the fixture's backend indexes); index URLs point at the fixture. ----

// "Using a PyTorch index", the complete CPU-only example.
const char* kCpuOnly = R"toml([project]
name = "project"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
  "torch>=2.9.0",
  "torchvision>=0.24.0",
]

[tool.uv.sources]
torch = [
    { index = "pytorch-cpu" },
]
torchvision = [
    { index = "pytorch-cpu" },
]

[[tool.uv.index]]
name = "pytorch-cpu"
url = "../generated/today/whl/cpu"
explicit = true
)toml";

// "Using a PyTorch index", the CUDA tab: the index and the sources gated on the platform.
const char* kCudaWithMarkers = R"toml([project]
name = "project"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
  "torch>=2.9.0",
  "torchvision>=0.24.0",
]

[[tool.uv.index]]
name = "pytorch-cu128"
url = "../generated/today/whl/cu128"
explicit = true

[tool.uv.sources]
torch = [
  { index = "pytorch-cu128", marker = "sys_platform == 'linux' or sys_platform == 'win32'" },
]
torchvision = [
  { index = "pytorch-cu128", marker = "sys_platform == 'linux' or sys_platform == 'win32'" },
]
)toml";

// "Configuring accelerators with environment markers", the AMD example (the fixture has no
// `triton-rocm`: that dependency and its source are left out).
const char* kRocm = R"toml([project]
name = "project"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
  "torch>=2.9.0",
  "torchvision>=0.24.0",
  "pytorch-triton-rocm>=3.5.0 ; sys_platform == 'linux'",
]

[tool.uv.sources]
torch = [
  { index = "pytorch-rocm", marker = "sys_platform == 'linux'" },
]
torchvision = [
  { index = "pytorch-rocm", marker = "sys_platform == 'linux'" },
]
pytorch-triton-rocm = [
  { index = "pytorch-rocm", marker = "sys_platform == 'linux'" },
]

[[tool.uv.index]]
name = "pytorch-rocm"
url = "../generated/today/whl/rocm6.4"
explicit = true
)toml";

// "Configuring accelerators with optional dependencies": extras and `conflicts`.
const char* kExtrasWithConflicts = R"toml([project]
name = "project"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
cpu = [
  "torch>=2.9.0",
  "torchvision>=0.24.0",
]
cu128 = [
  "torch>=2.9.0",
  "torchvision>=0.24.0",
]

[tool.uv]
conflicts = [
  [
    { extra = "cpu" },
    { extra = "cu128" },
  ],
]

[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu128", extra = "cu128" },
]
torchvision = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu128", extra = "cu128" },
]

[[tool.uv.index]]
name = "pytorch-cpu"
url = "../generated/today/whl/cpu"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "../generated/today/whl/cu128"
explicit = true
)toml";

// "Configuring accelerators with environment markers": CUDA on Linux, CPU elsewhere.
const char* kEnvironmentMarkers = R"toml([project]
name = "project"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
  "torch>=2.9.0",
  "torchvision>=0.24.0",
]

[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", marker = "sys_platform != 'linux'" },
  { index = "pytorch-cu128", marker = "sys_platform == 'linux'" },
]
torchvision = [
  { index = "pytorch-cpu", marker = "sys_platform != 'linux'" },
  { index = "pytorch-cu128", marker = "sys_platform == 'linux'" },
]

[[tool.uv.index]]
name = "pytorch-cpu"
url = "../generated/today/whl/cpu"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "../generated/today/whl/cu128"
explicit = true
)toml";

// "Installing GPU-enabled PyTorch extensions": flash-attn from an extra, explicit GPU index
// (the fixture's variant index stands for the Astral one and, with torch's variant wheels and
// einops, for PyPI).
const char* kExtraIndex = R"toml([project]
name = "project"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
  "torch>=2.9.0",
  "flash-attn>=2.8",
]

[tool.uv.sources]
flash-attn = { index = "astral-cu128" }

[[tool.uv.index]]
name = "astral-cu128"
url = "../generated/simple"
explicit = true
)toml";

}  // namespace

TEST_CASE("uv guide: CPU-only locks the +cpu build on Linux and macOS's own wheel",
          "[cli][uv][pytorch]") {
  UvProject project(with_public_index(kCpuOnly));
  const auto linux_lock = project.lock(kLinuxHost);
  CHECK(build(linux_lock, "torch", "host") == "2.9.0+cpu from pytorch-cpu");
  CHECK(build(linux_lock, "torchvision", "host") == "0.24.0+cpu from pytorch-cpu");
  CHECK(build(linux_lock, "nvidia-cublas-cu12", "host") == "(none)");
  CHECK(build(linux_lock, "filelock", "host") == "3.20.0 from pypi");  // not from the explicit index
  const auto mac_lock = project.lock(kMacHost);
  CHECK(build(mac_lock, "torch", "host") == "2.9.0 from pytorch-cpu");
}

TEST_CASE("uv guide: CUDA with markers takes the CUDA index on Linux, PyPI on macOS",
          "[cli][uv][pytorch]") {
  UvProject project(with_public_index(kCudaWithMarkers));
  const auto linux_lock = project.lock(kLinuxHost);
  CHECK(build(linux_lock, "torch", "host") == "2.9.0+cu128 from pytorch-cu128");
  CHECK(build(linux_lock, "torchvision", "host") == "0.24.0+cu128 from pytorch-cu128");
  CHECK(build(linux_lock, "nvidia-cublas-cu12", "host") == "12.8.4.1 from pypi");
  const auto mac_lock = project.lock(kMacHost);
  CHECK(build(mac_lock, "torch", "host") == "2.9.0 from pypi");
  CHECK(build(mac_lock, "nvidia-cublas-cu12", "host") == "(none)");
}

TEST_CASE("uv guide: ROCm takes torch and its triton from the ROCm index on Linux",
          "[cli][uv][pytorch]") {
  UvProject project(with_public_index(kRocm));
  const auto linux_lock = project.lock(kLinuxHost);
  CHECK(build(linux_lock, "torch", "host") == "2.9.0+rocm6.4 from pytorch-rocm");
  CHECK(build(linux_lock, "pytorch-triton-rocm", "host") == "3.5.0 from pytorch-rocm");
  CHECK(build(linux_lock, "nvidia-cublas-cu12", "host") == "(none)");
  const auto mac_lock = project.lock(kMacHost);
  CHECK(build(mac_lock, "torch", "host") == "2.9.0 from pypi");
  CHECK(build(mac_lock, "pytorch-triton-rocm", "host") == "(none)");
}

TEST_CASE("uv guide: conflicting extras lock as one target each", "[cli][uv][pytorch]") {
  UvProject project(with_public_index(kExtrasWithConflicts));
  Run run = project.wvlock(kLinuxHost, "lock");
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  CHECK(run.err.find("note: no `[[tool.wvlock.target]]` is declared") != std::string::npos);
  CHECK(run.err.find("`host-cpu`, `host-cu128`") != std::string::npos);
  const auto lockfile = project.lock(kLinuxHost);
  REQUIRE(lockfile.targets.size() == 2);
  CHECK(build(lockfile, "torch", "host-cpu") == "2.9.0+cpu from pytorch-cpu");
  CHECK(build(lockfile, "torch", "host-cu128") == "2.9.0+cu128 from pytorch-cu128");
  CHECK(build(lockfile, "nvidia-cublas-cu12", "host-cpu") == "(none)");
  CHECK(build(lockfile, "nvidia-cublas-cu12", "host-cu128") == "12.8.4.1 from pypi");
  CHECK(project.wvlock(kLinuxHost, "lock --check").status == 0);
}

TEST_CASE("uv guide: environment markers give Linux CUDA and macOS the CPU build",
          "[cli][uv][pytorch]") {
  UvProject project(with_public_index(kEnvironmentMarkers));
  CHECK(build(project.lock(kLinuxHost), "torch", "host") == "2.9.0+cu128 from pytorch-cu128");
  CHECK(build(project.lock(kMacHost), "torch", "host") == "2.9.0 from pytorch-cpu");
  // With uv's `environments`, both platforms lock at once, whatever the host.
  UvProject both(with_public_index(
      std::string(kEnvironmentMarkers) +
      "\n[tool.uv]\nenvironments = [\"sys_platform == 'linux' and platform_machine == 'x86_64'\", "
      "\"sys_platform == 'darwin'\"]\n"));
  const auto lockfile = both.lock(kLinuxHost);
  CHECK(build(lockfile, "torch", "linux-x86_64") == "2.9.0+cu128 from pytorch-cu128");
  CHECK(build(lockfile, "torch", "macos-arm64") == "2.9.0 from pytorch-cpu");
}

TEST_CASE("uv guide: an extra GPU index serves flash-attn to a GPU host", "[cli][uv][pytorch]") {
  UvProject project(with_public_index(kExtraIndex, "../generated/simple"));
  const auto lockfile = project.lock(kH100Host);
  const wv::lock::LockedTarget* host = nullptr;
  for (const auto& target : lockfile.targets) {
    if (target.name == "host") host = &target;
  }
  REQUIRE(host != nullptr);
  CHECK(host->declared.profile.compute_capabilities.known());
  const wv::lock::LockedPackage* flash = lockfile.find_package_for_target(*wv::pkg::parse_package_name("flash-attn"), "host");
  REQUIRE(flash != nullptr);
  CHECK(flash->index_name == "astral-cu128");
  CHECK(project.lockfile_text().find("cu12_sm90") != std::string::npos);
  // A host without a GPU has no flash-attn wheel: its target keeps the sdist (built at sync).
  const auto cpu_lock = project.lock(kLinuxHost);
  const wv::lock::LockedPackage* source = cpu_lock.find_package_for_target(*wv::pkg::parse_package_name("flash-attn"), "host");
  REQUIRE(source != nullptr);
  CHECK(source->sdist.has_value());
  CHECK(project.lockfile_text().find("cu12_sm90") == std::string::npos);
}

TEST_CASE("uv config: an override changes a transitive pin, a constraint narrows a version",
          "[cli][uv][overrides]") {
  const std::string base = R"toml([project]
name = "pinned"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["torch>=2.9", "numpy>=2"]

[[tool.uv.index]]
name = "pypi"
url = "../generated/today/pypi/simple"
)toml";
  UvProject plain(base);
  const auto before = plain.lock(kLinuxHost);
  CHECK(build(before, "nvidia-cublas-cu12", "host") == "12.8.4.1 from pypi");  // torch's pin
  CHECK(build(before, "numpy", "host") == "2.3.4 from pypi");
  CHECK(build(before, "filelock", "host") == "3.20.0 from pypi");

  UvProject fixed(base + R"toml(
[tool.uv]
override-dependencies = ["nvidia-cublas-cu12>=12.9"]
constraint-dependencies = ["numpy<2.3", "filelock<3.20", "colorama<1"]
)toml");
  const auto after = fixed.lock(kLinuxHost);
  CHECK(build(after, "nvidia-cublas-cu12", "host") == "12.9.1.4 from pypi");
  CHECK(build(after, "numpy", "host") == "2.2.6 from pypi");
  CHECK(build(after, "filelock", "host") == "3.19.1 from pypi");  // transitive, narrowed
  CHECK(build(after, "colorama", "host") == "(none)");            // a constraint adds nothing
  // The same keys in [tool.wvlock] win over uv's, and enter the input-hash.
  wv::test::write_text(fixed.dir + "/pyproject.toml",
                       base + "\n[tool.wvlock]\nconstraint-dependencies = [\"numpy<2.3\"]\n" +
                           "override-dependencies = [\"nvidia-cublas-cu12>=12.9\"]\n" +
                           "\n[tool.uv]\nconstraint-dependencies = [\"numpy<2\"]\n");
  CHECK(fixed.wvlock(kLinuxHost, "lock --check").status != 0);
  std::filesystem::remove(fixed.dir + "/pylock.toml");  // a re-lock would keep its versions
  const auto wvlock_keys = fixed.lock(kLinuxHost);
  CHECK(build(wvlock_keys, "numpy", "host") == "2.2.6 from pypi");
  CHECK(build(wvlock_keys, "filelock", "host") == "3.20.0 from pypi");
  CHECK(build(wvlock_keys, "nvidia-cublas-cu12", "host") == "12.9.1.4 from pypi");
}

TEST_CASE("first project: no target locks for this host with a note, and requires-python is enough",
          "[cli][uv][host]") {
  // No `python` anywhere: the Python comes from `.python-version` / requires-python.
  UvProject project(R"toml([project]
name = "first"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["numpy>=2"]

[tool.wvlock]
index-url = "../generated/today/pypi/simple"
)toml");
  Run run = project.wvlock(kLinuxHost, "lock");
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  CHECK(run.err.find("note: no `[[tool.wvlock.target]]` is declared: locking for this host "
                     "(linux x86_64 glibc 2.35") != std::string::npos);
  CHECK(run.err.find("docs/targets.md") != std::string::npos);
  const auto lockfile = project.lock(kLinuxHost);
  REQUIRE(lockfile.targets.size() == 1);
  CHECK(lockfile.targets[0].name == "host");
  CHECK(build(lockfile, "numpy", "host") == "2.3.4 from index-url");  // manylinux_2_28
  CHECK(project.wvlock(kLinuxHost, "lock --check").status == 0);
  CHECK(project.wvlock(kLinuxHost, "-q lock").err.find("note:") == std::string::npos);

  // A declared target without `python` and without `glibc`: 2.28 admits numpy 2.3's
  // manylinux_2_28 wheels.
  wv::test::write_text(project.dir + "/pyproject.toml", R"toml([project]
name = "first"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["numpy>=2"]

[tool.wvlock]
index-url = "../generated/today/pypi/simple"

[[tool.wvlock.target]]
name = "cpu"
platform = "linux-x86_64"
)toml");
  run = project.wvlock(kLinuxHost, "lock");
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  CHECK(run.err.find("note: no `[[tool.wvlock.target]]`") == std::string::npos);
  const auto declared = project.lock(kLinuxHost);
  CHECK(build(declared, "numpy", "cpu") == "2.3.4 from index-url");
  CHECK(declared.targets[0].declared.profile.python_version.value ==
        wv::targets::MajorMinor{3, 11});
}
