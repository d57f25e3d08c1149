// A Groth16 proof (A in G1, B in G2, C in G1) and its 192-byte encoding: A, B, C compressed, in that
// order (bellperson Proof::write). Decoding treats the bytes as untrusted: on-curve and subgroup
// checks, and identity components rejected as bellperson's read_many does.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::groth16 {

inline constexpr std::size_t kProofBytes = 192;

struct Proof {
  math::G1Affine a;
  math::G2Affine b;
  math::G1Affine c;

  std::array<std::uint8_t, kProofBytes> to_bytes() const;
  static Result<Proof> from_bytes(std::span<const std::uint8_t> bytes);
  friend bool operator==(const Proof& x, const Proof& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
};

// Multi-partition proofs are the concatenation of 192-byte proofs in partition order.
std::vector<std::uint8_t> concat_proofs(std::span<const Proof> proofs);
Result<std::vector<Proof>> split_proofs(std::span<const std::uint8_t> bytes);

}  // namespace cuzk::groth16
