# PoRep witness-synthesis benchmark (bench/porep_synth_bench.cpp): sealed 2 KiB / 8 MiB and SYNTHETIC
# 32 GiB (and 64 GiB) C1s -> check_c1, partition values + witness per partition, memory.
# Results: bench/RESULTS_circuit.md.
add_executable(porep_synth_bench ${CMAKE_CURRENT_LIST_DIR}/porep_synth_bench.cpp)
target_link_libraries(porep_synth_bench PRIVATE cuzk_filecoin_testkit)
