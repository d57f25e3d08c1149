# C1 (SealCommitPhase1Output) read/check/write speed for a 32 GiB-shaped document
# (bench/c1_parse_bench.cpp): JSON via simdjson, bincode, Curio wrapper, shape checks.
add_executable(c1_parse_bench ${CMAKE_CURRENT_LIST_DIR}/c1_parse_bench.cpp)
target_link_libraries(c1_parse_bench PRIVATE cuzk_filecoin_porep cuzk_filecoin_testkit)
