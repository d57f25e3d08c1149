// The SealCommitPhase1Output ("C1") data model: what filecoin-proofs' seal_commit_phase1 writes and
// what C2 consumes (filecoin-formats.md §3). The structs mirror the serde/bincode structure one to
// one so that reading and writing (c1_json, c1_bincode) are mechanical; every 32-byte value is kept
// as its raw little-endian bytes, exactly as it appears in the file, and converted to a field
// element only where it is used (with a range check that names the JSON path).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::filecoin::porep {

// [u8; 32]: Commitment, Ticket, Sha256Domain, PoseidonDomain (LE Fr bytes).
using Bytes32 = std::array<std::uint8_t, 32>;

// InclusionPath element: the arity-1 siblings in order (current node removed) and the current node's
// position 0..arity-1. Elements are listed leaf → root.
struct PathElement {
  std::vector<Bytes32> hashes;
  std::uint64_t index = 0;
};
using InclusionPath = std::vector<PathElement>;

// storage-proofs-core MerkleProof: data = Single{root, leaf, path} | Sub{base_proof, sub_proof, root,
// leaf} | Top{base_proof, sub_proof, top_proof, root, leaf}.
enum class MerkleProofKind : std::uint32_t { kSingle = 0, kSub = 1, kTop = 2 };

struct VanillaMerkleProof {
  MerkleProofKind kind = MerkleProofKind::kSingle;
  Bytes32 root{}, leaf{};
  InclusionPath base;  // Single: the whole path; Sub/Top: the base levels
  InclusionPath sub;   // Sub/Top only (one level)
  InclusionPath top;   // Top only (one level)

  // All levels leaf → root (base, then sub, then top).
  InclusionPath all_levels() const {
    InclusionPath p = base;
    p.insert(p.end(), sub.begin(), sub.end());
    p.insert(p.end(), top.begin(), top.end());
    return p;
  }
};

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
  VanillaMerkleProof comm_d_proofs;      // tree D (SHA-256, binary)
  VanillaMerkleProof comm_r_last_proof;  // tree R (Poseidon, base-sub-top)
  ColumnProof c_x;                       // replica_column_proofs.c_x
  std::vector<ColumnProof> drg_parents;  // 6
  std::vector<ColumnProof> exp_parents;  // 8
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
