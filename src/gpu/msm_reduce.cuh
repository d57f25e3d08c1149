// Step 4 of the MSM (private to cuzk_gpu, included by msm_impl.cuh): the bucket reduction
// sum_b b B_b per window in two levels of chunked running sums (bucket_reduce_kernel), and the tree
// sum of per-block partial results (sum_kernel) that also finishes sum_selected.
#pragma once

#include <cstddef>

#include "gpu/cuda_util.cuh"
#include "gpu/msm_layout.cuh"

namespace cuzk::gpu {
namespace {

template <class F>
__device__ XyzzT<F> mul_small(const XyzzT<F>& p, u32 k) {
  XyzzT<F> r = XyzzT<F>::infinity();
  if (k == 0) return r;
  for (int b = 31 - __clz(k); b >= 0; --b) {
    r = r.dbl();
    if ((k >> b) & 1) r.add(p);
  }
  return r;
}

// Bucket reduction, sum_b b B_b per window, in two levels. Level 0: chunk j (buckets lo = j K + 1 ..
// lo + K - 1, K = chunk) gives t_j = sum (b - lo + 1) B_b and s_j = sum B_b, two full additions per
// bucket; then sum_b b B_b = sum_j t_j + K sum_j j s_j. Level 1 is the same kernel on the s_j (bucket j
// weighs j), where each chunk adds its offset times its sum by double-and-add (mul_small): at level 0
// that tail cost about a quarter more additions per bucket; at level 1 it serves K times fewer values.
// Src describes window w's values: count(w) of them at base + offset(w), value i weighing i + 1.
struct LayoutBuckets {  // level 0: the buckets of a WindowLayout
  WindowLayout win;
  __device__ std::size_t offset(int w) const { return win.bucket_offset(w); }
  __device__ u32 count(int w) const { return win.buckets(w); }
};
struct ChunkSums {  // level 1: window w's chunk sums s_1 .. s_{m-1} (s_0 weighs 0), stride apart
  WindowLayout win;
  u32 chunk, stride;
  __device__ std::size_t offset(int w) const { return std::size_t(w) * stride + 1; }
  __device__ u32 count(int w) const { return (win.buckets(w) + chunk - 1) / chunk - 1; }
};

template <class F, class Src, bool kLevel0>
__global__ void __launch_bounds__(128)
    bucket_reduce_kernel(XyzzT<F>* base, Src src, u32 chunk, u32 stride, XyzzT<F>* t_out, XyzzT<F>* s_out) {
  using Xyzz = XyzzT<F>;
  const int w = blockIdx.y;
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= stride) return;
  const u32 count = src.count(w);
  // t waits in shared memory while s takes the next bucket, so that one of the two running sums is
  // live in registers at a time
  __shared__ Xyzz t_sh[128];
  Xyzz s = Xyzz::infinity();
  store_xyzz(&t_sh[threadIdx.x], Xyzz::infinity());
  const u32 lo = j * chunk + 1;
  if (lo <= count) {  // chunks past this window's count store infinity
    Xyzz* B = base + src.offset(w);
    const u32 hi = min(lo + chunk - 1, count);
    for (u32 b = hi; b >= lo; --b) {
      s.add(load_xyzz(B + (b - 1)));
      Xyzz t = load_xyzz(&t_sh[threadIdx.x]);
      t.add(s);
      store_xyzz(&t_sh[threadIdx.x], t);
    }
    if constexpr (!kLevel0) {
      if (lo > 1) {
        Xyzz t = load_xyzz(&t_sh[threadIdx.x]);
        t.add(mul_small(s, lo - 1));
        store_xyzz(&t_sh[threadIdx.x], t);
      }
    }
  }
  store_xyzz(t_out + std::size_t(w) * stride + j, load_xyzz(&t_sh[threadIdx.x]));
  if constexpr (kLevel0) store_xyzz(s_out + std::size_t(w) * stride + j, s);
}

// out[w * gridDim.x + blockIdx.x] = sum of in[w * in_stride + (block's slice of [0, count))].
template <class F>
__global__ void __launch_bounds__(kReduceThreads)
    sum_kernel(const XyzzT<F>* in, u32 count, u32 in_stride, XyzzT<F>* out) {
  using Xyzz = XyzzT<F>;
  __shared__ Xyzz sh[kReduceThreads];
  const int w = blockIdx.y;
  const u32 per = (count + gridDim.x - 1) / gridDim.x;
  const u32 b = blockIdx.x * per, e = min(b + per, count);
  Xyzz acc = Xyzz::infinity();
  for (u32 i = b + threadIdx.x; i < e; i += blockDim.x) acc.add(load_xyzz(in + std::size_t(w) * in_stride + i));
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      Xyzz a = sh[threadIdx.x];
      a.add(sh[threadIdx.x + half]);
      sh[threadIdx.x] = a;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[std::size_t(w) * gridDim.x + blockIdx.x] = sh[0];
}

}  // namespace
}  // namespace cuzk::gpu
