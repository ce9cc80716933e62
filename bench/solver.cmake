# Solver benchmark: seeded synthetic registries solved by wv::solver, then the same registries
# (written as JSON) by pip's bundled resolvelib (bench/solver_reference.py, /usr/bin/python3),
# printing times, peak memory and the ratio.
add_executable(solver_bench ${CMAKE_CURRENT_SOURCE_DIR}/solver_bench.cc)
target_link_libraries(solver_bench PRIVATE wv_solver wv_options)
target_compile_definitions(solver_bench PRIVATE WV_BENCH_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
