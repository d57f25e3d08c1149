// From a vanilla Merkle proof (merkle_proof.hpp, bytes as they arrive) to the circuit's path values
// (circuit::MerkleProof: positions and sibling field elements), for every proof family's vanilla
// checks and witnesses; and the native root recomputation the vanilla verifiers do.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"
#include "circuit/merkle.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/common/merkle_proof.hpp"

namespace cuzk::filecoin {

// 32 LE bytes as a field element; the error names `where` when the value is not below r.
Result<math::Fr> fr_from_bytes32(const Bytes32& b, const std::string& where);
Bytes32 fr_to_bytes32(const math::Fr& x);

// A vanilla Merkle proof's path as the circuit's MerkleProof (positions + sibling values), after
// checking that its level arities are `arities` (leaf → root) and that every value is a field element.
Result<circuit::MerkleProof> to_circuit_path(const VanillaMerkleProof& p, std::span<const std::size_t> arities,
                                             const std::string& where);

// The root a path hashes to from its leaf, and the leaf index it opens (Σ position_l · Π lower arities).
struct PathResult {
  math::Fr root;
  std::uint64_t index = 0;
};
PathResult hash_path(const circuit::MerkleProof& path, circuit::TreeHash hash);

// A sealed or updated sector's comm_r = Poseidon2(comm_c, comm_r_last) (MerkleTree tag).
math::Fr comm_r_of(const math::Fr& comm_c, const math::Fr& comm_r_last);

}  // namespace cuzk::filecoin
