// A consistent assignment for the 2 KiB StackedCircuit (native labels, tree D/R/C, comm_r) satisfies
// every row, and changing one private value breaks it: checks that the synthesis wires values the
// way the vanilla proof computes them (labels from 37 expanded parents, expander parents from the
// previous layer, encoding, column hashes, comm_r = H(comm_c, comm_r_last)).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "circuit/merkle.hpp"
#include "circuit/poseidon.hpp"
#include "circuit/sha256_native.hpp"
#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::filecoin::porep {
namespace {

using circuit::Fr;

// sha254(replica_id ‖ layer BE32 ‖ node BE64 ‖ 0^20 ‖ 37 parents), parents as 32 LE bytes.
Fr native_label(const Fr& replica_id, std::uint32_t layer, std::uint64_t node, const std::vector<Fr>& parents) {
  auto rid = circuit::fr_to_le_bytes(replica_id);
  std::vector<std::uint8_t> pre(rid.begin(), rid.end());
  for (int i = 3; i >= 0; --i) pre.push_back(std::uint8_t(layer >> (8 * i)));
  for (int i = 7; i >= 0; --i) pre.push_back(std::uint8_t(node >> (8 * i)));
  pre.resize(64, 0);
  for (const Fr& p : parents) {
    auto b = circuit::fr_to_le_bytes(p);
    pre.insert(pre.end(), b.begin(), b.end());
  }
  return circuit::fr_from_le_bytes(circuit::sha254(pre));
}

struct Consistent {
  StackedCircuitParams params;
  StackedPartitionValues values;
};

Consistent make_consistent_2kib() {
  Consistent out;
  auto& p = out.params;
  p = StackedCircuitParams::from_config(porep_config_by_name("StackedDrg2KiBV1_1"));
  // Start from the dummy shape (parent choices), then make every value consistent.
  auto& v = out.values;
  v = dummy_partition_values(p);
  const std::size_t nodes = p.tree_d.num_leaves();
  v.replica_id = circuit::fr_from_le_bytes(circuit::sha254(std::vector<std::uint8_t>{1, 2, 3}));
  std::vector<Fr> data(nodes);
  std::vector<std::vector<Fr>> columns(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    data[n] = Fr::from_u64(0x1000 + n * 77);
    for (std::size_t l = 0; l < p.layers; ++l) columns[n].push_back(Fr::from_u64(0x5000 + n * 131 + l * 7));
  }
  auto parent_nodes = [&](const ChallengeValues& ch, std::vector<std::size_t>& drg, std::vector<std::size_t>& exp) {
    drg.clear();
    exp.clear();
    for (std::size_t k = 0; k < kDrgParents; ++k) drg.push_back((ch.challenge + k + 1) % nodes);
    for (std::size_t k = 0; k < kExpanderParents; ++k) exp.push_back((ch.challenge * 3 + k + 2) % nodes);
  };
  // The challenged column holds the labels computed from its parents; iterate so that a challenged
  // node that is also another challenge's parent is consistent.
  for (int pass = 0; pass < 4; ++pass) {
    for (const auto& ch : v.challenges) {
      std::vector<std::size_t> drg, exp;
      parent_nodes(ch, drg, exp);
      std::vector<Fr> labels;
      for (std::size_t layer = 1; layer <= p.layers; ++layer) {
        std::vector<Fr> parents;
        for (auto n : drg) parents.push_back(columns[n][layer - 1]);
        if (layer > 1)
          for (auto n : exp) parents.push_back(columns[n][layer - 2]);  // previous layer
        std::vector<Fr> expanded = parents;
        if (layer > 1) {
          expanded.insert(expanded.end(), parents.begin(), parents.end());
          expanded.insert(expanded.end(), parents.begin(), parents.begin() + 9);
        } else {
          for (int k = 0; k < 5; ++k) expanded.insert(expanded.end(), parents.begin(), parents.end());
          expanded.push_back(parents[0]);
        }
        labels.push_back(native_label(v.replica_id, std::uint32_t(layer), ch.challenge, expanded));
      }
      columns[ch.challenge] = labels;
    }
  }
  std::vector<Fr> c_leaves(nodes), r_leaves(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    c_leaves[n] = circuit::poseidon_hash(circuit::poseidon_constants(p.layers), columns[n]);
    r_leaves[n] = columns[n].back() + data[n];  // encode: label_L + data
  }
  circuit::NativeMerkleTree tree_d(p.tree_d, data), tree_c(p.tree_rc, c_leaves), tree_r(p.tree_rc, r_leaves);
  v.comm_d = tree_d.root();
  v.comm_c = tree_c.root();
  v.comm_r_last = tree_r.root();
  const Fr pair[2] = {v.comm_c, v.comm_r_last};
  v.comm_r = circuit::poseidon_hash(circuit::poseidon_constants(2), pair);
  for (auto& ch : v.challenges) {
    std::vector<std::size_t> drg, exp;
    parent_nodes(ch, drg, exp);
    ch.data_leaf = data[ch.challenge];
    ch.comm_d_path = tree_d.proof(ch.challenge);
    for (std::size_t k = 0; k < kDrgParents; ++k) ch.drg_parents[k] = {columns[drg[k]], tree_c.proof(drg[k])};
    for (std::size_t k = 0; k < kExpanderParents; ++k) ch.exp_parents[k] = {columns[exp[k]], tree_c.proof(exp[k])};
    ch.comm_r_last_path = tree_r.proof(ch.challenge);
    ch.comm_c_path = tree_c.proof(ch.challenge);
  }
  return out;
}

TEST(StackedCircuitWitness, Consistent2KiBAssignmentSatisfiesEveryRow) {
  auto c = make_consistent_2kib();
  circuit::CheckingCS chk;
  synthesize_stacked_circuit(chk, c.params, c.values);
  EXPECT_TRUE(chk.is_satisfied()) << (chk.first_failure() ? chk.first_failure()->name : std::string());
  EXPECT_EQ(chk.num_constraints(), 2687921u);
}

TEST(StackedCircuitWitness, TamperedValuesAreRejected) {
  {
    auto c = make_consistent_2kib();
    c.values.challenges[1].exp_parents[3].rows[0] += Fr::one();  // a parent label (tree C breaks)
    circuit::CheckingCS chk;
    synthesize_stacked_circuit(chk, c.params, c.values);
    EXPECT_FALSE(chk.is_satisfied());
  }
  {
    auto c = make_consistent_2kib();
    c.values.challenges[0].data_leaf += Fr::one();  // tree D breaks
    circuit::CheckingCS chk;
    synthesize_stacked_circuit(chk, c.params, c.values);
    EXPECT_FALSE(chk.is_satisfied());
  }
  {
    auto c = make_consistent_2kib();
    c.values.comm_r += Fr::one();
    circuit::CheckingCS chk;
    synthesize_stacked_circuit(chk, c.params, c.values);
    ASSERT_FALSE(chk.is_satisfied());
    EXPECT_NE(chk.first_failure()->name.find("comm_r"), std::string::npos) << chk.first_failure()->name;
  }
}

}  // namespace
}  // namespace cuzk::filecoin::porep
