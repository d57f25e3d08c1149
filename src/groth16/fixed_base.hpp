// Fixed-base batch scalar multiplication k_i * G for the standard generators of G1 and G2: the
// whole cost of a TEST-ONLY key (one product per query entry). An interface, so that setup does not
// care where the products are computed: make_cpu_fixed_base_multiplier() here, and
// gpu::make_cuda_fixed_base_multiplier() (gpu/fixed_base.hpp) in CUDA builds.
//
// Contract for every implementation: out[i] = ks[i] * G as math::G1Affine / G2Affine (Montgomery
// form, normalized affine), ks[i] = 0 gives the identity (Affine::identity()); the *_uncompressed
// variants write bellperson's uncompressed big-endian encoding (math::g1_to_uncompressed /
// g2_to_uncompressed: 96 / 192 bytes a point) instead, which is what a .params file stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "math/ec/bls12_381.hpp"

namespace cuzk::groth16 {

class FixedBaseMultiplier {
 public:
  virtual ~FixedBaseMultiplier() = default;
  virtual std::string name() const = 0;

  virtual void mul_g1(std::span<const math::Fr> ks, std::span<math::G1Affine> out) = 0;
  virtual void mul_g2(std::span<const math::Fr> ks, std::span<math::G2Affine> out) = 0;
  // out must hold ks.size() * 96 (G1) / 192 (G2) bytes. Default: mul_g1 / mul_g2, then encode on
  // `encode_threads()` threads.
  virtual void mul_g1_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out);
  virtual void mul_g2_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out);

 protected:
  virtual std::size_t encode_threads() const;
};

// Window tables of the generators (12-bit windows: 22 mixed additions a product), products spread
// over `threads` workers (0: cuzk::default_threads()). Tables: 9.4 MB (G1) + 18 MB (G2), built once
// per process on first use.
std::unique_ptr<FixedBaseMultiplier> make_cpu_fixed_base_multiplier(std::size_t threads = 0);

}  // namespace cuzk::groth16
