// SnapDeals randomness and challenges (storage-proofs-update challenges.rs, vanilla.rs, gadgets.rs;
// post-snap.md §3.5, known answers §8.3):
//
//   Hc(a, b)  = Poseidon arity 2, Standard, ordinary arity-2 constants, domain tag 1·2^40
//               (neptune HashType::Custom(CType::Arbitrary(1)))
//   φ         = Hc(comm_d_new, comm_r_old)                          (this order)
//   ρ(high)   = Hc(φ, high),  high = node >> (cb − h)
//   digest d  = Hc(comm_r_new, d); partition k uses d = k·dpp … k·dpp + dpp − 1, each giving cpd
//               challenges: bits [t·rb, (t+1)·rb) of the digest's 255 LE bits, LSB first, | (k << rb)
//
// so every challenge of partition k lies in nodes [k·nodes/P, (k+1)·nodes/P). The Poseidon variant
// draws C·P challenges of rb = cb bits from digests 0, 1, … (Challenges::new_poseidon).
#pragma once

#include <cstdint>
#include <vector>

#include "circuit/poseidon.hpp"
#include "filecoin/snap/config.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin::snap {

using math::Fr;

const circuit::PoseidonConstants& gen_randomness_constants();  // arity 2, tag 2^40
Fr gen_randomness_hash(const Fr& a, const Fr& b);              // Hc
Fr phi(const Fr& comm_d_new, const Fr& comm_r_old);
Fr rho(const Fr& phi, std::uint64_t high);
// The high part of a node index that selects its ρ.
inline std::uint64_t rho_high(const SnapGeometry& g, std::uint64_t node) { return node >> (g.challenge_bits - g.h); }

// The challenge_count node indices partition k proves (Poseidon variant: k = 0, all C challenges).
std::vector<std::uint64_t> partition_challenges(const SnapGeometry& g, const Fr& comm_r_new, std::size_t k);

}  // namespace cuzk::filecoin::snap
