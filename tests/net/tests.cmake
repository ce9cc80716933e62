wv_add_tests(net wv_net)
