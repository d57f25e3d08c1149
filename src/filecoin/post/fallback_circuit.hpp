// The FallbackPoSt circuit (storage-proofs-post fallback/circuit.rs), a template over the constraint
// system, in bellperson's allocation and row order (post-snap.md §4.1). Nothing at circuit level but
// the sectors (prover_id is a field of the Rust circuit but unused); for each sector, in order:
//
//   aux comm_r_last, aux comm_c, aux comm_r           (this order: comm_r_last first)
//   comm_r.inputize                                   input + row comm_r · ONE = input
//   Poseidon2(MerkleTree tag)([comm_c, comm_r_last])  311 rows
//   comm_r = hash                                     row comm_r · ONE = hash
//   per challenge: PoRCircuit(leaf = Root::Val (aux), root = Root::Var(comm_r_last), private):
//     per level index bits (LSB first), siblings, insert, Poseidon of the arity; then
//     pack_into_inputs(all index bits) (input = the leaf index) and computed root = comm_r_last
//
// Rows per sector = 313 + C·(Σ level costs + 2), level cost 530 (octree), 314 (binary top): Window
// 32 GiB 125,279,217 rows (filecoin-proofs constants.rs), Winning 32 GiB 370,590. Every sector block
// has the same shape (the gadgets never branch on values), which is what lets the shape recorder and
// the witness builder run sectors in parallel (shape.cpp, witness.cpp). The witness comes from the
// SectorProof fields comm_c and comm_r_last (not the inclusion proofs' roots), the request's comm_r
// and the paths; a short partition repeats its last sector (padding is done by the caller).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/gadgets/num.hpp"
#include "circuit/gadgets/por.hpp"
#include "circuit/gadgets/poseidon.hpp"
#include "filecoin/post/config.hpp"

namespace cuzk::filecoin::post {

struct FallbackPostParams {
  circuit::TreeShape tree;
  std::size_t sector_count = 0;     // sectors in the circuit (after padding)
  std::size_t challenge_count = 0;  // challenges per sector

  static FallbackPostParams from_config(const PostConfig& c) {
    return {c.tree_shape(), c.sector_count, c.challenge_count};
  }
  std::size_t num_public_inputs() const { return sector_count * (1 + challenge_count); }  // ONE excluded
};

// One circuit sector's private values.
struct PostSectorValues {
  circuit::Fr comm_r, comm_c, comm_r_last;
  std::vector<circuit::MerkleProof> paths;  // challenge_count paths in tree R (root unused: comm_r_last)
};

// Values of the right shape (not a satisfying assignment), for counting and shape recording.
PostSectorValues dummy_sector_values(const FallbackPostParams& p, std::uint64_t seed = 0);

// Sector i's block ("sector_i").
template <class CS>
void synthesize_post_sector(CS& cs, const FallbackPostParams& p, const PostSectorValues& v, std::size_t i) {
  using circuit::AllocatedNum;
  auto g = cs.ns(circuit::Name("sector", std::int64_t(i)));
  AllocatedNum comm_r_last, comm_c, comm_r;
  {
    auto g2 = cs.ns("comm_r_last");
    comm_r_last = circuit::alloc_num(cs, v.comm_r_last);
  }
  {
    auto g2 = cs.ns("comm_c");
    comm_c = circuit::alloc_num(cs, v.comm_c);
  }
  {
    auto g2 = cs.ns("comm_r");
    comm_r = circuit::alloc_num(cs, v.comm_r);
  }
  {
    auto g2 = cs.ns("comm_r_input");
    circuit::inputize(cs, comm_r);
  }
  {
    AllocatedNum hash;
    {
      auto g2 = cs.ns("verify_commitment");
      const AllocatedNum pre[2] = {comm_c, comm_r_last};
      hash = circuit::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(pre, 2), circuit::poseidon_constants(2));
    }
    circuit::enforce_equal(cs, "enforce_comm_r", comm_r, hash);
  }
  for (std::size_t n = 0; n < p.challenge_count; ++n) {
    auto g2 = cs.ns(circuit::Name("challenge_inclusion", std::int64_t(n)));
    circuit::por_circuit(cs, p.tree, v.paths[n], nullptr, &comm_r_last, true);
  }
}

// FallbackPoStCircuit::synthesize over exactly p.sector_count sectors.
template <class CS>
void synthesize_fallback_post(CS& cs, const FallbackPostParams& p, std::span<const PostSectorValues> sectors) {
  for (std::size_t i = 0; i < sectors.size(); ++i) synthesize_post_sector(cs, p, sectors[i], i);
}

}  // namespace cuzk::filecoin::post
