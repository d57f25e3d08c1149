// From a C1's vanilla proofs to the StackedCircuit's private values for one partition
// (storage-proofs-porep circuit/params.rs `From<VanillaProof>`; filecoin-formats.md §3.5).
// Only the fields the circuit consumes are read; the rest are checked by vanilla_check.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "base/result.hpp"
#include "circuit/merkle.hpp"
#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::filecoin::porep {

// 32 LE bytes as a field element; the error names `where` when the value is not below r.
Result<math::Fr> fr_from_bytes32(const Bytes32& b, const std::string& where);
Bytes32 fr_to_bytes32(const math::Fr& x);

// A vanilla Merkle proof's path as the circuit's MerkleProof (positions + sibling values), after
// checking that its level arities are `arities` (leaf → root).
Result<circuit::MerkleProof> to_circuit_path(const porep::VanillaMerkleProof& p, std::span<const std::size_t> arities,
                                             const std::string& where);

Result<porep::StackedPartitionValues> partition_values(const porep::C1Output& c1, const porep::PorepConfig& config,
                                                       std::size_t partition);

}  // namespace cuzk::filecoin::porep
