# Live detection wall time: runs targets/detect on this machine N times and prints the timing
# and the `wvlock detect` report (text, or JSON with --json).
add_executable(detect_bench ${CMAKE_CURRENT_SOURCE_DIR}/detect_bench.cc)
target_link_libraries(detect_bench PRIVATE wv_detect wv_targets wv_options)
