// Tests for src/base/process.h: output capture, time limit, environment filtering.
#include "src/base/process.h"

#include <catch2/catch.hpp>
#include <cstdlib>

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

}  // namespace
}  // namespace wv
