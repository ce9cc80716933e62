# fault_tests: wvlock lock and sync against the chaos server of tests/net/fault_server.py, with
# the process killed at random points (docs/fault-injection.md). ctest runs a few fixed seeds;
# scripts/fault-injection.sh runs a large campaign through the same executable.
wv_add_tests(fault wv_net)
add_dependencies(fault_tests wvlock)
if(TARGET wv_fixtures)
  add_dependencies(fault_tests wv_fixtures)
endif()
target_compile_definitions(fault_tests PRIVATE WVLOCK_BINARY="$<TARGET_FILE:wvlock>")
