// Identifiers that key a sealed sector (filecoin-formats.md §3.1, §6.1, §6.2).
#pragma once

#include <cstdint>

#include "filecoin/porep/config.hpp"
#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::porep {

// porep_id = registered-proof id as u64 LE ‖ nonce 0 as u64 LE ‖ 16 zero bytes
// (rust-filecoin-proofs-api registry.rs).
Bytes32 porep_id(const porep::PorepConfig& config);
Bytes32 porep_id_from_number(std::uint64_t registered_id);

// replica_id = SHA-254(prover_id ‖ sector_id u64 BE ‖ ticket ‖ comm_d ‖ porep_id).
Bytes32 replica_id(const Bytes32& prover_id, std::uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id);

// The prover id of a miner actor: the actor id as an unsigned LEB128 varint, left-aligned in 32 zero
// bytes (Filecoin address payload; e.g. actor 3751 -> a7 1d 00 …).
Bytes32 prover_id_from_actor(std::uint64_t actor);

}  // namespace cuzk::filecoin::porep
