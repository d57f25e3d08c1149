// StackedCircuit for one PoRep partition (storage-proofs-porep stacked/circuit/proof.rs and
// params.rs), a template over the constraint system. Allocation and row order follow bellperson /
// rust-fil-proofs exactly (filecoin-formats.md §4.3):
//
//   replica_id (alloc, inputize, to_bits_le + reverse_bit_numbering); comm_d (alloc, inputize);
//   comm_r (alloc, inputize); comm_r_last; comm_c; hash2(comm_c, comm_r_last) and comm_r = hash;
//   per challenge i ("challenge_i", Proof::synthesize):
//     data_leaf; tree-D inclusion; 6 DRG parents (column alloc, column hash, tree-C inclusion);
//     8 expander parents (same); UInt64 challenge + pack_into_input; labels for layers 1..L;
//     encode (label_L + data_leaf) + tree-R inclusion; column hash of the labels + tree-C inclusion.
//
// Bellperson's input rows (x_i·0 = 0 for every input, ONE included) are appended by the constraint
// system, not here: CountingCS::num_constraints() is the circuit row count, num_groth16_rows() adds
// them.
//
// The private values come from StackedPartitionValues; the gadgets never branch on values, so
// dummy_partition_values() (right shape, arbitrary values) gives the exact shape for counting and
// shape recording. The labels and encoded node are computed in the circuit from the values given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/gadgets/create_label.hpp"
#include "circuit/gadgets/num.hpp"
#include "circuit/gadgets/por.hpp"
#include "circuit/gadgets/poseidon.hpp"
#include "circuit/gadgets/uint32.hpp"
#include "circuit/gadgets/uint64.hpp"
#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::porep {

inline constexpr std::size_t kDrgParents = 6;       // BASE_DEGREE
inline constexpr std::size_t kExpanderParents = 8;  // EXP_DEGREE

// The circuit's shape parameters (one partition).
struct StackedCircuitParams {
  std::size_t layers = 2;
  std::size_t challenges = 1;
  circuit::TreeShape tree_d;   // binary SHA-256
  circuit::TreeShape tree_rc;  // Poseidon base-sub-top (tree R and tree C)

  static StackedCircuitParams from_config(const PorepConfig& c) {
    return {c.layers, c.challenges_per_partition, c.tree_d_shape(), c.tree_rc_shape()};
  }
  std::size_t num_public_inputs() const { return 3 + 18 * challenges; }  // ONE excluded
};

// One parent column: its value in every layer and its tree-C opening.
struct ColumnOpening {
  std::vector<circuit::Fr> rows;  // layers values, layer 1 first
  circuit::MerkleProof path;      // leaf/root of the proof are unused (the circuit computes them)
};

struct ChallengeValues {
  std::uint64_t challenge = 0;
  circuit::Fr data_leaf;
  circuit::MerkleProof comm_d_path;
  std::vector<ColumnOpening> drg_parents;  // kDrgParents
  std::vector<ColumnOpening> exp_parents;  // kExpanderParents
  circuit::MerkleProof comm_r_last_path;
  circuit::MerkleProof comm_c_path;  // opening of the challenged column (c_x)
};

struct StackedPartitionValues {
  circuit::Fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<ChallengeValues> challenges;
};

// A MerkleProof of the right shape for `shape` with arbitrary values.
inline circuit::MerkleProof dummy_merkle_proof(const circuit::TreeShape& shape, std::uint64_t index) {
  circuit::MerkleProof p;
  p.leaf = circuit::Fr::from_u64(index + 1);
  p.root = circuit::Fr::from_u64(7);
  for (std::size_t arity : shape.level_arities()) {
    p.positions.push_back(std::size_t(index % arity));
    index /= arity;
    std::vector<circuit::Fr> sib;
    for (std::size_t k = 0; k + 1 < arity; ++k) sib.push_back(circuit::Fr::from_u64(100 + k));
    p.siblings.push_back(std::move(sib));
  }
  return p;
}

// Values of the right shape for counting / shape recording (not a satisfying assignment).
inline StackedPartitionValues dummy_partition_values(const StackedCircuitParams& p) {
  StackedPartitionValues v;
  v.replica_id = circuit::Fr::from_u64(11);
  v.comm_d = circuit::Fr::from_u64(12);
  v.comm_r = circuit::Fr::from_u64(13);
  v.comm_r_last = circuit::Fr::from_u64(14);
  v.comm_c = circuit::Fr::from_u64(15);
  const std::uint64_t nodes = p.tree_d.num_leaves();
  auto column = [&](std::uint64_t node) {
    ColumnOpening c;
    for (std::size_t l = 0; l < p.layers; ++l) c.rows.push_back(circuit::Fr::from_u64(1000 + node * 16 + l));
    c.path = dummy_merkle_proof(p.tree_rc, node);
    return c;
  };
  for (std::size_t i = 0; i < p.challenges; ++i) {
    ChallengeValues ch;
    ch.challenge = (i * 7 + 1) % nodes;
    ch.data_leaf = circuit::Fr::from_u64(500 + i);
    ch.comm_d_path = dummy_merkle_proof(p.tree_d, ch.challenge);
    for (std::size_t k = 0; k < kDrgParents; ++k) ch.drg_parents.push_back(column((ch.challenge + k + 1) % nodes));
    for (std::size_t k = 0; k < kExpanderParents; ++k)
      ch.exp_parents.push_back(column((ch.challenge * 3 + k + 2) % nodes));
    ch.comm_r_last_path = dummy_merkle_proof(p.tree_rc, ch.challenge);
    ch.comm_c_path = dummy_merkle_proof(p.tree_rc, ch.challenge);
    v.challenges.push_back(std::move(ch));
  }
  return v;
}

