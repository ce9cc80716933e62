# cli_tests run the built wvlock binary on the example project against the generated fixture
# ecosystem, in temporary folders, and check stdout, stderr, exit codes and the lockfile.
wv_add_tests(cli wv_lock)
add_dependencies(cli_tests wvlock)
target_compile_definitions(cli_tests PRIVATE WVLOCK_BINARY="$<TARGET_FILE:wvlock>")
# The CLI tests parse `--json` output with nlohmann.
target_link_libraries(cli_tests PRIVATE nlohmann_json::nlohmann_json)
target_link_libraries(cli_tests PRIVATE wv_cli_project)
