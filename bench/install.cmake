# Install benchmark: a closure of generated wheels installed by wv::install::sync into a fresh
# venv, then the same wheel files by pip (/usr/bin/python3 -m pip install --no-deps --no-index
# --target) in the same run, printing both times and the ratio.
add_executable(install_bench ${CMAKE_CURRENT_SOURCE_DIR}/install_bench.cc)
target_link_libraries(install_bench PRIVATE wv_install libzip::zip wv_options)
