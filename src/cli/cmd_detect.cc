// `wvlock detect`: the live host profile (each fact with its source) and each provider's
// ordered output; `--json` for tools.
#include <chrono>

#include "src/base/log.h"
#include "src/base/output.h"
#include "src/base/str.h"
#include "src/cli/commands.h"
#include "targets/detect/detect.h"
#include "targets/detect/env_vars.h"
#include "targets/detect_report.h"

namespace wv::cli {

int run_detect(const GlobalOptions&, Arguments& arguments) {
  bool json = arguments.extract_flag("--json");
  if (auto done = arguments.expect_done(); !done) {
    print_error(done.error());
    return kExitUsage;
  }
  auto started = std::chrono::steady_clock::now();
  detect::ProcessEnvironment environment;
  detect::DetectOptions detect_options = detect::options_from_environment(environment);
  auto host = detect::detect_host(detect_options);
  if (!host) {
    print_error(host.error());
    return exit_code_for(host.error());
  }
  std::string report = targets::render_detect_report(*host, json);
  write_out(report);
  double elapsed_ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - started).count();
  log_debug(str_cat("detection took ", std::to_string(elapsed_ms), " ms"));
  return kExitOk;
}

}  // namespace wv::cli
