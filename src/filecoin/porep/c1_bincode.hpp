// C1 as bincode (filecoin-formats.md §3.6): bincode 1.x (little-endian, u64 lengths, u32 enum
// variant indices, [u8; 32] raw) of filecoin_proofs::SealCommitPhase1Output<Tree>, the form supraseal's
// C1 writes (`commit-phase1-output`). It has no registered_proof and no VanillaSealProof tag:
//   u64 P, {u64 C, Proof × C} × P, comm_r, comm_d, replica_id, seed, ticket (32 bytes each).
//
// Reading checks every length against the bytes that remain and against the sector size's shape
// (c1_limits.hpp) before allocating anything, rejects unknown
// MerkleProof variants and trailing bytes, and names the byte offset and the field on failure, e.g.
//   bincode: offset 1234: vanilla_proofs[0][1].comm_d_proofs.data.Single.path.path: length 1152921504606846976 needs at
//   least ... bytes, 500 left
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "filecoin/porep/c1.hpp"

namespace cuzk::filecoin::porep {

// registered_proof_for_shape names the registered proof to record in the result (and the vanilla key
// derived from it); empty: inferred from the shape (infer_registered_proof). Every length is at most
// what the registered proof's sector size allows (c1_limits.hpp) — that size, else `sector_size` when
// nonzero, else the maxima over every registered proof.
Result<C1Output> parse_c1_bincode(std::span<const std::uint8_t> bytes, std::string registered_proof_for_shape,
                                  std::uint64_t sector_size = 0);

std::vector<std::uint8_t> write_c1_bincode(const C1Output& c1);
std::size_t c1_bincode_size(const C1Output& c1);

// The registered proof a C1 of this shape most likely belongs to: the sector size from the tree-D
// depth of the first challenge proof (6 → 2 KiB, 18 → 8 MiB, 24 → 512 MiB, 30 → 32 GiB, 31 → 64 GiB),
// then StackedDrg<size>V1_1 as Curio assumes, or ..V1_2_Feat_NonInteractivePoRep when the number of
// partitions is the non-interactive one. V1, V1_1 and synthetic C1s have identical shapes.
Result<std::string> infer_registered_proof(const C1Output& c1);

}  // namespace cuzk::filecoin::porep