namespace stacked_detail {

using circuit::AllocatedNum;
using circuit::Boolean;
using circuit::Name;

// storage-proofs-porep hash.rs hash_single_column: Poseidon of arity = number of layers (2 or 11).
template <class CS>
AllocatedNum hash_single_column(CS& cs, const std::vector<AllocatedNum>& column) {
  return circuit::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(column),
                                        circuit::poseidon_constants(column.size()));
}

// ColumnProof::alloc ("<kind>_num i"), column hash ("<kind>_constraint i"), enforce_inclusion in
// tree C ("<kind>_inclusion i"), as params.rs does for each DRG / expander parent.
struct ParentNames {
  const char* num;
  const char* constraint;
  const char* inclusion;
};
inline constexpr ParentNames kDrgNames{"drg_parent_num", "drg_parent_constraint", "drg_parent_inclusion"};
inline constexpr ParentNames kExpNames{"exp_parent_num", "exp_parent_constraint", "exp_parent_inclusion"};

template <class CS>
std::vector<AllocatedNum> parent_column(CS& cs, const ParentNames& names, std::size_t i, const ColumnOpening& col,
                                        const circuit::TreeShape& tree_rc, const AllocatedNum& comm_c) {
  std::vector<AllocatedNum> rows;
  {
    auto g = cs.ns(Name(names.num, std::int64_t(i)));
    auto g2 = cs.ns("column");
    for (std::size_t l = 0; l < col.rows.size(); ++l) {
      auto g3 = cs.ns(Name("column_num_row", std::int64_t(l)));
      rows.push_back(circuit::alloc_num(cs, col.rows[l]));
    }
  }
  AllocatedNum hash;
  {
    auto g = cs.ns(Name(names.constraint, std::int64_t(i)));
    hash = hash_single_column(cs, rows);
  }
  {
    auto g = cs.ns(Name(names.inclusion, std::int64_t(i)));
    circuit::por_circuit(cs, tree_rc, col.path, &hash, &comm_c, true);
  }
  return rows;
}

// params.rs Proof::synthesize.
template <class CS>
void challenge_proof(CS& cs, const StackedCircuitParams& p, const ChallengeValues& v, const AllocatedNum& comm_d,
                     const AllocatedNum& comm_c, const AllocatedNum& comm_r_last,
                     const std::vector<Boolean>& replica_id_bits) {
  AllocatedNum data_leaf;
  {
    auto g = cs.ns("data_leaf");
    data_leaf = circuit::alloc_num(cs, v.data_leaf);
  }
  {
    auto g = cs.ns("comm_d_inclusion");
    circuit::por_circuit(cs, p.tree_d, v.comm_d_path, &data_leaf, &comm_d, true);
  }
  std::vector<std::vector<AllocatedNum>> drg, exp;
  for (std::size_t i = 0; i < v.drg_parents.size(); ++i)
    drg.push_back(parent_column(cs, kDrgNames, i, v.drg_parents[i], p.tree_rc, comm_c));
  for (std::size_t i = 0; i < v.exp_parents.size(); ++i)
    exp.push_back(parent_column(cs, kExpNames, i, v.exp_parents[i], p.tree_rc, comm_c));
  circuit::UInt64 challenge;
  {
    auto g = cs.ns("challenge");
    challenge = circuit::uint64_alloc(cs, v.challenge);
  }
  {
    auto g = cs.ns("challenge input");
    circuit::uint64_pack_into_input(cs, challenge);
  }
  std::vector<AllocatedNum> labels;
  for (std::size_t layer = 1; layer <= p.layers; ++layer) {
    auto g = cs.ns(Name("labeling", std::int64_t(layer)));
    std::vector<std::vector<Boolean>> parents;
    for (const auto& col : drg) {
      auto g2 = cs.ns(Name("drg_parent_bits", std::int64_t(parents.size())));
      parents.push_back(circuit::reverse_bit_numbering(circuit::to_bits_le(cs, col[layer - 1])));
    }
    if (layer > 1) {
      // expander parents come from the previous layer
      for (const auto& col : exp) {
        auto g2 = cs.ns(Name("exp_parent_bits", std::int64_t(parents.size())));
        parents.push_back(circuit::reverse_bit_numbering(circuit::to_bits_le(cs, col[layer - 2])));
      }
    }
    std::vector<std::vector<Boolean>> expanded = parents;
    if (layer > 1) {
      expanded.insert(expanded.end(), parents.begin(), parents.end());        // 28
      expanded.insert(expanded.end(), parents.begin(), parents.begin() + 9);  // 37
    } else {
      for (int k = 0; k < 5; ++k) expanded.insert(expanded.end(), parents.begin(), parents.end());  // 36
      expanded.push_back(parents[0]);                                                               // 37
    }
    auto g2 = cs.ns("create_label");
    labels.push_back(circuit::create_label_circuit(cs, replica_id_bits, expanded,
                                                   circuit::UInt32::constant(std::uint32_t(layer)), challenge));
  }
  {
    AllocatedNum encoded;
    {
      auto g = cs.ns("encode_node");
      encoded = circuit::constraint_add(cs, labels.back(), data_leaf);
    }
    auto g = cs.ns("comm_r_last_data_inclusion");
    circuit::por_circuit(cs, p.tree_rc, v.comm_r_last_path, &encoded, &comm_r_last, true);
  }
  {
    AllocatedNum column_hash;
    {
      auto g = cs.ns("c_x_column_hash");
      column_hash = hash_single_column(cs, labels);
    }
    auto g = cs.ns("c_x_inclusion");
    circuit::por_circuit(cs, p.tree_rc, v.comm_c_path, &column_hash, &comm_c, true);
  }
}

}  // namespace stacked_detail

