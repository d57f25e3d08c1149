# Math-layer benchmarks (programs, not tests): MSM on G1/G2 and NTT over Fr. Results: bench/RESULTS_math.md.
add_executable(bench_msm ${CMAKE_CURRENT_LIST_DIR}/bench_msm.cpp)
target_link_libraries(bench_msm PRIVATE cuzk_math)
add_executable(bench_ntt ${CMAKE_CURRENT_LIST_DIR}/bench_ntt.cpp)
target_link_libraries(bench_ntt PRIVATE cuzk_math)
