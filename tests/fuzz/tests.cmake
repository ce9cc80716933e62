# fuzz_tests: the fuzz target bodies of fuzz/*_fuzz.cc, compiled without libFuzzer, replay every
# input under fuzz/seeds/<name>/ and fuzz/regressions/<name>/ (docs/fuzzing.md). A property
# violation traps, so the ctest entry fails (and names the input in its output).
wv_add_tests(fuzz wv_pep517 wv_install wv_index wv_lock wv_targets wv_pkg wv_base)
file(GLOB _wv_fuzz_bodies CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/*_fuzz.cc)
target_sources(fuzz_tests PRIVATE ${_wv_fuzz_bodies})
