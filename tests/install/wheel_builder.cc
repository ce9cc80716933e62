// Test helper: wheel files written with libzip.
#include "wheel_builder.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <zip.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "tests/support/package_name.h"
#include "src/base/file_system.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/pkg/wheel_filename.h"

namespace wv::test {
namespace {

void add_entry(zip_t* archive, const std::string& name, const std::string& content,
               std::uint32_t mode) {
  // libzip copies the buffer when freep is 0 only at close time, so keep a heap copy alive.
  // An empty member needs no buffer (libzip does not free one of length 0).
  char* data = nullptr;
  if (!content.empty()) {
    data = static_cast<char*>(std::malloc(content.size()));
    std::memcpy(data, content.data(), content.size());
  }
  zip_source_t* source = zip_source_buffer(archive, data, content.size(), data != nullptr);
  REQUIRE(source != nullptr);
  zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
  if (index < 0) zip_source_free(source);
  REQUIRE(index >= 0);
  zip_file_set_external_attributes(archive, static_cast<zip_uint64_t>(index), 0, ZIP_OPSYS_UNIX,
                                   mode << 16);
}

}  // namespace

std::string wheel_filename(const WheelSpec& spec) {
  return str_cat(spec.name, "-", spec.version, spec.build.empty() ? "" : "-" + spec.build, "-",
                 spec.tags,
                 spec.label.empty() ? "" : "-" + spec.label, ".whl");
}

std::string build_wheel(const WheelSpec& spec, const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + wheel_filename(spec);
  std::filesystem::remove(path);
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  REQUIRE(archive != nullptr);
  const std::string dist_info =
      str_cat(spec.dist_info_stem.empty() ? str_cat(spec.name, "-", spec.version) : spec.dist_info_stem,
              ".dist-info");
  std::vector<WheelEntry> files = spec.files;
  files.push_back({dist_info + "/METADATA",
                   spec.metadata.empty()
                       ? str_cat("Metadata-Version: 2.1\nName: ", spec.name, "\nVersion: ",
                                 spec.version, "\n\n")
                       : spec.metadata});
  files.push_back({dist_info + "/WHEEL",
                   str_cat("Wheel-Version: 1.0\nGenerator: wvlock-tests\nRoot-Is-Purelib: ",
                           spec.root_is_purelib ? "true" : "false", "\nTag: ", spec.tags, "\n")});
  if (!spec.entry_points.empty()) files.push_back({dist_info + "/entry_points.txt", spec.entry_points});
  std::string record;
  for (const WheelEntry& entry : files) {
    std::uint32_t mode = entry.symlink ? (S_IFLNK | 0777) : (S_IFREG | (entry.executable ? 0755 : 0644));
    add_entry(archive, entry.name, entry.content, mode);
    if (!entry.in_record) continue;
    std::string hash = entry.record_hash.empty() ? sha256_record_digest(entry.content) : entry.record_hash;
    record += str_cat(entry.name, ",", hash, ",", entry.content.size(), "\n");
  }
  record += dist_info + "/RECORD,,\n";
  add_entry(archive, dist_info + "/RECORD", record, S_IFREG | 0644);
  REQUIRE(zip_close(archive) == 0);
  return path;
}

lock::LockedFile locked_file(const std::string& path) {
  lock::LockedFile file;
  file.name = std::string(path_filename(path));
  file.path = path;
  file.sha256 = sha256_file_hex(path).value();
  file.size = std::filesystem::file_size(path);
  return file;
}

int run_command(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::string text;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, got);
  int status = ::pclose(pipe);
  if (output != nullptr) *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string machine() {
  struct utsname name;
  ::uname(&name);
  return name.machine;
}

targets::HostProfile live_host() {
  targets::HostProfile host;
  host.os.set(targets::OsKind::kLinux, targets::FactSource::kUname);
  host.arch.set(machine(), targets::FactSource::kUname);
  host.libc.set(targets::LibcKind::kGlibc, targets::FactSource::kLibc);
  host.libc_version.set({2, 35}, targets::FactSource::kLibc);
  return host;
}

std::string run_checked(const std::string& command, int expected_exit) {
  std::string output;
  int code = run_command(command, &output);
  INFO(command << "\n" << output);
  CHECK(code == expected_exit);
  return output;
}

lock::Lockfile lock_of_wheels(const std::vector<lock::LockedFile>& files) {
  lock::Lockfile lockfile;
  lock::LockedTarget target;
  target.name = "cpu";
  target.declared = *targets::target_from_facts("cpu", {{"platform", "linux-" + machine()}});
  for (const lock::LockedFile& file : files) {
    auto parsed = pkg::parse_wheel_filename(file.name);
    REQUIRE(parsed.has_value());
    lock::LockedPackage package;
    package.name = wv::test::package_name(parsed->name.str());
    package.version = parsed->version.to_string();
    package.wheels = {file};
    package.targets["cpu"].wheels = {file.name};
    target.roots.push_back(package.name.str() + "==" + package.version);
    lockfile.packages.push_back(std::move(package));
  }
  lockfile.targets = {target};
  lock::canonicalize(lockfile);
  REQUIRE(lock::validate(lockfile, "test.toml").has_value());
  return lockfile;
}

}  // namespace wv::test
