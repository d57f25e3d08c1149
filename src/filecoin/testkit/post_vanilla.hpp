// PoSt vanilla proofs for tests, without Lotus (post-snap.md §7.2): from a sector sealed by
// testkit::seal / `cuzk seal` (tree R rebuilt from the replica), and SYNTHETIC TEST DATA sectors of
// any size (32/64 GiB included) built like synthetic_c1: only the challenged paths are materialized,
// a sparse tree R with pseudo-random siblings off the paths, so comm_r_last, comm_c (pseudo-random)
// and comm_r = Poseidon2(comm_c, comm_r_last) are consistent and every vanilla check passes. Synthetic
// sectors are NOT real sectors; they exist to test and benchmark the PoSt prover at production sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/vanilla.hpp"
#include "filecoin/testkit/tree.hpp"

namespace cuzk::filecoin::testkit {

// What a PoSt prover needs of one sealed sector.
struct PostSector {
  std::uint64_t sector_id = 0;
  Bytes32 comm_c{}, comm_r_last{}, comm_r{};
  PoseidonTree tree_r;  // over the replica nodes
};

// From a `cuzk seal` output folder (DIR/sealed, DIR/comm.json): tree R rebuilt from the replica and
// checked against comm.json's comm_r_last and comm_r. The sector size must be config's.
Result<PostSector> load_sealed_sector(const std::string& dir, const post::PostConfig& config);

// The FallbackPoStSectorProof of `sector` at `sector_index` (= k·sector_count + i; Winning: 0):
// config.vanilla_challenges inclusion proofs of the challenged leaves (post::sector_challenges).
post::FallbackPostSectorProof post_vanilla_proof(const post::PostConfig& config, const PostSector& sector,
                                                 const Bytes32& randomness, std::uint64_t sector_index);

// SYNTHETIC TEST DATA: `count` sectors with ids first_sector_id, first_sector_id + 1, … proving
// partition `partition_index` (sector i at sector_index partition_index·sector_count + i), every
// value derived from rng_seed. Passes post::check_vanilla_proofs.
std::vector<post::FallbackPostSectorProof> synthetic_post_vanilla(const post::PostConfig& config, std::size_t count,
                                                                  const Bytes32& randomness,
                                                                  std::uint32_t partition_index,
                                                                  std::uint64_t first_sector_id,
                                                                  std::uint64_t rng_seed);

}  // namespace cuzk::filecoin::testkit
