# Locking benchmark: the five-target example lock (in process; the wvlock command over a local
# index and over loopback HTTP, cold and warm), a synthetic 1,000-project ecosystem
# (bench/synthetic_ecosystem.py) locked for 1 and 5 targets, and pip's resolver
# (bench/lock_reference.py) on the same index for one target, with the ratio and agreement;
# then `wvlock fetch` of fixtures/example-pytorch's five targets over a 20 ms link, parallel
# beside one download at a time (`--fetch-only` runs that case alone).
# The in-process lock takes the lock layer's inputs from lock::project_inputs over a local
# index::IndexSource (no CLI code), and times the built wvlock binary. `--real-cases DIR` locks
# real PyPI graphs (resolvelib's snapshots) beside pip and a baseline binary
# (bench/lock_real_cases.cc, bench/real_case_index.py).
if(TARGET wvlock AND TARGET wv_lock AND TARGET wv_index AND TARGET wv_net)
  add_executable(lock_bench ${CMAKE_CURRENT_SOURCE_DIR}/lock_bench.cc
                            ${CMAKE_CURRENT_SOURCE_DIR}/lock_real_cases.cc)
  target_link_libraries(lock_bench PRIVATE wv_lock wv_targets wv_index wv_net wv_base)
  target_compile_definitions(lock_bench PRIVATE
    WV_BENCH_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
    WV_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    WV_WVLOCK_PATH="$<TARGET_FILE:wvlock>")
  add_dependencies(lock_bench wvlock)
endif()
