# wv_install tests: target selection tables, real wheels (written with libzip by
# wheel_builder.cc) installed into real venvs (`python3 -m venv --without-pip`), bad input.
wv_add_tests(install wv_install wv_detect)  # select_test checks selection against live detection
target_sources(install_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/wheel_builder.cc)
target_link_libraries(install_tests PRIVATE libzip::zip)
