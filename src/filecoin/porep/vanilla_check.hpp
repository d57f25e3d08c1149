// The checks filecoin-proofs' vanilla verifier makes on a C1 (storage-proofs-porep stacked/vanilla
// proof.rs `Proof::verify`), run before proving so that a corrupt or inconsistent C1 is refused
// with the failed check named — instead of yielding a Groth16 proof that does not verify.
//
// Per challenge: the challenged node equals the challenge derived from replica_id/seed (or comm_r);
// tree-D, tree-R and every tree-C path hash to comm_d, comm_r_last and comm_c and open the right
// node; the 6 DRG and 8 expander columns are those of the node's parents in the graph; each layer's
// label recomputes from the parents' rows; the labeling/encoding proofs agree with the columns; the
// tree-R leaf is label_L + data. Per sector: comm_r = Poseidon2(comm_c, comm_r_last), and all
// partitions open the same comm_c and comm_r_last.
#pragma once

#include <cstddef>

#include "base/result.hpp"
#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::porep {
class Graph;
}

namespace cuzk::filecoin::porep {

// Call after porep::check_c1_shape (sizes and ranges) has passed.
Status check_vanilla_partition(const porep::C1Output& c1, const porep::PorepConfig& config, const porep::Graph& graph,
                               std::size_t partition);
Status check_vanilla_proofs(const porep::C1Output& c1, const porep::PorepConfig& config, const porep::Graph& graph);

}  // namespace cuzk::filecoin::porep
