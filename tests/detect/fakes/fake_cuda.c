/* A fake libcuda.so.1 exporting the CUDA driver API calls wvlock makes; answers from
   $WV_FAKE_CUDA_SCRIPT (see fake_script.h). */
#include "fake_script.h"

#define S "WV_FAKE_CUDA_SCRIPT"

int cuInit(unsigned int flags) {
  (void)flags;
  return (int)fake_get(S, "init", 0); /* 34 = stub library, 100 = no device */
}
int cuDriverGetVersion(int* version) {
  *version = (int)fake_get(S, "version", 12080);
  return 0;
}
int cuDeviceGetCount(int* count) {
  *count = (int)fake_get(S, "count", 1);
  return 0;
}
int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return 0;
}
int cuDeviceGetAttribute(int* value, int attribute, int device) {
  char key[32];
  snprintf(key, sizeof key, "cc%d", device);
  long cc = fake_get(S, key, 80);
  if (attribute == 75) *value = (int)(cc / 10);
  else if (attribute == 76) *value = (int)(cc % 10);
  else return 1;
  return 0;
}
