// SnapDeals public inputs of partition k (storage-proofs-update circuit.rs PublicInputs::to_vec;
// post-snap.md §3.4): [k_and_h_select, comm_r_old, comm_d_new, comm_r_new] (ONE excluded); the
// Poseidon variant: [h_select, comm_r_old, comm_d_new, comm_r_new]. The commitments come from the
// request, never from the vanilla proofs, and must be field elements (the error names the field).
#pragma once

#include <cstddef>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/snap/config.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin::snap {

struct SnapCommitments {
  Bytes32 comm_r_old{}, comm_r_new{}, comm_d_new{};  // raw 32 bytes, LE field elements
};

struct SnapPublic {
  math::Fr comm_r_old, comm_r_new, comm_d_new;
};
Result<SnapPublic> check_commitments(const SnapCommitments& c);  // each a canonical Fr

std::vector<math::Fr> partition_public_inputs(const SnapGeometry& g, const SnapPublic& pub, std::size_t k);

}  // namespace cuzk::filecoin::snap
