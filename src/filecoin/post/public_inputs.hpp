// The public inputs of one FallbackPoSt partition circuit (fallback/compound.rs generate_public_inputs;
// post-snap.md §3.3), ONE excluded, derived from the public values only (sector ids, comm_r, the
// randomness, the partition index) — never from the vanilla proofs:
//
//   for each circuit sector i: comm_r, then for n in 0..C: Fr(leaf challenge)
//
//   Window  the partition's sectors in request order at sector_index k·sector_count + i; a short
//           partition repeats its last sector's block (inputs and all) up to sector_count blocks
//   Winning the one sector 66 times, circuit sector i with the one challenge j = i
//
// Count = sector_count·(1 + C): Winning 132, Window test sizes 22, 32 GiB 25,839, 64 GiB 25,300.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/post/config.hpp"

namespace cuzk::filecoin::post {

struct PublicSector {
  std::uint64_t id = 0;
  Bytes32 comm_r{};
};

// The leaf challenge of circuit sector i's challenge n: what the circuit's PoR input for it equals.
std::uint64_t circuit_challenge(const PostConfig& config, const Bytes32& randomness, std::uint64_t sector_id,
                                std::uint32_t partition_index, std::size_t i, std::size_t n);

// Errors: no sectors, too many for one partition (Window: sector_count; Winning: exactly 1), a comm_r
// or the randomness that is not a field element.
Result<std::vector<math::Fr>> partition_public_inputs(const PostConfig& config, const Bytes32& randomness,
                                                      std::span<const PublicSector> sectors,
                                                      std::uint32_t partition_index);

}  // namespace cuzk::filecoin::post
