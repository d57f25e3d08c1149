# Parameter-file loading benchmark (bench/bench_params_load.cpp): mmap + parallel decode + on-curve
# checks of a 2^22-domain bellperson .params file. Results: bench/RESULTS_params.md.
add_executable(bench_params_load ${CMAKE_CURRENT_LIST_DIR}/bench_params_load.cpp)
target_link_libraries(bench_params_load PRIVATE cuzk_formats_bellperson)
