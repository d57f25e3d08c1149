// SDR label circuit: the rust-fil-proofs test shape (532,025 rows) and the PoRep-context cost of
// the constraint model, values equal to the native SDR label.
#include <gtest/gtest.h>

#include "circuit/gadgets/create_label.hpp"
#include "circuit_test_util.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

TEST(CreateLabel, TestShapeIs532025RowsAndMatchesNativeLabel) {
  // rust-fil-proofs create_label.rs test_create_label: id and 37 parents allocated (256 BE bits each),
  // layer and node constants.
  test::Rng rng(41);
  std::vector<std::uint8_t> id(32), parents_bytes(37 * 32);
  for (auto& b : id) b = std::uint8_t(rng.next());
  for (auto& b : parents_bytes) b = std::uint8_t(rng.next());
  id[31] &= 0x3f;
  const std::uint32_t layer = 3;
  const std::uint64_t node = 22;
  AllocatedNum out;
  auto circuit = [&](auto& cs) {
    std::vector<std::vector<Boolean>> parents;
    for (std::size_t i = 0; i < 37; ++i) {
      auto g = cs.ns(Name("parents", std::int64_t(i)));
      parents.push_back(bytes_into_boolean_vec_be(cs, std::span(parents_bytes).subspan(32 * i, 32)));
    }
    std::vector<Boolean> id_bits;
    {
      auto g = cs.ns("id");
      id_bits = bytes_into_boolean_vec_be(cs, id);
    }
    auto g = cs.ns("create_label");
    out = create_label_circuit(cs, id_bits, parents, UInt32::constant(layer), UInt64::constant(node));
  };
  CountingCS count;
  circuit(count);
  EXPECT_EQ(count.num_constraints(), 532025u);
  CheckingCS chk;
  circuit(chk);
  EXPECT_TRUE(chk.is_satisfied());
  // Native SDR label: sha254(id ‖ layer BE32 ‖ node BE64 ‖ 0^20 ‖ parents).
  std::vector<std::uint8_t> pre(id.begin(), id.end());
  for (int i = 3; i >= 0; --i) pre.push_back(std::uint8_t(layer >> (8 * i)));
  for (int i = 7; i >= 0; --i) pre.push_back(std::uint8_t(node >> (8 * i)));
  pre.resize(64, 0);
  pre.insert(pre.end(), parents_bytes.begin(), parents_bytes.end());
  EXPECT_EQ(out.value, fr_from_le_bytes(sha254(pre)));
  WitnessBuilder wb;
  circuit(wb);
  EXPECT_EQ(out.value, fr_from_le_bytes(sha254(pre)));
  Witness w = std::move(wb).finish();
  EXPECT_EQ(w.num_aux, chk.num_aux());
  EXPECT_EQ(w.aux_assignment(), chk.aux_values());
}

}  // namespace

namespace {

TEST(CreateLabel, PorepContextCostMatchesConstraintModel) {
  // In StackedCircuit the preimage comes from to_bits_le (255 bits + constant pad per value), the
  // challenge is an allocated UInt64 and the layer a constant: filecoin-formats §4.6 models this
  // as 522,268 rows per label + 1 packing row (solved from the stacked_circuit.rs assertions).
  CountingCS cs;
  auto rid_bits = reverse_bit_numbering(to_bits_le(cs, alloc_num(cs, Fr::from_u64(12345))));
  std::vector<std::vector<Boolean>> six, parents;
  for (int i = 0; i < 6; ++i)
    six.push_back(reverse_bit_numbering(to_bits_le(cs, alloc_num(cs, Fr::from_u64(777 + std::uint64_t(i))))));
  for (int k = 0; k < 6; ++k) parents.insert(parents.end(), six.begin(), six.end());
  parents.push_back(six[0]);  // layer 1: 6·6 + 1
  UInt64 challenge = uint64_alloc(cs, 22);
  for (std::uint32_t layer : {1u, 7u}) {
    auto before = cs.num_constraints();
    create_label_circuit(cs, rid_bits, parents, UInt32::constant(layer), challenge);
    EXPECT_EQ(cs.num_constraints() - before, 522268u + 1) << layer;
  }
}

}  // namespace
