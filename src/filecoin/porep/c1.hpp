// The SealCommitPhase1Output ("C1") data model: what filecoin-proofs' seal_commit_phase1 writes and
// what C2 consumes (filecoin-formats.md §3). The structs mirror the serde/bincode structure one to
// one so that reading and writing (c1_json, c1_bincode) are mechanical; every 32-byte value is kept
// as its raw little-endian bytes, exactly as it appears in the file, and converted to a field
// element only where it is used (with a range check that names the JSON path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filecoin/common/merkle_proof.hpp"

namespace cuzk::filecoin::porep {

// Shared with the other proof families (filecoin/common/): 32-byte values and Merkle proofs.
using filecoin::Bytes32;
using filecoin::InclusionPath;
using filecoin::MerkleProofKind;
using filecoin::PathElement;
using filecoin::VanillaMerkleProof;

// Column { index: u32, rows: Vec<Domain>, _h: PhantomData (JSON null) }.
struct ColumnProof {
  std::uint32_t index = 0;
  std::vector<Bytes32> rows;  // layers 1..L
  VanillaMerkleProof inclusion_proof;
};

// LabelingProof / EncodingProof { parents: Vec<Domain> (37), layer_index: u32, node: u64 }.
struct LabelingProof {
  std::vector<Bytes32> parents;
  std::uint32_t layer_index = 0;
  std::uint64_t node = 0;
};

// storage-proofs-porep stacked/vanilla/params.rs Proof: one challenge.
struct ChallengeProof {
  VanillaMerkleProof comm_d_proofs;            // tree D (SHA-256, binary)
  VanillaMerkleProof comm_r_last_proof;        // tree R (Poseidon, base-sub-top)
  ColumnProof c_x;                             // replica_column_proofs.c_x
  std::vector<ColumnProof> drg_parents;        // 6
  std::vector<ColumnProof> exp_parents;        // 8
  std::vector<LabelingProof> labeling_proofs;  // layers 1..L
  LabelingProof encoding_proof;
};

// filecoin_proofs_api::seal::SealCommitPhase1Output.
struct C1Output {
  std::string registered_proof;  // e.g. "StackedDrg2KiBV1_1"
  std::string vanilla_key;       // VanillaSealProof variant, e.g. "StackedDrg2KiBV1" (no version suffix)
  std::vector<std::vector<ChallengeProof>> vanilla_proofs;  // [partition][challenge]
  Bytes32 comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
};

// Curio / lotus-bench wrapper {"SectorNum", "Phase1Out" (base64 of the C1 JSON), "SectorSize"}.
struct CurioC1 {
  std::int64_t sector_num = 0;
  std::uint64_t sector_size = 0;
  C1Output c1;
};

}  // namespace cuzk::filecoin::porep
