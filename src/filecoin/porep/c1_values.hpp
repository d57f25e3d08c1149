// From a C1's vanilla proofs to the StackedCircuit's private values for one partition
// (storage-proofs-porep circuit/params.rs `From<VanillaProof>`; filecoin-formats.md §3.5).
// Only the fields the circuit consumes are read; the rest are checked by vanilla_check.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "base/result.hpp"
#include "circuit/merkle.hpp"
#include "filecoin/common/merkle_path.hpp"  // fr_from_bytes32, to_circuit_path
#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::filecoin::porep {

Result<porep::StackedPartitionValues> partition_values(const porep::C1Output& c1, const porep::PorepConfig& config,
                                                       std::size_t partition);

}  // namespace cuzk::filecoin::porep
