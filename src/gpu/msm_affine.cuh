// Batch-affine bucket accumulation for the Pippenger MSM (private to msm_impl.cuh).
//
// Why: a mixed XYZZ addition costs 8M + 2S; an affine addition costs 2M + 1S once 1/(x2 - x1) is
// known, and Montgomery's trick gives many inverses for 3M each plus one inversion. So the sorted
// entries of a group of windows are summed in rounds of independent pairwise additions:
//
//   round r: bucket b holds cnt_r[b] points at [off_r[b], off_r[b] + cnt_r[b]) of a sorted list;
//            the entries of even rank 2j and 2j + 1 are added (an odd last entry is copied), giving
//            cnt_{r+1}[b] = ceil(cnt_r[b] / 2) points at off_{r+1} = exclusive scan of cnt_{r+1}.
//            Round 0 reads the points from the bases (index and sign from the sorted values); the
//            group's windows are one list whose buckets are numbered window * nb + bucket.
//   plan:     one thread per input entry: the output slots' keys and pair references, copies of
//             odd last entries.
//   forward:  one thread per `per` consecutive output slots: for each pair the denominator d
//             (x2 - x1; 2y1 for a doubling; 1 when the sum is trivial), the running product before
//             d stored in the output slot, the thread's product in `totals`.
//   inverse:  the thread products are inverted by the same trick in levels of kInvGroup, one Fermat
//             inversion at the top (one per round of the whole group).
//   backward: each thread walks its slots backwards: 1/d = inverse * stored product, then
//             lambda, x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1 into the output slot.
//
// The rounds end when every bucket holds one point (ceil(log2(largest bucket)) rounds); those points
// become the XYZZ buckets of the usual bucket reduction. About 6M + 1S per addition against 8M + 2S,
// at the price of list traffic (~600 bytes per addition). Exceptional sums are exact: a point plus
// itself is a doubling, plus its negation or infinity is trivial (the point at infinity is (0, 0)).
#pragma once

#include <cub/device/device_scan.cuh>

#include "gpu/cuda_util.cuh"

