// The vanilla checks of a SnapDeals request, run before any key is touched (EmptySectorUpdate::verify
// plus the circuit's assertions the vanilla verifier omits; post-snap.md §6.2). Per partition k:
//
//   A apex leaves and C challenge proofs (parse); every value a field element;
//   root_r_old / root_r_new = challenge 0's roots; Poseidon2(comm_c, root_r_old) = comm_r_old and
//   Poseidon2(comm_c, root_r_new) = comm_r_new (MerkleTree tag);
//   per challenge c (challenges.hpp): the three paths hash to root_r_old / comm_d_new / root_r_new, each
//   opens node c, leaf_r_new = leaf_r_old + leaf_d_new·ρ(c >> (cb − h));
//   the apex: apex leaves hash (SHA, ab levels) to the partition's TreeD node, each challenge's
//   tree D path passes through apex leaf c's apex index (bits [apex_level, cb − pb) of c) with that
//   value, every challenge's partition path (tree D levels [cb − pb, cb)) equals challenge 0's, and it
//   climbs from the apex root to comm_d_new.
//
// A failure is an error naming the partition, the challenge and the check, never an abort. Paths are
// hashed on all threads (a 32 GiB partition: 86 × (2 × 10 Poseidon-8 + 30 SHA) levels). On success the
// circuit's private values come back, so the witness does not convert the bytes again.
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
