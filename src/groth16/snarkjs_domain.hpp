// snarkjs (ffjavascript) builds its FFT domains on a different primitive 2^32-th root of unity than
// bellperson: 5^t (5 is the smallest quadratic non-residue) instead of 7^t, t = (r-1)/2^32. A .zkey's
// A/B/C/H points are Lagrange evaluations over *that* root, so proving with a zkey must evaluate
// row k at w'^k, w' = 5^(t 2^(32-log n)).
//
// Both roots generate the same cyclic group, so w' = w^e for one odd e (found once by Pohlig-Hellman
// in the 2-group); the snarkjs point w'^k is then our point w^(e k mod n). The prover therefore runs
// its ordinary NTTs and only permutes indices by k -> e k mod n.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::groth16 {

// 5^t: snarkjs' primitive 2^32-th root of unity.
const math::Fr& snarkjs_root_of_unity();

// The odd e < 2^32 with fr_root_of_unity()^e == snarkjs_root_of_unity().
std::uint64_t snarkjs_root_exponent();

// The primitive 2^k-th root of unity of either convention.
math::Fr root_of_unity(std::uint32_t log_n, bool snarkjs);

// out[(e k) mod n] = in[k] (to_ours) or out[k] = in[(e k) mod n] (from_ours), n = in.size() a power of 2.
std::vector<math::Fr> snarkjs_to_our_order(std::span<const math::Fr> in);
std::vector<math::Fr> our_to_snarkjs_order(std::span<const math::Fr> in);

}  // namespace cuzk::groth16
