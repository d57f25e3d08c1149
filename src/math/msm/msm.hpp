// Multi-scalar multiplication sum_i k_i * P_i on G1 and G2 (CPU, multi-threaded Pippenger).
//
//   * scalars are converted to canonical form once and cut into signed (Booth) digits of c bits,
//     d in [-2^(c-1), 2^(c-1)], so each window needs 2^(c-1) buckets and negative digits subtract;
//   * buckets are XYZZ points fed by mixed affine additions; each window is reduced with the
//     running-sum trick and windows are combined by doubling (Horner);
//   * the work is cut into (window, point range) tasks handed out dynamically to the threads;
//   * scalars equal to 0 or 1 (the bulk of a Filecoin witness) skip the windows: zeros are dropped
//     and ones summed directly; msm_*_bits is the same plain sum for a packed bitmap.
// Identity bases and zero scalars are fine anywhere. Mismatched lengths are a caller bug and throw
// std::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "math/ec/bls12_381.hpp"

namespace cuzk::math {

struct MsmOptions {
  unsigned window = 0;      // window bits c; 0 = msm_window_bits(number of scalars that are not 0/1)
  std::size_t threads = 0;  // 0 = default_threads()
  bool split_bits = true;   // route 0/1 scalars to a plain sum instead of through the windows
};

// The window size used for n (non 0/1) scalars: a table tuned on a 2-core x86 machine.
unsigned msm_window_bits(std::size_t n);

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
