// The private values of one EmptySectorUpdate partition circuit, in circuit form (field elements and
// paths), what vanilla_check.hpp produces from a PartitionProof and what update_circuit.hpp /
// update_poseidon_circuit.hpp synthesize. The circuits take every index bit from the in-circuit
// challenge, so the paths' positions are informational (the vanilla check has already compared them
// with the challenges).
#pragma once

#include <cstdint>
#include <vector>

#include "circuit/merkle.hpp"
#include "filecoin/snap/config.hpp"

namespace cuzk::filecoin::snap {

struct ChallengeValues {
  circuit::Fr leaf_r_old, leaf_d_new;  // label_r_new = leaf_r_old + leaf_d_new·ρ is computed in circuit
  circuit::MerkleProof path_r_old;     // tree R old: all levels (root unused: root_r_old)
  circuit::MerkleProof path_r_new;     // tree R new: all levels (leaf unused: the computed label)
  // Partitioned variant: tree D levels [0, apex_level) only (1 sibling per level; the apex-level and
  // partition-path levels come from PartitionValues). Poseidon variant: the whole tree-R-shaped path.
  circuit::MerkleProof path_d_new;
};

struct PartitionValues {
  std::size_t k = 0;                               // partition index
  circuit::Fr comm_r_old, comm_d_new, comm_r_new;  // public
  circuit::Fr comm_c, root_r_old, root_r_new;      // roots = challenge_proofs[0]'s
  std::vector<circuit::Fr> apex_leafs;             // A (empty for the Poseidon variant)
  std::vector<circuit::Fr> partition_path;         // pb siblings, tree D levels [cb − pb, cb)
  std::vector<ChallengeValues> challenges;         // C, in challenge order
};

// Values of the right shape (not a satisfying assignment), for counting and shape recording.
PartitionValues dummy_partition_values(const SnapGeometry& g, std::size_t k = 0, std::uint64_t seed = 0);

}  // namespace cuzk::filecoin::snap
