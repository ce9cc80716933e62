# wv_pep517 tests: the hook runner against real setuptools (Debian's python3-setuptools-whl),
# sdist archives read and unpacked, git repositories made at test time.
if(TARGET wv_pep517)
  wv_add_tests(pep517 wv_pep517)
  if(TARGET pep517_tests)
    target_link_libraries(pep517_tests PRIVATE libzip::zip)
  endif()
endif()
