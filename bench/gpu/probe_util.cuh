// Shared by the standalone GPU probes (pipe_rates.cu, fp64_mul_probe.cu), which need nothing but the
// CUDA runtime: a checked CUDA call that exits with the failing call's name, and the timing loop.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define PROBE_CHECK(x)                                                            \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s: %s: %s\n", __FILE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// launch(iters) once with iters / 8 to warm up, then the best of three timed launch(iters), in ms.
template <class Launch>
float probe_best_ms(int iters, Launch&& launch) {
  launch(iters / 8);
  PROBE_CHECK(cudaGetLastError());
  cudaEvent_t e0, e1;
  PROBE_CHECK(cudaEventCreate(&e0));
  PROBE_CHECK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int r = 0; r < 3; ++r) {
    PROBE_CHECK(cudaEventRecord(e0));
    launch(iters);
    PROBE_CHECK(cudaEventRecord(e1));
    PROBE_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    PROBE_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    best = ms < best ? ms : best;
  }
  PROBE_CHECK(cudaEventDestroy(e0));
  PROBE_CHECK(cudaEventDestroy(e1));
  return best;
}
