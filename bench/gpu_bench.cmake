# GPU benchmarks: bench/gpu/CMakeLists.txt (bench_gpu, bench_prover, the probes). Only with CUDA.
if(ENABLE_CUDA AND TARGET cuzk_gpu)
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/gpu ${CMAKE_CURRENT_BINARY_DIR}/gpu)
endif()
