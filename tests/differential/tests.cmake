# The differential test against packaging 26.4 (docs/differential.md). The program lives in
# differential/; it is added here until the top-level CMakeLists.txt adds it (the guard keeps
# both ways working).
if(NOT TARGET differential_fuzz)
  add_subdirectory(${PROJECT_SOURCE_DIR}/differential ${CMAKE_BINARY_DIR}/differential)
endif()
wv_add_tests(differential wv_differential wv_pkg)
# A short fixed-seed campaign: no unexplained disagreement allowed; exit 77 = the oracle
# (/usr/bin/python3, ../shared/oracles/packaging-26.4) is unavailable, reported as a skip.
add_test(NAME differential/fixed_seed
         COMMAND differential_fuzz --seed 20261129 --cases 10000)
set_tests_properties(differential/fixed_seed PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
# The comparison cannot pass vacuously: against an oracle that falsifies every kind of answer
# (tests/differential/lying_oracle.py) every kind must report unexplained disagreements.
add_test(NAME differential/detects_disagreements
         COMMAND differential_fuzz --seed 7 --cases 3000
                 --oracle ${CMAKE_CURRENT_LIST_DIR}/lying_oracle.py)
set_tests_properties(differential/detects_disagreements PROPERTIES
  PASS_REGULAR_EXPRESSION "differential: [1-9][0-9]* unexplained disagreements"
  FAIL_REGULAR_EXPRESSION "unexplained 0,"
  SKIP_REGULAR_EXPRESSION "SKIPPED" TIMEOUT 120)
