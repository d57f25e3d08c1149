// The witness side of a proof (private to cuzk_gpu, included by groth16_prover.cu): the compact
// witness expanded on the device (step 1), the gathers of the A and B query scalars, and the 0/1
// split of each query (step 4): the scalars classified per block into ones (a bitmap, summed by
// Msm::sum_selected, the "batch addition") and the tail (compacted in order, with its bases gathered
// into a scratch Msm), plus the per-chunk tail bounds of a streamed key.
#pragma once

#include "gpu/groth16_device.cuh"

namespace cuzk::gpu {
namespace {

constexpr int kSplitBlock = 256;  // positions per block of the 0/1 classification

__global__ void gather_scalars_kernel(const u32* __restrict__ map, const Fr* __restrict__ w, u64 n, Fr* out) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_f(out + i, ldg_f(w + map[i]));
}

// the number of non-binary aux in it (the last word counts only variables that exist).
__global__ void compact_count_kernel(const u64* __restrict__ is_binary, u64 words, u64 num_aux, u32* counts) {
  const u64 k = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= words) return;
  const u64 j0 = k * 64;
  const u32 valid = num_aux - j0 >= 64 ? 64u : u32(num_aux - j0);
  counts[k] = valid - u32(__popcll(is_binary[k]));
}

// One thread per aux variable j: 0 / 1 from the bitmaps, or values[rank(j)] with
// rank(j) = offsets[j / 64] (exclusive prefix sum of the counts) + non-binary aux below j in its word.
__global__ void compact_expand_kernel(const u64* __restrict__ is_binary, const u64* __restrict__ bits,
                                      const u32* __restrict__ offsets, const Fr* __restrict__ values, u64 num_aux,
                                      Fr* out) {
  const u64 j = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= num_aux) return;
  const u64 k = j >> 6;
  const u32 b = u32(j & 63);
  const u64 wb = is_binary[k];
  Fr v;
  if ((wb >> b) & 1) {
    v = ((bits[k] >> b) & 1) ? Fr::one() : Fr::zero();
  } else {
    v = ldg_f(values + offsets[k] + u32(__popcll(~wb & ((u64(1) << b) - 1))));
  }
  store_f(out + j, v);
}

// out[i] = bases[idx[i] - first] (first: the position of bases[0] in the query, for a streamed chunk).
template <class F>
__global__ void gather_points_kernel(const AffineT<F>* __restrict__ bases, const u32* __restrict__ idx, u64 count,
                                     u32 first, AffineT<F>* out) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  store_affine(out + i, load_affine(bases + (idx[i] - first)));
}

// Streamed keys: out[j] = the first k with tail_idx[k] >= j * chunk (j <= chunks; ascending tail_idx).
__global__ void chunk_first_tail_kernel(const u32* __restrict__ tail_idx, u32 tail, u64 chunk, u32 chunks, u32* out) {
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > chunks) return;
  const u64 bound = u64(j) * chunk;
  u32 lo = 0, hi = tail;
  while (lo < hi) {
    const u32 mid = lo + (hi - lo) / 2;
    if (tail_idx[mid] < bound) lo = mid + 1;
    else hi = mid;
  }
  out[j] = lo;
}

__device__ __forceinline__ bool is_tail(const Fr& x) { return !(x.is_zero() || x.is_one()); }

// Per block of kSplitBlock positions: the number of tail scalars (neither 0 nor 1); global count of ones.
__global__ void __launch_bounds__(kSplitBlock)
    count_split_kernel(const Fr* __restrict__ s, u64 n, u32* block_counts, unsigned long long* ones) {
  __shared__ u32 wt[kSplitBlock / 32], wo[kSplitBlock / 32];
  const u64 i = u64(blockIdx.x) * kSplitBlock + threadIdx.x;
  Fr x = i < n ? load_f(s + i) : Fr::zero();
  const u32 bt = __ballot_sync(0xffffffffu, is_tail(x));
  const u32 bo = __ballot_sync(0xffffffffu, i < n && x.is_one());
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    wt[warp] = __popc(bt);
    wo[warp] = __popc(bo);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    u32 t = 0, o = 0;
    for (int k = 0; k < kSplitBlock / 32; ++k) t += wt[k], o += wo[k];
    block_counts[blockIdx.x] = t;
    if (o) atomicAdd(ones, (unsigned long long)o);
  }
}

// Writes the bitmap of ones (bit i of 32-bit word i / 32, i.e. of 64-bit word i / 64 on little
// endian) and compacts the tail in order: tail_idx[k] = position, tail_s[k] = scalar.
__global__ void __launch_bounds__(kSplitBlock)
    split_kernel(const Fr* __restrict__ s, u64 n, const u32* __restrict__ block_offsets, u32* bitmap, u32* tail_idx,
                 Fr* tail_s) {
  __shared__ u32 wt[kSplitBlock / 32];
  const u64 i = u64(blockIdx.x) * kSplitBlock + threadIdx.x;
  Fr x = i < n ? load_f(s + i) : Fr::zero();
  const bool tail = is_tail(x);
  const u32 bt = __ballot_sync(0xffffffffu, tail);
  const u32 bo = __ballot_sync(0xffffffffu, i < n && x.is_one());
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    bitmap[i >> 5] = bo;
    wt[warp] = __popc(bt);
  }
  __syncthreads();
  if (tail) {
    u32 pos = block_offsets[blockIdx.x] + __popc(bt & ((1u << lane) - 1));
    for (int k = 0; k < warp; ++k) pos += wt[k];
    tail_idx[pos] = u32(i);
    store_f(tail_s + pos, x);
  }
}

}  // namespace
}  // namespace cuzk::gpu
