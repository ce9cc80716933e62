// NVIDIA detection (reference/anchors.md §4.1–§4.2): NVML, then the CUDA driver API, then
// nvidia-smi. The library probes run on a worker thread so a hung driver cannot stall wvlock
// past the time limit; on timeout the worker is left behind (detached) and the answer is
// "no NVIDIA". A host where none of the libraries loads starts no worker: loading is tried on
// the calling thread first (a missing library costs a path search, and cannot hang).
#include <dlfcn.h>

#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "src/base/str.h"
#include "targets/detect/detect.h"
#include "src/base/process.h"

namespace wv::detect {
namespace {

using targets::FactSource;
using targets::MajorMinor;

// NVML and CUDA driver API signatures (nvml.h, cuda.h); return codes are 0 on success.
using NvmlInitWithFlags = int (*)(unsigned int);
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlGetDriverVersion = int (*)(char*, unsigned int);
using NvmlGetCudaDriverVersion = int (*)(int*);
using NvmlDeviceGetCount = int (*)(unsigned int*);
using NvmlDeviceGetHandleByIndex = int (*)(unsigned int, void**);
using NvmlDeviceGetCudaComputeCapability = int (*)(void*, int*, int*);
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);

constexpr int kCudaErrorStubLibrary = 34;
constexpr int kCudaErrorNoDevice = 100;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;
constexpr unsigned kMaxDevices = 1024;  // a bound on what a (fake or broken) library reports

// Closes a dlopen handle on scope exit.
struct Library {
  void* handle = nullptr;
  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }
  template <class F>
  F symbol(const char* name) const {
    return reinterpret_cast<F>(dlsym(handle, name));
  }
};

std::string dl_error() {
  const char* message = dlerror();
  return message ? message : "unknown error";
}

// The note for a library that does not load ("nvml: cannot load `libnvidia-ml.so.1`: ...").
std::string load_failure(std::string_view probe, const std::string& name) {
  return str_cat(probe, ": cannot load ", in_backticks(name), ": ", dl_error());
}

// Loads each of `libraries` on the calling thread: the notes of those that do not load; the
// handles of those that do go to `loaded` (the worker's own dlopen then finds them loaded).
std::vector<std::string> load_failures(std::string_view probe,
                                       const std::vector<std::string>& libraries,
                                       std::vector<void*>& loaded) {
  std::vector<std::string> notes;
  for (const std::string& name : libraries) {
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      notes.push_back(load_failure(probe, name));
    } else {
      loaded.push_back(handle);
    }
  }
  return notes;
}

NvidiaFacts probe_nvml(const std::vector<std::string>& libraries) {
  NvidiaFacts facts;
  for (const std::string& name : libraries) {
    Library library{dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)};
    if (library.handle == nullptr) {
      facts.notes.push_back(load_failure("nvml", name));
      continue;
    }
    auto init_with_flags = library.symbol<NvmlInitWithFlags>("nvmlInitWithFlags");
    auto init = library.symbol<NvmlInit>("nvmlInit_v2");
    auto shutdown = library.symbol<NvmlShutdown>("nvmlShutdown");
    int rc = -1;
    if (init_with_flags != nullptr) {
      rc = init_with_flags(0);
    } else if (init != nullptr) {
      rc = init();
    } else {
      facts.notes.push_back(str_cat("nvml: ", in_backticks(name), " has no nvmlInitWithFlags"));
      continue;
    }
    // Shutdown is attempted even after a failed init (as the NVIDIA provider does).
    struct Shutdown {
      NvmlShutdown call;
      ~Shutdown() {
        if (call != nullptr) call();
      }
    } shutdown_guard{shutdown};
    if (rc != 0) {
      facts.notes.push_back(str_cat("nvml: nvmlInitWithFlags failed (code ", rc, ")"));
      return facts;
    }
    if (auto driver = library.symbol<NvmlGetDriverVersion>("nvmlSystemGetDriverVersion")) {
      char buffer[96] = {};
      if (driver(buffer, 80) == 0) facts.kernel_driver = std::string(buffer, strnlen(buffer, 80));
    }
    auto cuda_version = library.symbol<NvmlGetCudaDriverVersion>("nvmlSystemGetCudaDriverVersion_v2");
    if (cuda_version == nullptr) {
      cuda_version = library.symbol<NvmlGetCudaDriverVersion>("nvmlSystemGetCudaDriverVersion");
    }
    int version = 0;
    if (cuda_version == nullptr || (rc = cuda_version(&version)) != 0) {
      facts.notes.push_back(str_cat("nvml: no CUDA driver version (code ", rc, ")"));
      return facts;
    }
    const std::optional<MajorMinor> decoded = decode_cuda_version(version);
    if (!decoded) {
      facts.notes.push_back(str_cat("nvml: implausible CUDA driver version ", version));
      return facts;
    }
    auto count = library.symbol<NvmlDeviceGetCount>("nvmlDeviceGetCount_v2");
    if (count == nullptr) count = library.symbol<NvmlDeviceGetCount>("nvmlDeviceGetCount");
    auto handle_by_index = library.symbol<NvmlDeviceGetHandleByIndex>("nvmlDeviceGetHandleByIndex_v2");
    if (handle_by_index == nullptr) {
      handle_by_index = library.symbol<NvmlDeviceGetHandleByIndex>("nvmlDeviceGetHandleByIndex");
    }
    auto capability = library.symbol<NvmlDeviceGetCudaComputeCapability>(
        "nvmlDeviceGetCudaComputeCapability");
    unsigned devices = 0;
    if (count == nullptr || (rc = count(&devices)) != 0) {
      facts.notes.push_back(str_cat("nvml: cannot count devices (code ", rc, ")"));
      return facts;
    }
    for (unsigned i = 0; i < devices && i < kMaxDevices; ++i) {
      void* device = nullptr;
      if (handle_by_index == nullptr || (rc = handle_by_index(i, &device)) != 0) {
        // A handle error aborts detection, as in the NVIDIA provider.
        facts.notes.push_back(str_cat("nvml: no handle for device ", i, " (code ", rc, ")"));
        facts.compute_capabilities.clear();
        return facts;
      }
      int major = 0, minor = 0;
      if (capability == nullptr || (rc = capability(device, &major, &minor)) != 0) {
        facts.notes.push_back(str_cat("nvml: device ", i, ": no compute capability (code ", rc,
                                      "), skipped"));
        continue;
      }
      facts.compute_capabilities.push_back({major, minor});
    }
    facts.found = true;
    facts.source = FactSource::kNvml;
    facts.cuda_driver = *decoded;
    if (devices == 0) facts.notes.push_back("nvml: the driver reports no GPU");
    return facts;
  }
  return facts;
}

