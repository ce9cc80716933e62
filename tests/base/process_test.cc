// Tests for src/base/process.h: output capture, time limit, environment filtering.
#include "src/base/process.h"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace wv {
namespace {

TEST_CASE("process: captures stdout and the exit code", "[detect][process]") {
  Result<ProcessOutput> output =
      run_process({"sh", "-c", "echo hello; echo oops >&2; exit 3"}, std::chrono::seconds(5));
  REQUIRE(output);
  CHECK(output->output == "hello\n");
  CHECK(output->exit_code == 3);
  CHECK_FALSE(output->timed_out);
  output = run_process({"sh", "-c", "echo out; echo err >&2"}, std::chrono::seconds(5), {}, true);
  REQUIRE(output);
  CHECK(output->output.find("err") != std::string::npos);
}

TEST_CASE("process: a slow child is killed at the deadline", "[detect][process]") {
  const auto start = std::chrono::steady_clock::now();
  Result<ProcessOutput> output =
      run_process({"sh", "-c", "echo partial; sleep 10"}, std::chrono::milliseconds(200));
  REQUIRE(output);
  CHECK(output->timed_out);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
}

TEST_CASE("process: listed variables are removed from the child's environment",
          "[detect][process]") {
  setenv("WV_PROCESS_TEST_VARIABLE", "1", 1);
  Result<ProcessOutput> output =
      run_process({"sh", "-c", "echo ${WV_PROCESS_TEST_VARIABLE-unset}"}, std::chrono::seconds(5),
                  {"WV_PROCESS_TEST_VARIABLE"});
  REQUIRE(output);
  CHECK(output->output == "unset\n");
  output = run_process({"sh", "-c", "echo ${WV_PROCESS_TEST_VARIABLE-unset}"},
                       std::chrono::seconds(5));
  REQUIRE(output);
  CHECK(output->output == "1\n");
  unsetenv("WV_PROCESS_TEST_VARIABLE");
}

TEST_CASE("process: a missing program is an error", "[detect][process]") {
  Result<ProcessOutput> output = run_process({"/no/such/program"}, std::chrono::seconds(1));
  REQUIRE_FALSE(output);
  CHECK(output.error().message.find("`/no/such/program`") != std::string::npos);
  CHECK_FALSE(run_process({}, std::chrono::seconds(1)));
}

TEST_CASE("process: a bare name is looked up on PATH only, and a miss spawns nothing",
          "[detect][process]") {
  // An executable of that name in the working folder, off PATH: a shell would not run it.
  char pattern[] = "/tmp/wv-process-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string folder = pattern;
  const std::string program = folder + "/wv-cwd-only";
  REQUIRE(std::system(("printf '#!/bin/sh\necho ran\n' > " + program + " && chmod +x " + program).c_str()) == 0);
  char previous[4096];
  REQUIRE(getcwd(previous, sizeof previous) != nullptr);
  REQUIRE(chdir(folder.c_str()) == 0);
  Result<ProcessOutput> output = run_process(ProcessOptions{
      .argv = {"wv-cwd-only"}, .timeout = std::chrono::seconds(5), .environment =
          std::vector<std::string>{"PATH=/usr/bin:/bin"}});
  REQUIRE(chdir(previous) == 0);
  REQUIRE_FALSE(output);
  CHECK(output.error().code == ErrorCode::kNotFound);
  CHECK(output.error().message == "cannot run `wv-cwd-only`: No such file or directory");
  // On PATH, the same program runs.
  output = run_process(ProcessOptions{.argv = {"wv-cwd-only"},
                                      .timeout = std::chrono::seconds(5),
                                      .environment = std::vector<std::string>{"PATH=" + folder}});
  REQUIRE(output);
  CHECK(output->output == "ran\n");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace wv
