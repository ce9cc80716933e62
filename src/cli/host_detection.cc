// Background host detection (cli/host_detection.h).
#include "src/cli/host_detection.h"

#include "targets/detect/detect.h"
#include "targets/detect/env_vars.h"

namespace wv::cli {

HostDetection::HostDetection()
    : result_(std::async(std::launch::async, [] {
        detect::ProcessEnvironment environment;
        return detect::detect_host(detect::options_from_environment(environment));
      })) {}

HostDetection::~HostDetection() {
  if (result_.valid()) result_.wait();
}

Result<targets::HostProfile> HostDetection::get() { return result_.get(); }

}  // namespace wv::cli
