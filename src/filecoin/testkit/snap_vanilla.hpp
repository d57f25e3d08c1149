// SnapDeals test inputs without Lotus (post-snap.md §7.3; FIP-0019, rust-fil-proofs
// EmptySectorUpdate::encode_into): encoding an updated replica from a sealed sector and new data, and
// cutting the P PartitionProofs from its trees.
//
//   tree D new = binary SHA-254 tree over the data nodes (comm_d_new = its root)
//   φ = Hc(comm_d_new, comm_r_old);  new_replica[i] = old_replica[i] + data[i]·ρ(i >> (cb − h))
//   tree R new over the new replica (same shape); comm_r_new = Poseidon2(comm_c, comm_r_last_new)
//
// Two sources: a whole sector held in memory (2 KiB … 512 MiB, e.g. from `cuzk seal`), and STRUCTURED
// SYNTHETIC TEST DATA of any size (32/64 GiB included): an old replica whose nodes are all one value
// and data whose nodes are all one value, so that the new replica is constant on each of the 2^h
// ρ-blocks and every tree node is a function of (level, block) — all three trees are computed with a
// few thousand hashes, and the update is exact (every vanilla check and the circuit hold). Synthetic
// sectors are not sealed sectors (comm_c is pseudo-random); they exist to test and benchmark the
// SnapDeals prover at production sizes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/testkit/tree.hpp"

namespace cuzk::filecoin::testkit {

struct UpdatedSector {
  snap::SnapGeometry geometry;
  Bytes32 comm_c{}, comm_r_last_old{}, comm_r_old{};
  Bytes32 comm_d_new{}, comm_r_last_new{}, comm_r_new{};
  PoseidonTree tree_r_old, tree_r_new;  // leaves = old / new replica nodes
  ShaTree tree_d_new;                   // leaves = the new data nodes

  snap::SnapCommitments commitments() const { return {comm_r_old, comm_r_new, comm_d_new}; }
  // The updated replica file: new replica nodes as 32-byte LE field elements.
  std::vector<std::uint8_t> new_replica_bytes() const;
};

// Encodes `data` (sector-size fr32-padded nodes, each < r) into the sealed sector's replica
// (`old_replica` nodes, the tree R leaves; comm_r_old = Poseidon2(comm_c, root)). Errors name the node
// that is not a field element or the size that does not match.
// The partitioned variant only (the Poseidon variant's tree D is
// not SHA-256; synthetic_snap_vanilla covers it).
Result<UpdatedSector> encode_update(const snap::SnapGeometry& g, std::span<const Bytes32> old_replica,
                                    const Bytes32& comm_c, std::span<const Bytes32> data);

// Partition k's PartitionProof: A apex leaves, C challenge proofs (snap::partition_challenges).
snap::PartitionProof snap_partition_proof(const UpdatedSector& s, std::size_t k);

// STRUCTURED SYNTHETIC TEST DATA (see above): the commitments and the P partition proofs of an updated
// sector of g's size, every value derived from rng_seed. Passes snap::check_partition_proofs. Either
// variant (Poseidon: tree D is a tree-R-shaped Poseidon tree over the data, no apex leaves).
struct SyntheticSnap {
  snap::SnapCommitments comms;
  std::vector<snap::PartitionProof> partitions;  // k order
};
SyntheticSnap synthetic_snap_vanilla(const snap::SnapGeometry& g, std::uint64_t rng_seed);

}  // namespace cuzk::filecoin::testkit
