# Start-up benchmark: an empty C++ program (the floor), `wvlock version`, `wvlock targets
# --frozen` on a locked project and a no-op `wvlock sync`, each timed many times, interleaved,
# as median and min and as a ratio to the empty program. --baseline-wvlock PATH times another
# build's binary (e.g. main's) in the same run, side by side.
add_executable(empty_main ${CMAKE_CURRENT_SOURCE_DIR}/empty_main.cc)
if(TARGET wvlock)
  add_executable(startup_bench ${CMAKE_CURRENT_SOURCE_DIR}/startup_bench.cc)
  target_link_libraries(startup_bench PRIVATE wv_options)
  target_compile_definitions(startup_bench PRIVATE
    WV_WVLOCK_PATH="$<TARGET_FILE:wvlock>"
    WV_EMPTY_MAIN_PATH="$<TARGET_FILE:empty_main>"
    WV_FIXTURE_ECOSYSTEM="${PROJECT_BINARY_DIR}/fixtures/ecosystem"
    WV_PYTHON_PATH="${WV_PYTHON}")
  add_dependencies(startup_bench wvlock empty_main)
endif()
