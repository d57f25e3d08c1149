// Multi-scalar multiplication sum_i k_i * P_i on G1 and G2 (CPU, multi-threaded Pippenger).
//
//   * scalars are converted to canonical form once and cut into signed (Booth) digits of c bits,
//     d in [-2^(c-1), 2^(c-1)], so each window needs 2^(c-1) buckets and negative digits subtract;
//     each digit reads c + 1 bits of the scalar, so windows are independent (no carry pass);
//   * buckets: for large windows, affine points updated in batches of independent additions that
//     share one inversion (Montgomery's trick, ~7 multiplications per point instead of 10); points
//     that hit a bucket already waiting in the batch, and all points for small windows, go to XYZZ
//     buckets through mixed additions (Xyzz::add_affine). Each window is reduced with running sums
//     and the windows are combined by doubling (Horner);
//   * the work is cut into (window, point range) tasks handed out dynamically to the threads; the
//     point ranges are split only as far as needed to keep every thread busy;
//   * scalars equal to 0 or 1 (the bulk of a Filecoin witness) skip the windows: zeros are dropped
//     and ones are summed directly (batch-affine accumulators); msm_*_bits is that same sum for a
//     packed bitmap;
//   * on CPUs with AVX-512 IFMA, G1 batch-affine batches run eight lanes at a time
//     (msm/affine_batch_ifma.hpp; CUZK_NO_IFMA=1 or MsmOptions::ifma = false keep the scalar path).
// Identity bases and zero scalars are fine anywhere. Mismatched lengths are a caller bug and throw
// std::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "math/ec/bls12_381.hpp"

namespace cuzk::math {

enum class MsmBuckets {
  kAuto,         // batch-affine for large windows, XYZZ otherwise
  kXyzz,         // XYZZ buckets, one mixed addition per point
  kBatchAffine,  // affine buckets updated in batches sharing one inversion
};

struct MsmOptions {
  unsigned window = 0;      // window bits c; 0 = msm_window_bits(number of scalars that are not 0/1)
  std::size_t threads = 0;  // 0 = default_threads()
  bool split_bits = true;   // route 0/1 scalars to a plain sum instead of through the windows
  MsmBuckets buckets = MsmBuckets::kAuto;
  // Batch-affine buckets (G1 and G2) run their batches on AVX-512 IFMA where ifma::available()
  // (false: the scalar path everywhere; the results are identical).
  bool ifma = true;
};

// The window size used for n (non 0/1) scalars: a table tuned on a 2-core x86 machine.
unsigned msm_window_bits(std::size_t n);
// The window msm<C> uses for n (non 0/1) scalars under `options`: options.window if set, else the
// table's, except for G2 on the IFMA path at 2^11..2^13 scalars (batch-affine c = 11 there).
template <class C>
unsigned msm_window(std::size_t n, const MsmOptions& options = {});

template <class C>
Jacobian<C> msm(std::span<const Affine<C>> bases, std::span<const Fr> scalars, const MsmOptions& options = {});

// sum of bases[i] over the set bits i of `bits` (bit i = (bits[i / 64] >> (i % 64)) & 1). bits must
// hold at least ceil(n / 64) words (std::invalid_argument otherwise); bits past n are ignored.
template <class C>
Jacobian<C> msm_bits(std::span<const Affine<C>> bases, std::span<const std::uint64_t> bits, std::size_t threads = 0);

extern template G1Jacobian msm<G1Curve>(std::span<const G1Affine>, std::span<const Fr>, const MsmOptions&);
extern template G2Jacobian msm<G2Curve>(std::span<const G2Affine>, std::span<const Fr>, const MsmOptions&);
extern template G1Jacobian msm_bits<G1Curve>(std::span<const G1Affine>, std::span<const std::uint64_t>, std::size_t);
extern template G2Jacobian msm_bits<G2Curve>(std::span<const G2Affine>, std::span<const std::uint64_t>, std::size_t);

inline G1Jacobian msm_g1(std::span<const G1Affine> bases, std::span<const Fr> scalars, const MsmOptions& options = {}) {
  return msm<G1Curve>(bases, scalars, options);
}
inline G2Jacobian msm_g2(std::span<const G2Affine> bases, std::span<const Fr> scalars, const MsmOptions& options = {}) {
  return msm<G2Curve>(bases, scalars, options);
}
inline G1Jacobian msm_g1_bits(std::span<const G1Affine> bases, std::span<const std::uint64_t> bits,
                              std::size_t threads = 0) {
  return msm_bits<G1Curve>(bases, bits, threads);
}
inline G2Jacobian msm_g2_bits(std::span<const G2Affine> bases, std::span<const std::uint64_t> bits,
                              std::size_t threads = 0) {
  return msm_bits<G2Curve>(bases, bits, threads);
}

}  // namespace cuzk::math
