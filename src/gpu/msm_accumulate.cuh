// Step 3 of the MSM on the mixed XYZZ path (private to cuzk_gpu, included by msm_impl.cuh): the sorted
// digits of every window cut into segments of L entries, one thread each (accumulate_l1_kernel), and
// the merge levels over the segments' partial sums (accumulate_lk_kernel); and the 0/1 path's
// selected-bases sum (sum_selected_kernel). The batch-affine accumulation is msm_affine.cuh.
#pragma once

#include "gpu/cuda_util.cuh"
#include "gpu/msm_layout.cuh"

namespace cuzk::gpu {
namespace {

// ---------------------------------------------------------------------------------------------
// The bucket runs of one segment [b, e) of a window's sorted list (m entries, keys K): a run wholly
// inside the segment goes straight to its bucket; a run touching the segment's first or last entry
// becomes one of the segment's two slots in the next level's list (key, partial sum), which stays
// sorted by key. Feed it each entry's key with next(), then add the entry to acc.
template <class F>
struct RunSink {
  XyzzT<F>* B;   // the window's buckets (key k at B[k - 1])
  XyzzT<F>* OP;  // the segment's two slots in the next level's list
  u32 prev_key, next_key, cur;
  bool first = true, wrote0 = false, wrote1 = false;
  XyzzT<F> acc = XyzzT<F>::infinity();

