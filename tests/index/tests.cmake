# wv_index tests: parsers (unit + conformance over ../shared/conformance/variants-index and
# variantlib), zip reading, sources over the fixture ecosystem, and HTTP over a loopback server
# (tests/index/range_server.py) through the real curl Fetcher when wv_net is built.
wv_add_tests(index wv_index)
# Tests build wheels with libzip and read variants JSON with nlohmann.
target_link_libraries(index_tests PRIVATE libzip::zip nlohmann_json::nlohmann_json)
if(TARGET wv_net)
  target_link_libraries(index_tests PRIVATE wv_net)
  target_compile_definitions(index_tests PRIVATE WV_HAVE_NET=1)
endif()
