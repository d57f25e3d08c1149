// Shape and range validation of a parsed C1 against its registered proof (filecoin-formats.md §3.2–3.4).
// This is what a C2 prover needs to trust before synthesis: the right number of partitions and
// challenges, Merkle proofs of the right kind and depth, columns with L rows, 6 DRG + 8 expander
// parents, L labeling proofs with 37 parents, and every 32-byte value in its domain:
//   * Poseidon domain (comm_r, replica_id, tree C / tree R nodes, leaves and roots): canonical Fr (< r);
//   * SHA-256 domain (comm_d, tree-D nodes and leaves) and labels (column rows, labeling / encoding
//     parents — trimmed SHA-256 outputs): bits 254 and 255 clear.
// It also checks the index bookkeeping a vanilla verifier checks without hashing: every proof of a
// challenge opens the same node (< nodes), each column's inclusion path opens column.index, the
// tree-D root is comm_d, and all tree-R roots (comm_r_last) resp. all column roots (comm_c) agree.
// Hashes themselves are not recomputed. The first offending value is named by its JSON path.
#pragma once

#include <cstdint>

#include "base/result.hpp"
#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::porep {

Status check_c1_shape(const C1Output& c1, const PorepConfig& cfg);
// Looks the configuration up by c1.registered_proof.
Status check_c1_shape(const C1Output& c1);

}  // namespace cuzk::filecoin::porep
