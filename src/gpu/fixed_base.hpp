// Fixed-base batch scalar multiplication on the GPU: out[i] = k_i * G for one generator G and any
// number of scalars (setup's cost: one product per key entry). No CUDA types here.
//
// The window table of G (gpu/fixed_base.cuh: c-bit windows, ~ceil(255/c) 2^c points) lives in device
// memory; each GPU thread computes `per_thread` products with mixed XYZZ additions (no doublings)
// and converts them to affine with one shared inversion. Work goes in chunks of `chunk` scalars on
// two streams: while one chunk computes, the other's results come back and its next scalars go up
// through pinned staging buffers, so any n runs in bounded device memory (about chunk x 0.5 KB for
// G1, 1 KB for G2 on each of the two streams).
// Results are bit-compatible with math/: Montgomery-form math::G1Affine / G2Affine, k = 0 gives
// Affine::identity(); or bellperson's uncompressed big-endian encoding (96 / 192 bytes a point).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include "groth16/fixed_base.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::gpu {

struct FixedBaseConfig {
  int window_bits = 0;    // c in [4, 20]; 0: 12 (table 8.6 MB for G1, 17 MB for G2)
  std::size_t chunk = 0;  // scalars per device batch; 0: 2^21 (a call of 2^23 then overlaps 4 batches)
  int per_thread = 0;     // products sharing one inversion; 0: 32
};

template <class C>
class FixedBase {
 public:
  using Affine = math::Affine<C>;
  static constexpr std::size_t kEncodedBytes = std::is_same_v<C, math::G1Curve> ? 96 : 192;

  // Builds the table of g on the host threads and uploads it.
  explicit FixedBase(const Affine& g, const FixedBaseConfig& cfg = {});
  ~FixedBase();
  FixedBase(const FixedBase&) = delete;
  FixedBase& operator=(const FixedBase&) = delete;

  void mul(std::span<const math::Fr> ks, std::span<Affine> out);
  // out: ks.size() * kEncodedBytes bytes.
  void mul_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out);

  int window_bits() const;
  double table_build_ms() const;  // host table construction + upload

  struct Impl;  // public only so that CUDA's generated kernel stubs may name its types

 private:
  std::unique_ptr<Impl> impl_;
};
extern template class FixedBase<math::G1Curve>;
extern template class FixedBase<math::G2Curve>;
using FixedBaseG1 = FixedBase<math::G1Curve>;
using FixedBaseG2 = FixedBase<math::G2Curve>;

// groth16::FixedBaseMultiplier over the standard generators on the current CUDA device (tables
// built on first use of each group). Throws std::runtime_error on a CUDA error.
std::unique_ptr<groth16::FixedBaseMultiplier> make_cuda_fixed_base_multiplier(const FixedBaseConfig& cfg = {});

}  // namespace cuzk::gpu
