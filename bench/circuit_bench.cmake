# Circuit-layer benchmark (a program, not a test): witness generation speed per core.
# Results: bench/RESULTS_circuit.md.
add_executable(bench_witness ${CMAKE_CURRENT_LIST_DIR}/bench_witness.cpp)
target_link_libraries(bench_witness PRIVATE cuzk_circuit)