namespace cuzk::gpu {
namespace {

constexpr u32 kInvGroup = 16;  // values per thread in the inversion levels
constexpr u32 kValueIndexMask = 0x7fffffffu;

// Keys of a round's list: a key is a bucket of the window group + 1 (0: a zero digit, skipped). In
// round 0 the list is the group's g sorted windows one after another (n entries each, keys local to
// their window: global key = window * nb + local key); later rounds store global keys.
struct RoundKeys {
  const u32* keys;
  u32 window_len;  // n in round 0, 0 afterwards
  u32 nb;
  __device__ __forceinline__ u32 operator()(u32 t) const {
    const u32 k = keys[t];
    if (window_len == 0 || k == 0) return k;
    return (t / window_len) * nb + k;
  }
};

// Source of a round's points. A reference is a value (index | sign << 31) into the bases in round 0
// and a position in the previous list afterwards.
template <class F, bool kFromBases>
struct PairSource {
  const AffineT<F>* pts;
  const u32* vals;
  __device__ __forceinline__ u32 ref(u32 t) const {
    if constexpr (kFromBases) return vals[t];
    else return t;
  }
  __device__ __forceinline__ F x(u32 r) const { return ldf(&pts[r & kValueIndexMask].x); }
  __device__ __forceinline__ AffineT<F> point(u32 r) const {
    if constexpr (kFromBases) return load_affine(pts + (r & kValueIndexMask)).cneg(r >> 31);
    else return load_affine(pts + r);
  }
};
constexpr u32 kCopySlot = 0xffffffffu;  // never a reference: indices and positions are < 2^31 - 1

// Plan of a round, one thread per input position t: an entry of even rank in its bucket owns output
// slot off_next[b] + rank / 2: it writes the slot's key, and the references of the pair summed there
// (the forward and backward passes then need one dependent load per point, not four), or copies
// itself there when it is the last entry of an odd bucket.
template <class F, bool kFromBases>
__global__ void pair_plan_kernel(PairSource<F, kFromBases> src, RoundKeys keys, const u32* list_len, const u32* off,
                                 const u32* cnt, const u32* off_next, u32* keys_next, uint2* pair_refs,
                                 AffineT<F>* pts_next) {
  const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= *list_len) return;
  const u32 key = keys(t);
  if (key == 0) return;
  const u32 b = key - 1;
  const u32 rank = t - off[b];
  if (rank & 1) return;
  const u32 out = off_next[b] + rank / 2;
  keys_next[out] = key;
  if (rank + 1 == cnt[b]) {
    pair_refs[out] = make_uint2(kCopySlot, 0);
    store_affine(pts_next + out, src.point(src.ref(t)));
  } else {
    pair_refs[out] = make_uint2(src.ref(t), src.ref(t + 1));
  }
}

// Threads walk output slots, not input positions, so that all lanes of a warp add at once. The
// forward pass loads the next pair's x coordinates while it works on the current one.
template <class F, bool kFromBases, int MINB>
__global__ void __launch_bounds__(128, MINB)
    pair_forward_kernel(PairSource<F, kFromBases> src, const u32* next_len, const uint2* pair_refs, u32 per,
                        u32 nthreads, AffineT<F>* pts_next, F* totals) {
  const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const u32 s = tid * per, e = min(s + per, *next_len);
  F prefix = F::one();
  uint2 next = s < e ? pair_refs[s] : make_uint2(kCopySlot, 0);
  F nx1 = F::zero(), nx2 = F::zero();
  if (next.x != kCopySlot) nx1 = src.x(next.x), nx2 = src.x(next.y);
  for (u32 u = s; u < e; ++u) {
    const uint2 pr = next;
    const F x1 = nx1, x2 = nx2;
    if (u + 1 < e) {
      next = pair_refs[u + 1];
      if (next.x != kCopySlot) nx1 = src.x(next.x), nx2 = src.x(next.y);
    }
    if (pr.x == kCopySlot) continue;
    F d;
    if (x1 != x2 && !x1.is_zero() && !x2.is_zero()) d = x2 - x1;  // both finite, not a doubling
    else d = affine_sum_denominator(src.point(pr.x), src.point(pr.y));
    stf(&pts_next[u].x, prefix);  // product of this thread's earlier denominators
    prefix = prefix * d;
  }
  stf(totals + tid, prefix);
}

template <class F, bool kFromBases, int MINB>
__global__ void __launch_bounds__(128, MINB)
    pair_backward_kernel(PairSource<F, kFromBases> src, const u32* next_len, const uint2* pair_refs, u32 per,
                         u32 nthreads, AffineT<F>* pts_next, const F* inv_totals) {
  const u32 tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  const u32 s = tid * per, e = min(s + per, *next_len);
  F inv = ldf_rw(inv_totals + tid);  // 1 / (product of this thread's denominators)
  for (u32 u = e; u-- > s;) {
    const uint2 pr = pair_refs[u];
    if (pr.x == kCopySlot) continue;
    const AffineT<F> p = src.point(pr.x), q = src.point(pr.y);
    const F d = affine_sum_denominator(p, q);
    const F inv_d = inv * ldf_rw(&pts_next[u].x);
    inv = inv * d;
    store_affine(pts_next + u, affine_sum(p, q, inv_d));
  }
}

// Round bookkeeping: bucket runs of the group's sorted windows, counts, list lengths.
__global__ void run_bounds_kernel(RoundKeys keys, u32 n, u32* off, u32* end) {
  const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const u32 k = keys(t);
  if (k == 0) return;
  if (t == 0 || keys(t - 1) != k) off[k - 1] = t;
  if (t == n - 1 || keys(t + 1) != k) end[k - 1] = t + 1;
}
// cnt = end - off (in place in `end`), the largest count, and round 0's list length n.
__global__ void run_counts_kernel(const u32* off, u32* end_cnt, u32 nb, u32* max_cnt, u32 n, u32* len0) {
  const u32 b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b == 0) *len0 = n;
  u32 c = 0;
  if (b < nb) {
    c = end_cnt[b] - off[b];
    end_cnt[b] = c;
  }
  for (int o = 16; o > 0; o >>= 1) c = max(c, __shfl_xor_sync(0xffffffffu, c, o));
  if ((threadIdx.x & 31) == 0 && c) atomicMax(max_cnt, c);
}
__global__ void halve_counts_kernel(const u32* cnt, u32* cnt_next, u32 nb) {
  const u32 b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nb) cnt_next[b] = (cnt[b] + 1) >> 1;
}
__global__ void list_len_kernel(const u32* off, const u32* cnt, u32 nb, u32* len) { *len = off[nb - 1] + cnt[nb - 1]; }

// The final list (one point per nonempty bucket) -> XYZZ buckets (all-zero memory = infinity).
template <class F, bool kFromBases>
__global__ void scatter_buckets_kernel(PairSource<F, kFromBases> src, const u32* off, const u32* cnt, u32 nb,
                                       XyzzT<F>* buckets) {
  const u32 b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb || cnt[b] == 0) return;
  const AffineT<F> p = src.point(src.ref(off[b]));
  if (!p.is_inf()) store_xyzz(buckets + b, XyzzT<F>::from_affine(p));
}

// Inversion levels: group j of kInvGroup values -> prefix products (before each value) and the
// group's product; backwards: the group's inverse -> each value's inverse, in place.
template <class F>
__global__ void product_forward_kernel(const F* vals, F* pre, u32 n, F* group_products) {
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  const u32 b = j * kInvGroup;
  if (b >= n) return;
  const u32 e = min(b + kInvGroup, n);
  F p = F::one();
  for (u32 i = b; i < e; ++i) {
    stf(pre + i, p);
    p = p * ldf_rw(vals + i);
  }
  stf(group_products + j, p);
}
template <class F>
__global__ void product_backward_kernel(F* vals, const F* pre, u32 n, const F* group_inverses) {
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  const u32 b = j * kInvGroup;
  if (b >= n) return;
  const u32 e = min(b + kInvGroup, n);
  F inv = ldf_rw(group_inverses + j);
  for (u32 i = e; i-- > b;) {
    const F v = ldf_rw(vals + i);
    stf(vals + i, inv * ldf_rw(pre + i));
    inv = inv * v;
  }
}
template <class F>
__global__ void invert_one_kernel(F* v) {
  stf(v, ldf_rw(v).inverse());
}

}  // namespace
}  // namespace cuzk::gpu
