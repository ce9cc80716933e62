# PEP 440 benchmark: parse, sort and filter versions with wv::pkg, then the same work with
# Python's packaging (bench/pep440_reference.py run by /usr/bin/python3), printing the ratio.
add_executable(pep440_bench ${CMAKE_CURRENT_SOURCE_DIR}/pep440_bench.cc)
target_link_libraries(pep440_bench PRIVATE wv_pkg wv_options)
target_compile_definitions(pep440_bench PRIVATE
  WV_BENCH_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
  WV_DEFAULT_CONFORMANCE_DIR="${PROJECT_SOURCE_DIR}/../shared/conformance"
  WV_PACKAGING_ORACLE_DIR="${PROJECT_SOURCE_DIR}/../shared/oracles/packaging-26.4")
