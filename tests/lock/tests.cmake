wv_add_tests(lock wv_lock)
target_link_libraries(lock_tests PRIVATE wv_toml)
