wv_add_tests(detect wv_detect)
# Scripted stand-ins for libnvidia-ml.so.1 and libcuda.so.1: detection dlopens them for real.
add_library(wv_fake_nvml SHARED ${CMAKE_CURRENT_LIST_DIR}/fakes/fake_nvml.c)
add_library(wv_fake_cuda SHARED ${CMAKE_CURRENT_LIST_DIR}/fakes/fake_cuda.c)
add_dependencies(detect_tests wv_fake_nvml wv_fake_cuda)
target_compile_definitions(detect_tests PRIVATE WV_FAKE_NVML="$<TARGET_FILE:wv_fake_nvml>"
                                                WV_FAKE_CUDA="$<TARGET_FILE:wv_fake_cuda>")
