// PoRep challenge derivation (storage-proofs-porep stacked/vanilla/challenges.rs;
// filecoin-formats.md §6.9). Every challenge is a node in [1, nodes) — node 0 is never challenged.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/porep/config.hpp"
#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::porep {

// The C challenged nodes of `partition`, by variant: interactive (V1, V1_1) from the seed;
// synthetic from the synthetic set (keyed by comm_r) selected by the seed; non-interactive from comm_r.
std::vector<std::uint64_t> partition_challenges(const porep::PorepConfig& config, const Bytes32& replica_id,
                                                const Bytes32& seed, const Bytes32& comm_r, std::size_t partition);

// Interactive: challenge j = C·k + i is SHA-256(replica_id ‖ seed ‖ j u32 LE) mod (nodes − 1) + 1.
std::vector<std::uint64_t> interactive_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                                  std::size_t per_partition, std::size_t partition);
// Non-interactive: as interactive with SHA-256("filecoin.io|PoRep|1|NonInteractive|1" ‖ replica_id ‖ comm_r ‖ j).
std::vector<std::uint64_t> ni_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                         std::size_t per_partition, std::size_t partition);

// Size of the synthetic challenge set: min(nodes, 2^18).
std::uint64_t num_synthetic_challenges(std::uint64_t nodes);
// Synthetic challenges [first, first + count): 32-byte blocks of a ChaCha20-IETF keystream keyed by
// BLAKE2b-256(key "…|Synthetic|1|Generation", replica_id ‖ comm_r), each reduced like an interactive one.
std::vector<std::uint64_t> synthetic_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                std::uint64_t count, std::uint64_t first = 0);
// Indexes into the synthetic set chosen for `partition`: u32 LE words of a second keystream keyed by
// BLAKE2b-256(key "…|Synthetic|1|Selection", replica_id ‖ seed), read from word C·k, mod the set
// size num_synth (num_synthetic_challenges(nodes) in production; the upstream KAT uses 21).
std::vector<std::uint64_t> synthetic_selection(const Bytes32& replica_id, const Bytes32& seed, std::uint64_t num_synth,
                                               std::size_t per_partition, std::size_t partition);

}  // namespace cuzk::filecoin::porep
