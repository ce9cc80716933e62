# wv_build tests: the hook runner against real setuptools (Debian's python3-setuptools-whl),
# sdist archives read and unpacked, git repositories made at test time.
if(TARGET wv_build)
  wv_add_tests(build wv_build)
  if(TARGET build_tests)
    target_link_libraries(build_tests PRIVATE libzip::zip)
  endif()
endif()
