// detect_bench [--json] [RUNS]: wall time of detect_host() on this machine (first run, then
// min / median / max of the rest), followed by the detect report of the last run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "targets/detect/detect.h"
#include "targets/detect_report.h"

int main(int argc, char** argv) {
  bool json = false;
  int runs = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      runs = std::max(1, std::atoi(argv[i]));
    }
  }
  wv::detect::ProcessEnvironment environment;
  const wv::detect::DetectOptions options = wv::detect::options_from_environment(environment);
  std::vector<double> times;
  wv::Result<wv::targets::HostProfile> host = wv::make_error(wv::ErrorCode::kNotFound, "not run");
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    host = wv::detect::detect_host(options);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!host) {
      std::fprintf(stderr, "error: %s\n", host.error().to_string().c_str());
      return 1;
    }
  }
  const double first = times.front();
  std::vector<double> rest(times.begin() + (times.size() > 1 ? 1 : 0), times.end());
  std::sort(rest.begin(), rest.end());
  std::fprintf(stderr, "detect: %d runs; first %.3f ms; then min %.3f / median %.3f / max %.3f ms\n",
               runs, first, rest.front(), rest[rest.size() / 2], rest.back());
  std::fputs(wv::targets::render_detect_report(*host, json).c_str(), stdout);
  return 0;
}
