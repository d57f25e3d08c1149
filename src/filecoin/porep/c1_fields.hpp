// The field declarations of the C1 model (c1.hpp), once, in serde's declaration order
// (storage-proofs-porep stacked/vanilla params.rs, column_proof.rs, labeling_proof.rs). c1_bincode
// reads, writes and sizes the challenge proofs from them; the Merkle proof's is in
// filecoin/common/merkle_proof_fields.hpp.
#pragma once

#include <tuple>

#include "filecoin/common/merkle_proof_fields.hpp"
#include "filecoin/porep/c1.hpp"
#include "formats/fields.hpp"

namespace cuzk::filecoin::porep {

// ColumnProof { column: Column { index, rows, _h: PhantomData }, inclusion_proof }.
constexpr auto fields(const ColumnProof*) {
  using formats::field;
  return std::make_tuple(formats::group("column", field("index", &ColumnProof::index),
                                        field("rows", &ColumnProof::rows), formats::phantom("_h")),
                         field("inclusion_proof", &ColumnProof::inclusion_proof));
}

constexpr auto fields(const LabelingProof*) {
  using formats::field;
  return std::make_tuple(field("parents", &LabelingProof::parents), field("layer_index", &LabelingProof::layer_index),
                         field("node", &LabelingProof::node));
}

// Proof { comm_d_proofs, comm_r_last_proof, replica_column_proofs: { c_x, drg_parents, exp_parents },
// labeling_proofs, encoding_proof }.
constexpr auto fields(const ChallengeProof*) {
  using formats::field;
  return std::make_tuple(field("comm_d_proofs", &ChallengeProof::comm_d_proofs),
                         field("comm_r_last_proof", &ChallengeProof::comm_r_last_proof),
                         formats::group("replica_column_proofs", field("c_x", &ChallengeProof::c_x),
                                        field("drg_parents", &ChallengeProof::drg_parents),
                                        field("exp_parents", &ChallengeProof::exp_parents)),
                         field("labeling_proofs", &ChallengeProof::labeling_proofs),
                         field("encoding_proof", &ChallengeProof::encoding_proof));
}

}  // namespace cuzk::filecoin::porep
