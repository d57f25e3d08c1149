// Commit phase 1: the vanilla proofs of a sealed sector in the C1 data model, built as
// storage-proofs-porep prove_layers does (filecoin-formats.md §3.3): per challenge a tree-D proof,
// a tree-R proof, the column proofs of the challenge and of its 6 DRG + 8 expander parents, one
// labelling proof per layer and the encoding proof (a copy of the last labelling proof).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/testkit/seal.hpp"

namespace cuzk::filecoin::testkit {

// Appends the L labeling proofs of `node` and its encoding proof (a copy of the last), laid out as
// prove_layers does: layer ℓ's parents are the 6 DRG parents' labels at ℓ and, for ℓ > 1, the 8
// expander parents' labels at ℓ−1, expanded to 37. label(layer, parent) gives a parent's label.
void add_labeling_proofs(porep::ChallengeProof& p, std::uint64_t node, std::size_t layers,
                         const std::uint32_t parents[porep::kDegree],
                         const std::function<const Bytes32&(std::size_t layer, std::uint32_t parent)>& label);

porep::ColumnProof column_proof(const SealedSector& s, std::uint32_t node);
porep::ChallengeProof challenge_proof(const SealedSector& s, const porep::Graph& g, std::uint64_t challenge);

// All partitions (challenges from partition_challenges) and the C1 header fields.
porep::C1Output commit_phase1(const SealedSector& s, const Bytes32& seed);

// seal + commit_phase1 in one call.
porep::C1Output seal_commit_phase1(const porep::PorepConfig& config, const SealInputs& inputs);

}  // namespace cuzk::filecoin::testkit
