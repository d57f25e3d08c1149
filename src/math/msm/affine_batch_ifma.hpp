// G1 and G2 batch-affine bucket additions on AVX-512 IFMA (eight lanes of 8 x 52-bit limbs, the core
// in math/ff/fp_ifma_core.hpp), for the CPU MSM's AffineBuckets.
//
// A batch of n additions bucket[bidx[j]] += pts[j] shares one inversion (Montgomery's trick): entry
// j goes to lane j % 8, row j / 8, so each lane runs its own product chain over its rows; the eight
// chain totals are inverted with one scalar inversion, and the backward pass runs in vectors. G2's
// coordinates are Fp2 = Fp[u]/(u^2 + 1): two lanes' worth of Fp per coordinate, products by
// Karatsuba (three Fp products).
//
// Domain. The IFMA product is a b 2^-416, the scalar field keeps x as x 2^384. Instead of
// converting both coordinates of every point into the 2^416 domain, the buckets live on the
// isomorphic curve y^2 = x^3 + u^6 b with u = 2^-16, (x, y) -> (u^2 x, u^3 y), whose affine addition
// and doubling formulas are the same (they do not involve b). Read through the IFMA domain
// (stored value s <-> field element s 2^-416), a stored x 2^384 is u^2 x as it is, and u^3 y is
// stored as y 2^368: so an incoming point's x needs nothing, its y one IFMA product with 2^400, and
// a bucket's x is already the scalar field's form; only its y is scaled back (y_from_bucket: one
// scalar product with 2^16) when the buckets are reduced. The same holds over Fp2 (u is in Fp, so
// both components scale alike; b does not enter the formulas either).
//
// Only call when ifma::available(); include only from .cpp files of cuzk_math.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "math/ec/bls12_381.hpp"

namespace cuzk::math::msm_ifma {

// A bucket's y (stored as y 2^368) back to the scalar field's form (y 2^384), and the reverse.
Fp y_from_bucket(const Fp& y_bucket);
Fp y_to_bucket(const Fp& y);
Fp2 y_from_bucket(const Fp2& y_bucket);
Fp2 y_to_bucket(const Fp2& y);

// out = sum_{j < used} (j + 1) buckets[j] (buckets in the bucket form, empty ones at infinity), a
// Pippenger window's bucket reduction, in sixteen segments run as two chains of eight lanes. Returns
// false, leaving out alone, where an addition inside would double or cancel (the caller then reduces
// in scalar code) or where used < 16. Meant for dense buckets: an empty bucket right below a
// segment's first non-empty one makes the running sum double, so sparse buckets are often refused.
template <class C>
bool bucket_sum(const Affine<C>* buckets, std::size_t used, Xyzz<C>& out);

// Scratch for batches of up to max_batch additions (one per worker; not thread-safe). C: G1Curve or
// G2Curve.
template <class C>
class AffineBatchAdder {
 public:
  using A = Affine<C>;
  explicit AffineBatchAdder(std::size_t max_batch);
  ~AffineBatchAdder();
  AffineBatchAdder(const AffineBatchAdder&) = delete;
  AffineBatchAdder& operator=(const AffineBatchAdder&) = delete;

  // For j < n: buckets[bidx[j]] += pts[j] on the bucket curve (see above), where pts[j] is given in
  // the scalar field's form and the buckets in the bucket form. An empty bucket (infinity) takes
  // pts[j]. The caller guarantees: n <= max_batch, the bidx[j] distinct, no pts[j] at infinity,
  // and pts[j].x != buckets[bidx[j]].x for a non-empty bucket (doubling and cancellation are the
  // caller's; Montgomery's trick would meet a zero denominator).
  void run(A* buckets, const std::uint32_t* bidx, const A* pts, std::size_t n);

 private:
  std::size_t max_rows_;
  std::unique_ptr<std::uint64_t[]> mem_;
  std::unique_ptr<std::uint8_t[]> special_;  // per row
  std::uint64_t* scratch_;                   // 64-byte aligned inside mem_
};

}  // namespace cuzk::math::msm_ifma
