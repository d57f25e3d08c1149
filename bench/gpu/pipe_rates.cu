// Instruction-pipe rates of the GPU: 32-bit integer multiply-add (IMAD: mad.lo.u32, the wide form
// mad.wide.u32 and the high half mad.hi.u32), FP64 fused multiply-add (DFMA), and pairs of them
// interleaved in one instruction stream. The field products behind the MSM and the NTT are IMAD-bound
// (RESULTS_gpu.md, "The multiplier pipes"); whether the FP64 pipe runs beside the IMAD pipe decides whether moving
// part of a product onto it (limbs in doubles, bench/gpu/fp64_mul_probe.cu) can raise the
// multiplication rate at all.
// Each thread runs 8 independent dependency chains per kind, so that the rate is the pipe's, not
// the latency's. Standalone: needs only nvcc (CMake target pipe_rates, or
// `nvcc -O3 -arch=sm_90a bench/gpu/pipe_rates.cu -o pipe_rates`).
// Usage: pipe_rates [--iters N]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "probe_util.cuh"

namespace {

constexpr int kChains = 8;

// kind bits: 1 IMAD (mad.lo.u32), 2 DFMA, 4 IMAD.WIDE (mad.wide.u32), 8 IMAD.HI (mad.hi.u32);
// several bits: interleaved
template <int KIND>
__global__ void pipe_kernel(int iters, unsigned* out_u, double* out_d) {
  unsigned a[kChains], h[kChains];
  unsigned long long w[kChains];
  double x[kChains];
  const unsigned b = threadIdx.x | 1u, c = blockIdx.x;
  const double y = 1.0000001 + threadIdx.x * 1e-9, z = 1e-7;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    a[k] = threadIdx.x + k;
    h[k] = threadIdx.x * 5u + k;
    w[k] = threadIdx.x * 3u + k;
    x[k] = 1.0 + k * 1e-3;
  }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      if constexpr (KIND & 1) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a[k]) : "r"(b), "r"(c));
      if constexpr (KIND & 2) asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x[k]) : "d"(y), "d"(z));
      if constexpr (KIND & 4) {
        unsigned lo = unsigned(w[k]);
        asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w[k]) : "r"(lo), "r"(b));
      }
      if constexpr (KIND & 8) asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(h[k]) : "r"(b), "r"(c));
    }
  }
  unsigned su = 0;
  double sd = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    su += a[k] + h[k] + unsigned(w[k] >> 7);
    sd += x[k];
  }
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out_u[t] = su;  // keeps every chain live
  out_d[t] = sd;
}

struct Launch {
  int blocks, threads, iters;
};

template <int KIND>
float time_kind(const Launch& l, unsigned* ou, double* od) {
  return probe_best_ms(l.iters, [&](int iters) { pipe_kernel<KIND><<<l.blocks, l.threads>>>(iters, ou, od); });
}

}  // namespace

int main(int argc, char** argv) {
  int iters = 1 << 14;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
  int dev = 0, sms = 0, khz = 0;
  PROBE_CHECK(cudaGetDevice(&dev));
  PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  PROBE_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, dev));
  // 8 blocks of 256 threads per SM: 64 warps, enough to cover both pipes' latencies
  const Launch l{sms * 8, 256, iters};
  const double threads = double(l.blocks) * l.threads;
  unsigned* ou = nullptr;
  double* od = nullptr;
  PROBE_CHECK(cudaMalloc(&ou, sizeof(unsigned) * std::size_t(threads)));
  PROBE_CHECK(cudaMalloc(&od, sizeof(double) * std::size_t(threads)));
  const double per_kind = threads * double(iters) * kChains;  // instructions of each kind in a run
  const double sm_clk_per_s = double(sms) * double(khz) * 1e3;
  std::printf("device: %s, %d SMs, clock %.0f MHz (attribute); %d iterations x %d chains per thread\n", prop.name, sms,
              khz / 1e3, iters, kChains);
  std::printf("%-34s | %9s | %14s | %16s\n", "instruction stream", "ms", "each kind /s", "each kind /clk/SM");
  auto row = [&](const char* name, float ms) {
    const double rate = per_kind / (ms * 1e-3);
    std::printf("%-34s | %9.2f | %14.3e | %16.1f\n", name, ms, rate, rate / sm_clk_per_s);
    return ms;
  };
  const float t_imad = row("IMAD (mad.lo.u32)", time_kind<1>(l, ou, od));
  const float t_dfma = row("DFMA (fma.rn.f64)", time_kind<2>(l, ou, od));
  const float t_wide = row("IMAD.WIDE (mad.wide.u32)", time_kind<4>(l, ou, od));
  const float t_hi = row("IMAD.HI (mad.hi.u32)", time_kind<8>(l, ou, od));
  const float t_mix = row("IMAD + DFMA, interleaved 1:1", time_kind<3>(l, ou, od));
  const float t_wmix = row("IMAD.WIDE + DFMA, interleaved 1:1", time_kind<6>(l, ou, od));
  const float t_hmix = row("IMAD.HI + DFMA, interleaved 1:1", time_kind<10>(l, ou, od));
  const float t_lohi = row("IMAD + IMAD.HI, interleaved 1:1", time_kind<9>(l, ou, od));
  const float t_lohid = row("IMAD + IMAD.HI + DFMA, 1:1:1", time_kind<11>(l, ou, od));
  // 1.0: the two run side by side (time of the slower alone); max/sum: they share one pipe
  auto overlap = [](float x, float y, float both) { return (x > y ? x : y) / both; };
  std::printf(
      "overlap with DFMA (1 = concurrent, ~0.5 = serialized): IMAD %.2f, IMAD.WIDE %.2f, IMAD.HI %.2f; "
      "IMAD with IMAD.HI %.2f; IMAD + IMAD.HI beside DFMA %.2f\n",
      overlap(t_imad, t_dfma, t_mix), overlap(t_wide, t_dfma, t_wmix), overlap(t_hi, t_dfma, t_hmix),
      overlap(t_imad, t_hi, t_lohi), overlap(t_lohi, t_dfma, t_lohid));
  PROBE_CHECK(cudaFree(ou));
  PROBE_CHECK(cudaFree(od));
  return 0;
}
