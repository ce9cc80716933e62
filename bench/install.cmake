# Install benchmark: generated closures (a small-wheel case and a torch-shaped one) installed by
# wv::install::sync() cold, warm and as a no-op (also through the wvlock CLI), against venv
# creation, pip --target, cp -r and cp -al in the same run, with each sync's max RSS and the
# goals (bench/install_bench.cc).
add_executable(install_bench ${CMAKE_CURRENT_SOURCE_DIR}/install_bench.cc)
target_link_libraries(install_bench PRIVATE wv_install libzip::zip wv_options)
target_compile_definitions(install_bench PRIVATE WV_EMPTY_MAIN_PATH="$<TARGET_FILE:empty_main>")
add_dependencies(install_bench empty_main)
