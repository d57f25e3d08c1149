// The optimal ate pairing on BLS12-381: e: G1 x G2 -> GT in Fp12.
//
// e(P, Q) = final_exponentiation(miller_loop(P, Q)). The Miller loop runs over the curve parameter
// x = -0xd201000000010000 on the M-type twist with homogeneous projective G2 arithmetic; products of
// pairings share one loop (one Fp12 squaring per bit for all pairs) and one final exponentiation.
//
// GT convention: final_exponentiation raises to 3 (p^12 - 1) / r, not (p^12 - 1) / r. That is what
// @noble/curves, zkcrypto/bls12_381 and blst compute (the Hayashida-Hayasaka-Teruya chain gives the
// exponent times 3 for free), so our GT values match theirs bit for bit. Since 3 does not divide r,
// this is still a non-degenerate bilinear pairing and "product == 1" checks are unaffected.
//
// Inputs must be in G1 and G2 (check with in_prime_subgroup when they come from outside); a pair
// with an identity component contributes 1.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <utility>

#include "math/ec/bls12_381.hpp"
#include "math/ff/fp12.hpp"

namespace cuzk::math {

// A line through points of the twist, evaluated at P = (xP, yP) in G1 as c0 + (c1 xP) w^2 + (c4 yP) w^3.
struct LineCoeffs {
  Fp2 c0, c1, c4;
};

// Lines per Miller loop: 63 tangents (bits 62..0 of |x|) and 5 chords (its set bits below the top).
inline constexpr std::size_t kMillerLoopLines = 68;

// The line coefficients of a fixed G2 point (verifying-key points), so repeated pairings skip the G2 work.
struct G2Prepared {
  std::array<LineCoeffs, kMillerLoopLines> lines{};
  bool infinity = true;

  G2Prepared() = default;  // prepares the identity
  explicit G2Prepared(const G2Affine& q);
};

// A Miller-loop term whose G2 side is prepared; q must outlive the call it is passed to.
struct PreparedPair {
  G1Affine p;
  const G2Prepared* q;
};

// Product of the Miller functions f_{x,Q}(P) over all pairs (before final exponentiation).
Fp12 miller_loop(std::span<const std::pair<G1Affine, G2Affine>> pairs);
// Same, with prepared G2 points.
Fp12 miller_loop(std::span<const PreparedPair> prepared);
// Same, mixing both kinds in one loop (the Groth16 verifier: B from the proof, the rest prepared).
Fp12 miller_loop(std::span<const std::pair<G1Affine, G2Affine>> pairs, std::span<const PreparedPair> prepared);

// f^(3 (p^12 - 1) / r): the easy part, then the hard part by the Hayashida-Hayasaka-Teruya chain.
Fp12 final_exponentiation(const Fp12& f);

// e(P, Q) (cubed convention, see the top of this file).
Fp12 pairing(const G1Affine& p, const G2Affine& q);

// Whether prod e(P_i, Q_i) == 1, with one shared Miller loop and one final exponentiation.
bool pairing_product_is_one(std::span<const std::pair<G1Affine, G2Affine>> pairs);
// Same, mixing unprepared and prepared G2 points.
bool pairing_product_is_one(std::span<const std::pair<G1Affine, G2Affine>> pairs,
                            std::span<const PreparedPair> prepared);

}  // namespace cuzk::math
