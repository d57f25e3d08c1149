// A gadget circuit recorded by the shape recorder, set up with the test setup, proved with the
// witness builder's assignment, verifies; a wrong public input does not.
#include <gtest/gtest.h>

#include "circuit/gadgets/por.hpp"
#include "circuit/gadgets/uint64.hpp"
#include "circuit/shape_io.hpp"
#include "circuit_test_util.hpp"
#include "groth16/prover.hpp"
#include "groth16/test_setup.hpp"
#include "groth16/verifier.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

TEST(Groth16EndToEnd, RecordedPorCircuitProvesAndVerifies) {
  test::Rng rng(31);
  // Poseidon binary tree with 4 leaves, public root; plus a UInt64 packed input and a SHA-free mix.
  TreeShape shape{TreeHash::kPoseidon, 2, 2, 0, 0};
  std::vector<Fr> leaves = {rng.fr(), rng.fr(), rng.fr(), rng.fr()};
  NativeMerkleTree tree(shape, leaves);
  auto make_circuit = [&](std::size_t challenge) {
    return [&, challenge](auto& cs) {
      auto proof = tree.proof(challenge);
      auto g = cs.ns("por");
      por_circuit(cs, shape, proof, nullptr, nullptr, /*private_root=*/false);
      auto c = uint64_alloc(cs, challenge);
      uint64_pack_into_input(cs, c);
    };
  };
  // The shape is recorded once (from blank-ish values) and saved/loaded like a circuit family.
  auto rec = record_shape(make_circuit(0));
  auto bytes = serialize_shape(rec.shape);
  auto shape_back = deserialize_shape(bytes);
  ASSERT_TRUE(shape_back.ok()) << shape_back.error();
  auto pk = groth16::generate_test_key(*shape_back, groth16::HBasis::kMonomialOverZ, groth16::ToxicWaste::from_seed(4));
  ASSERT_TRUE(pk.ok()) << pk.error();

  for (std::size_t challenge : {1u, 2u}) {
    Witness wit = build_witness(make_circuit(challenge));
    auto w = wit.assignment();
    ASSERT_EQ(w.size(), shape_back->num_variables());
    ASSERT_FALSE(groth16::first_unsatisfied_row(*shape_back, w).has_value());
    auto pending = groth16::make_cpu_backend()->start(*shape_back, w, *pk);
    ASSERT_TRUE(pending.ok()) << pending.error();
    auto proof = groth16::finish(*pending, *pk, groth16::ProofRandomness::random());
    std::vector<Fr> inputs(w.begin() + 1, w.begin() + shape_back->num_inputs);
    // inputs: path (= challenge), root, challenge again (UInt64)
    ASSERT_EQ(inputs.size(), 3u);
    EXPECT_EQ(inputs[0], Fr::from_u64(challenge));
    EXPECT_EQ(inputs[1], tree.root());
    EXPECT_EQ(inputs[2], Fr::from_u64(challenge));
    auto ok = groth16::verify(pk->vk, inputs, proof);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_TRUE(*ok);
    auto bad = inputs;
    bad[1] += Fr::one();
    EXPECT_FALSE(*groth16::verify(pk->vk, bad, proof));
  }
}

}  // namespace
