wv_add_tests(lock wv_lock)
