# Where the host's CPUs stop feeding more GPUs (bench/device_scaling_bench.cpp): real 32 GiB PoRep host
# work through the engine on N simulated devices. Results: bench/RESULTS_daemon.md.
add_executable(device_scaling_bench ${CMAKE_CURRENT_LIST_DIR}/device_scaling_bench.cpp)
target_link_libraries(device_scaling_bench PRIVATE cuzk_engine cuzk_daemon_config cuzk_filecoin_porep cuzk_filecoin_testkit cuzk_formats)
target_compile_definitions(device_scaling_bench PRIVATE CUZK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
