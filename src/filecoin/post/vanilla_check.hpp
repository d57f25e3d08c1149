// The vanilla checks of a PoSt request, run before any key is touched (what FallbackPoSt::verify and
// single_partition_vanilla_proofs check, plus what the circuit silently assumes; post-snap.md §6.1):
//
//   the randomness is a field element; Window: 1..sector_count sectors with strictly ascending ids
//   (the verifier sorts by id); Winning: exactly one sector;
//   per sector: comm_r, comm_c, comm_r_last and every path value are field elements;
//     comm_r = Poseidon2(comm_c, comm_r_last) (MerkleTree tag);
//     every inclusion proof hashes to its root, that root is the SectorProof's comm_r_last (the circuit
//     uses the field, the Rust verifier the root: both must agree);
//     inclusion proof n opens exactly the challenged leaf (challenges.hpp, V1 or V1_2 rule, at
//     sector_index k·sector_count + i).
//
// A failure names the sector (request index and id) and the challenge. The paths are hashed on all
// threads (a 32 GiB partition is 2,349 × 10 paths × 10 Poseidon-8 levels). On success the circuit's
// private values come back, so the witness does not convert the bytes again.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/fallback_circuit.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/vanilla.hpp"

namespace cuzk::filecoin::post {

struct CheckedSector {
  PublicSector pub;
  PostSectorValues values;  // paths: the vanilla_challenges inclusion proofs
};

Result<std::vector<CheckedSector>> check_vanilla_proofs(const PostConfig& config, const Bytes32& randomness,
                                                        std::uint32_t partition_index,
                                                        std::span<const FallbackPostSectorProof> proofs,
                                                        const std::function<bool()>& cancelled = {});

}  // namespace cuzk::filecoin::post