NvidiaFacts probe_libcuda(const std::vector<std::string>& libraries) {
  NvidiaFacts facts;
  for (const std::string& name : libraries) {
    Library library{dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)};
    if (library.handle == nullptr) {
      facts.notes.push_back(load_failure("libcuda", name));
      continue;
    }
    auto init = library.symbol<CuInit>("cuInit");
    auto driver_version = library.symbol<CuDriverGetVersion>("cuDriverGetVersion");
    auto count = library.symbol<CuDeviceGetCount>("cuDeviceGetCount");
    auto get = library.symbol<CuDeviceGet>("cuDeviceGet");
    auto attribute = library.symbol<CuDeviceGetAttribute>("cuDeviceGetAttribute");
    if (init == nullptr || driver_version == nullptr) {
      facts.notes.push_back(str_cat("libcuda: ", in_backticks(name), " lacks cuInit"));
      continue;
    }
    const int rc = init(0);
    if (rc == kCudaErrorStubLibrary) {
      facts.notes.push_back(str_cat("libcuda: ", in_backticks(name),
                                    " is the CUDA toolkit's stub, not a driver"));
      continue;
    }
    if (rc != 0 && rc != kCudaErrorNoDevice) {
      facts.notes.push_back(str_cat("libcuda: cuInit failed (code ", rc, ")"));
      return facts;
    }
    int version = 0;
    std::optional<MajorMinor> decoded;
    if (driver_version(&version) == 0) decoded = decode_cuda_version(version);
    if (!decoded) {
      facts.notes.push_back(str_cat("libcuda: no plausible driver version (", version, ")"));
      return facts;
    }
    facts.found = true;
    facts.source = FactSource::kLibcuda;
    facts.cuda_driver = *decoded;
    int devices = 0;
    if (rc == kCudaErrorNoDevice || count == nullptr || attribute == nullptr ||
        count(&devices) != 0) {
      facts.notes.push_back("libcuda: the driver reports no GPU");
      return facts;
    }
    for (int i = 0; i < devices && i < static_cast<int>(kMaxDevices); ++i) {
      int device = i;
      if (get != nullptr && get(&device, i) != 0) continue;
      int major = 0, minor = 0;
      if (attribute(&major, kComputeCapabilityMajor, device) != 0 ||
          attribute(&minor, kComputeCapabilityMinor, device) != 0) {
        facts.notes.push_back(str_cat("libcuda: device ", i, ": no compute capability, skipped"));
        continue;
      }
      facts.compute_capabilities.push_back({major, minor});
    }
    facts.notes.push_back("libcuda: answers depend on CUDA_VISIBLE_DEVICES");
    return facts;
  }
  return facts;
}