// What every challenge sub-circuit reads from the partition's prefix.
struct StackedSharedVars {
  circuit::AllocatedNum comm_d, comm_c, comm_r_last;
  std::vector<circuit::Boolean> replica_id_bits;
};

// StackedCircuit::synthesize up to the challenges: replica_id, comm_d, comm_r (inputs), comm_r_last,
// comm_c and comm_r = H(comm_c || comm_r_last).
template <class CS>
StackedSharedVars synthesize_stacked_prefix(CS& cs, const StackedCircuitParams& p, const StackedPartitionValues& v) {
  (void)p;
  using circuit::AllocatedNum;
  AllocatedNum replica_id, comm_d, comm_r, comm_r_last, comm_c;
  {
    auto g = cs.ns("replica_id");
    replica_id = circuit::alloc_num(cs, v.replica_id);
  }
  {
    auto g = cs.ns("replica_id_input");
    circuit::inputize(cs, replica_id);
  }
  std::vector<circuit::Boolean> replica_id_bits;
  {
    auto g = cs.ns("replica_id_bits");
    replica_id_bits = circuit::reverse_bit_numbering(circuit::to_bits_le(cs, replica_id));
  }
  {
    auto g = cs.ns("comm_d");
    comm_d = circuit::alloc_num(cs, v.comm_d);
  }
  {
    auto g = cs.ns("comm_d_input");
    circuit::inputize(cs, comm_d);
  }
  {
    auto g = cs.ns("comm_r");
    comm_r = circuit::alloc_num(cs, v.comm_r);
  }
  {
    auto g = cs.ns("comm_r_input");
    circuit::inputize(cs, comm_r);
  }
  {
    auto g = cs.ns("comm_r_last");
    comm_r_last = circuit::alloc_num(cs, v.comm_r_last);
  }
  {
    auto g = cs.ns("comm_c");
    comm_c = circuit::alloc_num(cs, v.comm_c);
  }
  {
    AllocatedNum hash;
    {
      auto g = cs.ns("H_comm_c_comm_r_last");
      const AllocatedNum pre[2] = {comm_c, comm_r_last};
      hash = circuit::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(pre, 2), circuit::poseidon_constants(2));
    }
    circuit::enforce_equal(cs, "enforce comm_r = H(comm_c || comm_r_last)", comm_r, hash);
  }
  return StackedSharedVars{comm_d, comm_c, comm_r_last, std::move(replica_id_bits)};
}

// Challenge i's sub-circuit ("challenge_i", Proof::synthesize). Every challenge has the same shape,
// which lets the shape recorder record them in parallel (porep::record_porep_shape).
template <class CS>
void synthesize_stacked_challenge(CS& cs, const StackedCircuitParams& p, const StackedPartitionValues& v,
                                  const StackedSharedVars& shared, std::size_t i) {
  auto g = cs.ns(circuit::Name("challenge", std::int64_t(i)));
  stacked_detail::challenge_proof(cs, p, v.challenges[i], shared.comm_d, shared.comm_c, shared.comm_r_last,
                                  shared.replica_id_bits);
}

// StackedCircuit::synthesize for one partition.
template <class CS>
void synthesize_stacked_circuit(CS& cs, const StackedCircuitParams& p, const StackedPartitionValues& v) {
  const StackedSharedVars shared = synthesize_stacked_prefix(cs, p, v);
  for (std::size_t i = 0; i < v.challenges.size(); ++i) synthesize_stacked_challenge(cs, p, v, shared, i);
}

}  // namespace cuzk::filecoin::porep
