# GPU benchmark (bench/gpu/bench_gpu.cu): NTT, G1 MSM and the 0/1 path against sppark's H200 anchors.
# Results: bench/RESULTS_gpu.md. Also defines gpu_check here when the tests are not configured, so a
# device build with -DCUZK_BUILD_TESTS=OFF still has both programs.
if(ENABLE_CUDA AND TARGET cuzk_gpu)
  add_executable(bench_gpu ${CMAKE_CURRENT_LIST_DIR}/gpu/bench_gpu.cu)
  # the directory's -Wall/-Wextra are host-compiler flags that nvcc rejects
  set_property(TARGET bench_gpu PROPERTY COMPILE_OPTIONS "-Xcompiler=-Wall")
  target_link_libraries(bench_gpu PRIVATE cuzk_gpu cuzk_math)
  target_compile_options(bench_gpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  # The Groth16 GPU prover on a synthetic PoRep-shaped partition (bench/gpu/bench_prover.cu).
  add_executable(bench_prover ${CMAKE_CURRENT_LIST_DIR}/gpu/bench_prover.cu)
  set_property(TARGET bench_prover PROPERTY COMPILE_OPTIONS "-Xcompiler=-Wall")
  target_link_libraries(bench_prover PRIVATE cuzk_gpu cuzk_groth16)
  # Instruction-pipe rates (IMAD, DFMA, and both interleaved), standalone (bench/gpu/pipe_rates.cu).
  add_executable(pipe_rates ${CMAKE_CURRENT_LIST_DIR}/gpu/pipe_rates.cu)
  set_property(TARGET pipe_rates PROPERTY COMPILE_OPTIONS "-Xcompiler=-Wall")
  # Fp multiplication on the FP64 pipe, checked against gpu::Fp and timed beside it (bench/gpu/fp64_mul_probe.cu).
  add_executable(fp64_mul_probe ${CMAKE_CURRENT_LIST_DIR}/gpu/fp64_mul_probe.cu)
  set_property(TARGET fp64_mul_probe PROPERTY COMPILE_OPTIONS "-Xcompiler=-Wall")
  target_include_directories(fp64_mul_probe PRIVATE ${PROJECT_SOURCE_DIR}/src)
  if(NOT TARGET gpu_check)
    add_executable(gpu_check ${PROJECT_SOURCE_DIR}/tests/gpu/gpu_check.cu)
    set_property(TARGET gpu_check PROPERTY COMPILE_OPTIONS "-Xcompiler=-Wall")
    target_link_libraries(gpu_check PRIVATE cuzk_gpu cuzk_math)
  endif()
endif()
