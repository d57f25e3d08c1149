// Poseidon over BLS12-381 Fr as neptune (v11–v14, Filecoin) defines it: x^5 S-box, R_F = 8, R_P from
// the Poseidon paper's round-number inequalities, Grain-LFSR round constants, Cauchy MDS, and the
// "optimized static" form (compressed round constants, pre-sparse and sparse matrices) that both the
// fast native hash and neptune's legacy circuit (gadgets/poseidon.hpp) use. Everything is generated
// in code; filecoin-formats.md §5 describes the algorithms, the tests pin neptune's known answers.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::circuit {

using math::Fr;

enum class PoseidonStrength { kStandard, kStrengthened };

// (R_F, R_P) for width t = arity + 1 (neptune round_numbers.rs; Strengthened adds 25% partial rounds).
std::pair<std::size_t, std::size_t> poseidon_round_numbers(std::size_t arity, PoseidonStrength s);

// Domain tags (state[0] before the first round).
Fr poseidon_tag_merkle_tree(std::size_t arity);      // 2^arity - 1: every Filecoin tree/column hash
Fr poseidon_tag_constant_length(std::uint64_t len);  // len · 2^64
Fr poseidon_tag_custom(std::uint64_t id);            // id · 2^40 (SnapDeals uses id 1, arity 2)

struct PoseidonConstants {
  std::size_t arity = 0, width = 0, full_rounds = 0, partial_rounds = 0;
  PoseidonStrength strength = PoseidonStrength::kStandard;
  Fr domain_tag;
  std::vector<Fr> round_constants;             // (R_F + R_P)·t, round r uses [r·t, (r+1)·t)
  std::vector<Fr> mds, mds_inv;                // t×t, row-major; state' = state × M (row vector)
  std::vector<Fr> compressed_round_constants;  // t·R_F + R_P
  std::vector<Fr> pre_sparse;                  // t×t, used after the last first-half full round
  std::vector<Fr> sparse_w_hat;                // R_P × t: new state[0] = Σ state[i]·w_hat[i]
  std::vector<Fr> sparse_v_rest;               // R_P × (t-1): state[j] += state[0]·v_rest[j-1]

  const Fr& m(std::size_t i, std::size_t j) const { return mds[i * width + j]; }
  const Fr& p(std::size_t i, std::size_t j) const { return pre_sparse[i * width + j]; }
  std::span<const Fr> w_hat(std::size_t round) const { return {sparse_w_hat.data() + round * width, width}; }
  std::span<const Fr> v_rest(std::size_t round) const {
    return {sparse_v_rest.data() + round * (width - 1), width - 1};
  }
  std::size_t half_full_rounds() const { return full_rounds / 2; }
};

// Builds the full constant set (a few ms for arity 36).
PoseidonConstants make_poseidon_constants(std::size_t arity, const Fr& domain_tag,
                                          PoseidonStrength strength = PoseidonStrength::kStandard);
// Cached MerkleTree-tag Standard constants for the arities Filecoin uses (any arity 1..63 works).
const PoseidonConstants& poseidon_constants(std::size_t arity);

// The Grain LFSR round constants alone (exposed for tests).
std::vector<Fr> poseidon_grain_constants(std::size_t width, std::size_t rf, std::size_t rp);

// Native hashes; preimage.size() must equal the arity (no padding, as neptune's simple hash).
Fr poseidon_hash(const PoseidonConstants& c, std::span<const Fr> preimage);            // optimized
Fr poseidon_hash_reference(const PoseidonConstants& c, std::span<const Fr> preimage);  // textbook
// filecoin-hashers hash_md: arity-36 Merkle-Damgård chaining (state ‖ 35 elements, zero padded).
Fr poseidon_hash_md(std::span<const Fr> elements);

}  // namespace cuzk::circuit