  __device__ __forceinline__ RunSink(const u32* K, u32 b, u32 e, u32 m, XyzzT<F>* buckets, u32* out_keys,
                                     XyzzT<F>* out_pts)
      : B(buckets), OP(out_pts) {
    prev_key = b > 0 ? K[b - 1] : 0u;  // keys are >= 1 here, 0 never matches
    next_key = e < m ? K[e] : 0u;
    cur = K[b];
    out_keys[0] = cur;
    out_keys[1] = K[e - 1];
  }
  __device__ __forceinline__ void next(u32 k) {
    if (k == cur) return;
    if (first && prev_key == cur) {
      store_xyzz(OP, acc);
      wrote0 = true;
    } else if (!acc.is_inf()) {
      store_xyzz(B + (cur - 1), acc);
    }
    first = false;
    acc = XyzzT<F>::infinity();
    cur = k;
  }
  __device__ __forceinline__ void finish() {
    if (first && prev_key == cur) {
      store_xyzz(OP, acc);
      wrote0 = true;
    } else if (next_key == cur) {
      store_xyzz(OP + 1, acc);
      wrote1 = true;
    } else if (!acc.is_inf()) {
      store_xyzz(B + (cur - 1), acc);
    }
    if (!wrote0) store_xyzz(OP, XyzzT<F>::infinity());
    if (!wrote1) store_xyzz(OP + 1, XyzzT<F>::infinity());
  }
};

// Level 1: segments of L sorted entries (key, value) -> buckets + partial list. MINB: blocks of 128
// per SM the register allocation must allow (2: <= 255 registers, 3: <= 168, 4: <= 128). 2 is the
// default: 3 blocks (a few spilled registers), an accumulator in shared memory and 3 blocks
// without spills, the next point fetched through shared memory, all measured slower
// (RESULTS_gpu.md "Measured and not kept"), so the kernel is bound by the mixed addition's instruction count rather
// than by latency (RESULTS_gpu.md).
template <class F, int MINB>
__global__ void __launch_bounds__(128, MINB)
    accumulate_l1_kernel(const AffineT<F>* __restrict__ bases, const u32* __restrict__ keys,
                         const u32* __restrict__ vals, u32 n, u32 L, const u32* zero_counts, XyzzT<F>* buckets,
                         WindowLayout win, u32* out_keys, XyzzT<F>* out_pts, u32 out_stride, u32* out_counts) {
  using Aff = AffineT<F>;
  const int w = blockIdx.y;
  const u32 seg = blockIdx.x * blockDim.x + threadIdx.x;
  const u32 z = zero_counts[w];
  const u32 m = n - z;
  const u32 nseg = (m + L - 1) / L;
  if (seg == 0) out_counts[w] = 2 * nseg;
  if (seg >= nseg) return;
  const u32* K = keys + std::size_t(w) * n + z;
  const u32* V = vals + std::size_t(w) * n + z;
  const u32 b = seg * L, e = min(b + L, m);
  RunSink<F> sink(K, b, e, m, buckets + win.bucket_offset(w), out_keys + std::size_t(w) * out_stride + 2 * seg,
                  out_pts + std::size_t(w) * out_stride + 2 * seg);
  u32 v = V[b];
  Aff p = load_affine(bases + (v & 0x7fffffffu));
  for (u32 t = b; t < e; ++t) {
    const u32 k = K[t];
    const bool sign = v >> 31;
    Aff q = p;
    if (t + 1 < e) {  // prefetch the next point
      v = V[t + 1];
      p = load_affine(bases + (v & 0x7fffffffu));
    }
    sink.next(k);
    sink.acc.add_affine(q.cneg(sign));
  }
  sink.finish();
}

// Levels >= 2: the same on a sorted list of (key, XYZZ partial sums).
template <class F>
__global__ void __launch_bounds__(128)
    accumulate_lk_kernel(const u32* in_keys, const XyzzT<F>* in_pts, u32 in_stride, const u32* in_counts, u32 L,
                         XyzzT<F>* buckets, WindowLayout win, u32* out_keys, XyzzT<F>* out_pts, u32 out_stride,
                         u32* out_counts) {
  const int w = blockIdx.y;
  const u32 seg = blockIdx.x * blockDim.x + threadIdx.x;
  const u32 m = in_counts[w];
  const u32 nseg = (m + L - 1) / L;
  if (seg == 0) out_counts[w] = 2 * nseg;
  if (seg >= nseg) return;
  const u32* K = in_keys + std::size_t(w) * in_stride;
  const XyzzT<F>* P = in_pts + std::size_t(w) * in_stride;
  const u32 b = seg * L, e = min(b + L, m);
  RunSink<F> sink(K, b, e, m, buckets + win.bucket_offset(w), out_keys + std::size_t(w) * out_stride + 2 * seg,
                  out_pts + std::size_t(w) * out_stride + 2 * seg);
  for (u32 t = b; t < e; ++t) {
    sink.next(K[t]);
    sink.acc.add(load_xyzz(P + t));
  }
  sink.finish();
}

// 0/1 path: thread t sums the selected bases among [t*per, (t+1)*per), per a multiple of 64. The next
// selected base is loaded while the current one is added (its global-memory latency would otherwise
// stall every addition: few warps per SM at this register count).
template <class F, int MINB>
__global__ void __launch_bounds__(128, MINB)
    sum_selected_kernel(const AffineT<F>* bases, const u64* bitmap, u64 n, u32 per, XyzzT<F>* out, u32 nthreads) {
  const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nthreads) return;
  const u64 b = u64(t) * per, e = min(b + per, n);
  XyzzT<F> acc = XyzzT<F>::infinity();
  u64 wd = b / 64;
  auto word = [&](u64 w) -> u64 {  // selection bits of word w, masked to [b, e)
    u64 bits = bitmap[w];
    const u64 base = w * 64;
    if (base + 64 > e) bits &= (u64(1) << (e - base)) - 1;
    return bits;
  };
  u64 bits = word(wd);
  auto next = [&]() -> u64 {  // index of the next selected base, or n when none is left
    while (!bits) {
      ++wd;
      if (wd * 64 >= e) return n;
      bits = word(wd);
    }
    const int i = __ffsll((long long)bits) - 1;
    bits &= bits - 1;
    return wd * 64 + i;
  };
  u64 cur = next();
  AffineT<F> p;
  if (cur < n) p = load_affine(bases + cur);
  while (cur < n) {
    const AffineT<F> q = p;
    cur = next();
    if (cur < n) p = load_affine(bases + cur);
    acc.add_affine(q);
  }
  store_xyzz(out + t, acc);
}

template <class F, int MINB>
void launch_l1(dim3 grid, cudaStream_t st, const AffineT<F>* pb, const u32* kout, const u32* vout, u32 N, u32 L,
               const u32* zc, XyzzT<F>* bk, WindowLayout win, u32* lk, XyzzT<F>* lp, u32 stride, u32* lc) {
  accumulate_l1_kernel<F, MINB><<<grid, 128, 0, st>>>(pb, kout, vout, N, L, zc, bk, win, lk, lp, stride, lc);
}

}  // namespace
}  // namespace cuzk::gpu
