// Vanilla verification of a C1 output (the checks of storage-proofs-porep Proof::verify, plus the
// C1-level ones): challenges re-derived, every Merkle path hashed to its root, columns hashed to the
// tree-C leaves, labels recomputed from the parents' column rows, replica = label_L + data, and
// comm_r = Poseidon2(comm_c, comm_r_last). Uses only the graph and the hashes — not the sealer — so it
// can check C1 files from anywhere (tests, `cuzk seal`, C2 inputs).
#pragma once

#include <string>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::sdr {

// Empty when every check passes, else one line naming the first failure
// ("partition 0 challenge 1 (node 52): labeling proof layer 2 does not hash to the column row").
std::string verify_c1(const porep::PorepConfig& config, const porep::C1Output& c1);

}  // namespace cuzk::filecoin::sdr
