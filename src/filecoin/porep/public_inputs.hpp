// The public inputs of PoRep partition proofs, derived from the sector's commitments and
// randomness and the graph — never read from the vanilla proofs (StackedCompound::
// generate_public_inputs; filecoin-formats.md §4.2). ONE is not included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin::porep {
class Graph;
}

namespace cuzk::filecoin::porep {

struct SectorPublic {
  Bytes32 replica_id{}, comm_d{}, comm_r{}, seed{};
};

// 3 + 18·C values for partition `partition`: replica_id, comm_d, comm_r, then per challenge c:
// c (tree-D path), the 6 DRG and 8 expander parent indices, c (UInt64), c (tree R), c (tree C).
// The 32-byte values must be canonical (checked by the caller; non-canonical bytes are reduced).
std::vector<math::Fr> partition_public_inputs(const porep::PorepConfig& config, const porep::Graph& graph,
                                              const SectorPublic& sector, std::size_t partition);

}  // namespace cuzk::filecoin::porep
