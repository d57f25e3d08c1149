// The vanilla checks of a SnapDeals request, run before any key is touched (EmptySectorUpdate::verify
// plus the circuit's assertions the vanilla verifier omits; post-snap.md §6.2). Per partition k:
//
//   A apex leaves and C challenge proofs (parse); every value a field element;
//   root_r_old / root_r_new = challenge 0's roots; Poseidon2(comm_c, root_r_old) = comm_r_old and
//   Poseidon2(comm_c, root_r_new) = comm_r_new (MerkleTree tag);
//   per challenge c (challenges.hpp): the three paths hash to root_r_old / comm_d_new / root_r_new, each
//   opens node c, leaf_r_new = leaf_r_old + leaf_d_new·ρ(c >> (cb − h));
//   the apex: apex leaves hash (SHA, ab levels) to the partition's TreeD node, and that apex root
//   climbs challenge 0's partition path (tree D levels [cb − pb, cb)) to comm_d_new (checked first, so
//   a wrong apex leaf is named as such); each challenge's tree D path reaches, at apex_level, exactly
//   apex leaf (c >> apex_level) & (A − 1), its siblings at levels [apex_level, cb − pb) are the apex
//   tree's nodes (stricter than the vanilla verifier's row-membership test), and its partition path
//   equals challenge 0's.
//
// A failure is an error naming the partition, the challenge and the check, never an abort. Paths are
// hashed on all threads (a 32 GiB partition: 86 × (2 × 10 Poseidon-8 + 30 SHA) levels). On success the
// circuit's private values come back, so the witness does not convert the bytes again. Partitioned
// variant: ChallengeValues.path_d_new keeps levels [0, apex_level) and its root is the apex leaf it
// reaches; PartitionValues.partition_path is challenge 0's tree D siblings of levels [cb − pb, cb).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/snap/circuit_values.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/vanilla.hpp"

namespace cuzk::filecoin::snap {

// One partition (its index k is the request position).
Result<PartitionValues> check_partition_proof(const SnapGeometry& g, const SnapPublic& pub, const PartitionProof& proof,
                                              std::size_t k);
// All of a request's partitions: exactly g.partitions, in k order.
Result<std::vector<PartitionValues>> check_partition_proofs(const SnapGeometry& g, const SnapPublic& pub,
                                                            std::span<const PartitionProof> proofs,
                                                            const std::function<bool()>& cancelled = {});

}  // namespace cuzk::filecoin::snap
