// Live detection started as soon as a command knows it needs it, on a worker thread: the probes
// wait on the file system, the dynamic loader's search and driver libraries (NVML's init takes
// milliseconds on a GPU host), so they run beside the lock read and the interpreter's facts
// rather than before or after them.
#pragma once

#include <future>

#include "src/base/result.h"
#include "targets/host_profile.h"

namespace wv::cli {

class HostDetection {
 public:
  /// Starts detect_host() with the options of this process's environment.
  HostDetection();
  /// Waits for the detection when get() was not called (an early return of the command).
  ~HostDetection();
  HostDetection(const HostDetection&) = delete;
  HostDetection& operator=(const HostDetection&) = delete;

  /// The detected host, or detection's error; waits for it. Once.
  Result<targets::HostProfile> get();

 private:
  std::future<Result<targets::HostProfile>> result_;
};

}  // namespace wv::cli
