// FallbackPoSt leaf challenges (storage-proofs-post fallback/vanilla.rs generate_leaf_challenge,
// utils.rs get_challenge_index; post-snap.md §3.2):
//
//   leaf(s, j) = u64_le(SHA-256(randomness ‖ s as u64 LE ‖ j as u64 LE)[0..8]) mod nodes
//   j          = sector_index · C + n   (ApiVersion V1_0_0 / V1_1_0: codes 0–9)
//              = n                      (V1_2_0: codes 10–14, the "grindability fix")
//   sector_index = k · sector_count + i (partition k, position i in its chunk)
//
// Winning: the prover takes C = 66 challenges of the one sector at sector_index 0 (j = n); the circuit
// and the verifier see 66 sectors of one challenge (j = i·1 + 0): the same 66 leaves.
// The randomness must be a field element (Lotus/Curio clear byte 31's top two bits before sending);
// a non-Fr value is refused, never masked, since masking would change every challenge.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/post/config.hpp"

namespace cuzk::filecoin::post {

std::uint64_t leaf_challenge(const Bytes32& randomness, std::uint64_t sector_id, std::uint64_t challenge_index,
                             std::uint64_t nodes);

// The vanilla_challenges leaves one sector's vanilla proof must open, for the sector at
// `sector_index` (= k·sector_count + i; Winning: 0).
std::vector<std::uint64_t> sector_challenges(const PostConfig& config, const Bytes32& randomness,
                                             std::uint64_t sector_id, std::uint64_t sector_index);

// Refuses a randomness (or prover id) that is not a canonical field element; `what` names the field.
Status check_fr(const Bytes32& value, const char* what);

}  // namespace cuzk::filecoin::post
