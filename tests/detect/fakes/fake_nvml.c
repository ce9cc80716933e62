/* A fake libnvidia-ml.so.1 exporting the NVML calls wvlock makes; answers from
   $WV_FAKE_NVML_SCRIPT (see fake_script.h), calls logged to $WV_FAKE_NVML_LOG. */
#include <stdint.h>
#include <unistd.h>

#include "fake_script.h"

#define S "WV_FAKE_NVML_SCRIPT"

int nvmlInitWithFlags(unsigned int flags) {
  (void)flags;
  long sleep_ms = fake_get(S, "sleep_ms", 0);
  if (sleep_ms > 0) usleep((useconds_t)(sleep_ms * 1000));
  fake_log("WV_FAKE_NVML_LOG", "init");
  return (int)fake_get(S, "init", 0);
}
int nvmlShutdown(void) {
  fake_log("WV_FAKE_NVML_LOG", "shutdown");
  return 0;
}
int nvmlSystemGetDriverVersion(char* buffer, unsigned int length) {
  snprintf(buffer, length, "580.65.06");
  return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  long rc = fake_get(S, "cuda_rc", 0);
  if (rc != 0) return (int)rc;
  *version = (int)fake_get(S, "cuda_version", 12080);
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned int* count) {
  long rc = fake_get(S, "count_rc", 0);
  if (rc != 0) return (int)rc;
  *count = (unsigned)fake_get(S, "count", 1);
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (fake_get(S, "handle_fail", -1) == (long)index) return 999;
  *device = (void*)(uintptr_t)(index + 1);
  return 0;
}
int nvmlDeviceGetCudaComputeCapability(void* device, int* major, int* minor) {
  long index = (long)(uintptr_t)device - 1;
  if (fake_get(S, "cc_fail", -1) == index) return 3;
  char key[32];
  snprintf(key, sizeof key, "cc%ld", index);
  long cc = fake_get(S, key, 90); /* major * 10 + minor */
  *major = (int)(cc / 10);
  *minor = (int)(cc % 10);
  return 0;
}
