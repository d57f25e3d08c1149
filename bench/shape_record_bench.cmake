# PoRep partition shape recording / shape_io cache benchmark (bench/shape_record_bench.cpp).
# Results: bench/RESULTS_circuit.md.
add_executable(shape_record_bench ${CMAKE_CURRENT_LIST_DIR}/shape_record_bench.cpp)
target_link_libraries(shape_record_bench PRIVATE cuzk_filecoin_porep)
