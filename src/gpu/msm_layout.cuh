// The MSM's plan, host and device (private to cuzk_gpu, included by msm_impl.cuh): the window layout
// (widths, bucket offsets), the shifted-copy plan and the G1 cost model that picks both, and the
// per-curve constants (DevCurve: accumulation occupancy, batch-affine threshold, reduction chunk),
// each with the measurement that chose it. MsmTuning (gpu/tuning.hpp) overrides the curve constants.
#pragma once

#include <cstddef>

#include "gpu/cuda_util.cuh"
#include "gpu/gpu.hpp"

namespace cuzk::gpu {
namespace {

constexpr int kScalarBits = 255;
constexpr int kReduceThreads = 128;
constexpr int kL2 = 16;  // segment length of the merge levels

int num_windows(int c) { return (kScalarBits + c - 1) / c; }

// The windows of an MSM: the first nlo are c bits wide, the other nwin - nlo are c + 1 bits, together
// at least 255 bits (scalars are at most (r - 1) / 2 < 2^254 after the negation in digits_kernel, so
// the top window absorbs the last carry). Mixed widths let the window count fall by one without
// doubling every window's buckets: ceil(255 / c) windows of c bits waste up to c - 1 bits.
// Window w holds buckets 1 .. 2^(width - 1), stored at bucket_offset(w) + key - 1.
struct WindowLayout {
  int c = 0, nlo = 0, nwin = 0;

  static WindowLayout uniform(int c) { return WindowLayout{c, num_windows(c), num_windows(c)}; }
  // nwin windows of floor(bits / nwin) or one more bits, bits in all
  static WindowLayout mixed(int nwin, int bits = kScalarBits) {
    const int c = bits / nwin;
    return WindowLayout{c, nwin - (bits - c * nwin), nwin};
  }
  __host__ __device__ int width(int w) const { return w < nlo ? c : c + 1; }
  __host__ __device__ int start(int w) const { return w <= nlo ? w * c : nlo * c + (w - nlo) * (c + 1); }
  __host__ __device__ u32 buckets(int w) const { return 1u << (width(w) - 1); }
  __host__ __device__ std::size_t bucket_offset(int w) const {
    return w <= nlo ? std::size_t(w) << (c - 1) : (std::size_t(nlo) << (c - 1)) + (std::size_t(w - nlo) << c);
  }
  std::size_t total_buckets() const { return bucket_offset(nwin); }
  int max_width() const { return nlo < nwin ? c + 1 : c; }
};

// Shifted copies of the bases (Msm::add_shifted_copies): copy k, at bases + k * stride, holds
// 2^(k * shift) P_i. A scalar's bits [k shift, (k + 1) shift) then go to copy k, so the MSM is one
// over copies * n points with shift-bit scalars: every copy's windows share one set of buckets (the
// WindowLayout covers shift bits), which divides the bucket reduction by the number of copies and
// so pays for wider windows, i.e. fewer of them. copies = 1: the plain MSM.
struct CopyPlan {
  int copies = 1, shift = kScalarBits;
  u32 stride = 0;  // bases per copy
  // window w of copy k is used (covers some of the 255 scalar bits)
  __host__ __device__ bool used(const WindowLayout& win, int k, int w) const {
    return k * shift + win.start(w) < kScalarBits;
  }
};

// G1 layout over `shift` bits (255 without copies) for n scalars and `copies` shifted copies: the
// window count (widths 24 .. 3) minimizing (used windows) * n + 4 * buckets + 0.06 * (unused windows)
// * n, the cost model of msm_default_window_bits (a bucket's share of the reduction is two full
// additions, about four mixed ones). At 2^26 and no copies this picks 12 windows of 21-22 bits (15.7M
// buckets) over 13 of 20 bits (6.8M), saving one window of accumulation. A window of the last copy
// that starts past the scalar's 255 bits holds zero digits only: sorted (about 6% of an addition pass,
// RESULTS_gpu.md "What limits the 2^27 partition": sort 16.8 of 349.8 ms at 2^26) but never added.
double g1_copy_cost(std::size_t n, int copies, int shift, const WindowLayout& l) {
  int used = 0;
  const CopyPlan plan{copies, shift, 0};
  for (int k = 0; k < copies; ++k)
    for (int w = 0; w < l.nwin; ++w) used += plan.used(l, k, w);
  const int unused = copies * l.nwin - used;
  return double(used) * double(n) + 0.06 * double(unused) * double(n) + 4.0 * double(l.total_buckets());
}
WindowLayout g1_copy_layout(std::size_t n, int copies, int shift) {
  WindowLayout best = WindowLayout::mixed((shift + 23) / 24, shift);
  double best_cost = 1e300;
  for (int nwin = (shift + 23) / 24; nwin <= (shift + 3) / 4; ++nwin) {
    const WindowLayout l = WindowLayout::mixed(nwin, shift);
    if (l.max_width() > 24) continue;
    const double cost = g1_copy_cost(n, copies, shift, l);
    if (cost < best_cost) {
      best_cost = cost;
      best = l;
    }
  }
  return best;
}
// The shift for `copies` copies serving MSMs of n scalars: copies * shift >= 255, and every copy
// holds some of the scalar's bits. At 2^27 and two copies: shift 140, 6 windows of 23-24 bits
// (11 of the 12 windows used) instead of 12 windows of 21-22 bits with twice the buckets.
int g1_copy_shift(std::size_t n, int copies) {
  if (copies <= 1) return kScalarBits;
  int best = (kScalarBits + copies - 1) / copies;
  double best_cost = 1e300;
  for (int shift = best; (copies - 1) * shift < kScalarBits; ++shift) {
    const double cost = g1_copy_cost(n, copies, shift, g1_copy_layout(n, copies, shift));
    if (cost < best_cost) {
      best_cost = cost;
      best = shift;
    }
  }
  return best;
}

template <class C>
struct DevCurve;
template <>
struct DevCurve<math::G1Curve> {
  using F = Fp;
  static constexpr int kOcc = 2;  // accumulate_l1 blocks per SM (measured: 2 > 3 = 4 at 2^26)
  // Batch-affine accumulation from 2^kAffineLog scalars (0: never). G1 stays on mixed XYZZ additions:
  // measured on the H200, affine 477 / 913 ms at 2^26 / 2^27 against XYZZ 397 / 768 (the list traffic,
  // ~600 bytes per addition, costs more than the 4 multiplications it saves).
  static constexpr int kAffineLog = 0;
  static constexpr int kGroupLog = 28;  // windows per affine group: g N <= 2^kGroupLog
  // buckets per thread in the bucket reduction: 64 measured 744.8 / 393.1 ms at 2^27 / 2^26 against
  // 766.8 / 397.0 with 32 (and 810.2 / 407.2 with 16)
  static constexpr int kReduceChunk = 64;
};
template <>
struct DevCurve<math::G2Curve> {
  using F = Fp2;
  static constexpr int kOcc = 1;
  // G2: affine 302.8 ms at 2^24 against XYZZ 441.1 (an Fp2 XYZZ addition spills; the affine one does not)
  static constexpr int kAffineLog = 20;
  // all 15 windows of a 2^24 MSM in one group (2^28 entries, ~38 GB of lists): 302.7 ms, against
  // 316.7 / 344.1 ms with groups of 2^27 / 2^26 entries (one inversion per round serves the group)
  static constexpr int kGroupLog = 28;
  static constexpr int kReduceChunk = 32;  // 2^24: 32 -> 32.3 ms of reduction, 16 -> 43.8, 8 -> 65.8
};

}  // namespace
}  // namespace cuzk::gpu
