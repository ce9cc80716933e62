wv_add_tests(targets wv_targets)
