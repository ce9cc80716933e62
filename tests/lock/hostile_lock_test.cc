// Hostile input read by the lock layer: names that would reach file names (class 5), TOML
// nesting (class 6), a wheel whose METADATA or lock entry disagrees with its file name
// (class 7).
#include <catch2/catch.hpp>

#include <regex>

#include "src/base/sha256.h"
#include "lock/catalog.h"
#include "lock/lockfile.h"
#include "targets/project_file.h"

namespace {

using wv::ErrorCode;

// A small valid lock: one target `cpu`, one package `demo 1.0` with one wheel.
std::string valid_lock() {
  wv::lock::Lockfile lockfile;
  wv::lock::LockedPackage demo;
  demo.name = *wv::pkg::parse_package_name("demo");
  demo.version = "1.0";
  wv::lock::LockedFile wheel;
  wheel.name = "demo-1.0-py3-none-any.whl";
  wheel.url = "https://files.example/demo-1.0-py3-none-any.whl";
  wheel.sha256 = std::string(64, 'a');
  demo.wheels = {wheel};
  demo.targets["cpu"].wheels = {wheel.name};
  lockfile.packages = {demo};
  lockfile.extras = {"serve"};
  wv::lock::LockedTarget cpu;
  cpu.name = "cpu";
  cpu.declared = *wv::targets::target_from_facts("cpu", {{"platform", "linux-x86_64"}});
  cpu.roots = {"demo==1.0"};
  lockfile.targets = {cpu};
  return wv::lock::write_lockfile(lockfile);
}

void expect_refused(const std::string& text, const std::string& words) {
  auto read = wv::lock::read_lockfile(text, "pylock.toml");
  INFO(text);
  REQUIRE_FALSE(read.has_value());
  INFO(read.error().message);
  CHECK(read.error().message.find(words) != std::string::npos);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  return std::regex_replace(text, std::regex(from), to);
}

}  // namespace

TEST_CASE("hostile lock: names that would be paths are refused where the lock is read",
          "[lock][hostile]") {
  const std::string text = valid_lock();
  REQUIRE(wv::lock::read_lockfile(text, "pylock.toml").has_value());
  for (const char* target : {"x/../../elsewhere", "..", ".hidden", "a\\\\b", "cpu/x", ""}) {
    INFO("target " << target);
    std::string bad = replace_all(text, "cpu", target);
    auto read = wv::lock::read_lockfile(bad, "pylock.toml");
    CHECK_FALSE(read.has_value());
  }
  expect_refused(replace_all(text, "name = \"demo\"", "name = \"../demo\""), "not a normalised name");
  expect_refused(replace_all(text, "name = \"demo\"", "name = \"Demo\""), "not a normalised name");
  expect_refused(replace_all(text, "extras = \\[\"serve\"\\]", "extras = [\"../../x\"]"),
                 "not a normalised name");
  expect_refused(replace_all(text, "name = \"demo-1.0-py3-none-any.whl\"",
                             "name = \"../../demo-1.0-py3-none-any.whl\""),
                 "is a path, not a file name");
}

TEST_CASE("hostile lock: an entry's wheel must be of its name and version", "[lock][hostile]") {
  const std::string text = valid_lock();
  expect_refused(replace_all(text, "\nversion = \"1.0\"", "\nversion = \"2.0\""),
                 "is not a wheel of demo 2.0");
}

TEST_CASE("hostile lock: TOML nested 100k deep is a limit error, not a crash",
          "[lock][hostile]") {
  std::string deep = valid_lock() + "\n[tool.x]\n";
  for (int i = 0; i < 100000; ++i) deep += i ? ".a" : "a";
  deep += " = 1\n";
  expect_refused(deep, "toml-depth");
  std::string project = "[project]\nname = \"x\"\n[tool.";
  for (int i = 0; i < 100000; ++i) project += "a.";
  project += "b]\n";
  auto parsed = wv::targets::parse_project_file(project, "pyproject.toml");
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().code == ErrorCode::kLimit);
  CHECK(parsed.error().message.find("toml-depth") != std::string::npos);
}

namespace {

// One wheel whose METADATA says `metadata`.
class OneWheel final : public wv::pkg::PackageSource {
 public:
  explicit OneWheel(std::string metadata) : metadata_(std::move(metadata)) {
    wheel_.name = *wv::pkg::parse_package_name("demo");
    wheel_.version = *wv::pkg::parse_version("1.0");
    wheel_.filename = "demo-1.0-py3-none-any.whl";
    wheel_.url = "https://files.example/demo-1.0-py3-none-any.whl";
  }
  wv::Result<std::vector<wv::pkg::Distribution>> distributions(const wv::pkg::PackageName&) override {
    return std::vector<wv::pkg::Distribution>{wheel_};
  }
  wv::Result<std::string> wheel_metadata(const wv::pkg::Distribution&) override { return metadata_; }
  std::vector<wv::Result<std::string>> wheel_metadata_batch(
      const std::vector<wv::pkg::Distribution>& wheels) override {
    return std::vector<wv::Result<std::string>>(wheels.size(), metadata_);
  }
  wv::Result<wv::pkg::VariantsMetadata> variants_metadata(const wv::pkg::PackageName&,
                                                          const wv::pkg::Version&) override {
    return wv::make_error(ErrorCode::kNotFound, "none");
  }
  wv::Result<std::string> file_sha256(const wv::pkg::Distribution&) override {
    return std::string(64, 'a');
  }
  wv::Result<wv::pkg::VariantsMetadata> wheel_variant_metadata(const wv::pkg::Distribution&) override {
    return wv::make_error(ErrorCode::kNotFound, "none");
  }
  wv::pkg::Distribution wheel_;

 private:
  std::string metadata_;
};

}  // namespace

TEST_CASE("hostile lock: METADATA that disagrees with the wheel's file name is refused",
          "[lock][hostile]") {
  struct Case {
    const char* metadata;
    const char* says;
  };
  const Case cases[] = {
      {"Metadata-Version: 2.1\nName: other\nVersion: 1.0\n\n", "METADATA says other 1.0"},
      {"Metadata-Version: 2.1\nName: demo\nVersion: 2.0\n\n", "METADATA says demo 2.0"},
  };
  for (const Case& hostile : cases) {
    OneWheel source(hostile.metadata);
    wv::lock::Catalog catalog(source);
    auto metadata = catalog.metadata(source.wheel_);
    REQUIRE_FALSE(metadata.has_value());
    CHECK(metadata.error().code == ErrorCode::kIntegrity);
    CHECK(metadata.error().message.find("inconsistent name/version") != std::string::npos);
    CHECK(metadata.error().message.find(hostile.says) != std::string::npos);
  }
  // Another spelling of the same name and version is consistent (PEP 503 / PEP 440).
  OneWheel fine("Metadata-Version: 2.1\nName: Demo\nVersion: 1.0.0\n\n");
  wv::lock::Catalog catalog(fine);
  CHECK(catalog.metadata(fine.wheel_).has_value());
}