NvidiaFacts probe_nvidia_smi(const std::string& program, std::chrono::milliseconds timeout) {
  NvidiaFacts facts;
  if (program.empty()) return facts;
  const std::vector<std::string> unset = {"CUDA_VISIBLE_DEVICES"};
  // `nvidia-smi` prints "CUDA Version: 12.8" in its banner; parse stdout even on a non-zero
  // exit (degraded multi-GPU states still print it).
  Result<ProcessOutput> banner = run_process({program}, timeout, unset);
  if (!banner) {
    facts.notes.push_back(str_cat("nvidia-smi: ", banner.error().message));
    return facts;
  }
  if (banner->timed_out) {
    facts.notes.push_back(str_cat("nvidia-smi: no answer within ", timeout.count(), " ms"));
    return facts;
  }
  const std::string_view text = banner->output;
  const std::size_t at = text.find("CUDA Version:");
  if (at == std::string_view::npos) {
    facts.notes.push_back("nvidia-smi: no `CUDA Version` in its output");
    return facts;
  }
  std::string_view rest = trim_left(text.substr(at + 13));
  std::size_t end = 0;
  while (end < rest.size() && (is_ascii_digit(rest[end]) || rest[end] == '.')) ++end;
  Result<targets::MajorMinor> version =
      targets::parse_major_minor(rest.substr(0, end), "CUDA version");
  if (!version) {
    facts.notes.push_back(str_cat("nvidia-smi: ", version.error().message));
    return facts;
  }
  facts.found = true;
  facts.source = FactSource::kNvidiaSmi;
  facts.cuda_driver = *version;
  Result<ProcessOutput> query = run_process(
      {program, "--query-gpu=compute_cap", "--format=csv,noheader"}, timeout, unset);
  if (!query || query->timed_out) {
    facts.notes.push_back("nvidia-smi: the compute capability query did not answer");
    return facts;
  }
  for (std::string_view line : split(query->output, '\n')) {
    line = trim(line);
    if (line.empty() || line.find("N/A") != std::string_view::npos) continue;
    Result<targets::MajorMinor> cc = targets::parse_major_minor(line, "compute capability");
    if (cc) facts.compute_capabilities.push_back(*cc);
  }
  return facts;
}

// Runs `probe` on a worker thread; nullopt when it does not finish within `timeout`.
std::optional<NvidiaFacts> run_bounded(std::function<NvidiaFacts()> probe,
                                       std::chrono::milliseconds timeout) {
  struct State {
    std::mutex mutex;
    std::condition_variable done_signal;
    bool done = false;
    NvidiaFacts facts;
  };
  auto state = std::make_shared<State>();
  std::thread worker([state, probe = std::move(probe)] {
    NvidiaFacts facts = probe();
    std::lock_guard<std::mutex> lock(state->mutex);
    state->facts = std::move(facts);
    state->done = true;
    state->done_signal.notify_all();
  });
  std::unique_lock<std::mutex> lock(state->mutex);
  if (!state->done_signal.wait_for(lock, timeout, [&] { return state->done; })) {
    worker.detach();  // a hung driver call cannot be interrupted; leave it behind
    return std::nullopt;
  }
  lock.unlock();
  // A worker that answered is joined, so its thread-local state (dlerror's buffer) is released
  // before we go on, rather than racing with the process's exit.
  worker.join();
  return std::move(state->facts);
}

// NVML, then libcuda, on the bounded worker; nullopt when it did not answer in time.
std::optional<NvidiaFacts> probe_libraries(const DetectOptions& options) {
  // The worker gets copies: it may outlive this call when a driver hangs.
  std::vector<std::string> nvml = options.nvml_libraries;
  std::vector<std::string> cuda = options.cuda_libraries;
  return run_bounded(
      [nvml, cuda] {
        NvidiaFacts facts = probe_nvml(nvml);
        if (facts.found) return facts;
        NvidiaFacts fallback = probe_libcuda(cuda);
        fallback.notes.insert(fallback.notes.begin(), facts.notes.begin(), facts.notes.end());
        return fallback;
      },
      options.probe_timeout);
}

}  // namespace

std::optional<MajorMinor> decode_cuda_version(int value) {
  if (value < 1000 || value > 99990) return std::nullopt;
  return MajorMinor{value / 1000, (value % 1000) / 10};
}

NvidiaFacts probe_nvidia(const DetectOptions& options) {
  std::vector<void*> loaded;
  std::vector<std::string> notes = load_failures("nvml", options.nvml_libraries, loaded);
  std::vector<std::string> cuda_notes = load_failures("libcuda", options.cuda_libraries, loaded);
  notes.insert(notes.end(), cuda_notes.begin(), cuda_notes.end());
  // With nothing loaded, `notes` are what the worker would have said.
  if (!loaded.empty()) {
    std::optional<NvidiaFacts> libraries = probe_libraries(options);
    for (void* handle : loaded) dlclose(handle);
    if (libraries && libraries->found) return std::move(*libraries);
    notes = libraries ? std::move(libraries->notes)
                      : std::vector<std::string>{str_cat("nvml/libcuda: no answer within ",
                                                         options.probe_timeout.count(), " ms")};
  }
  NvidiaFacts smi = probe_nvidia_smi(options.nvidia_smi, options.probe_timeout);
  smi.notes.insert(smi.notes.begin(), notes.begin(), notes.end());
  return smi;
}

}  // namespace wv::detect
