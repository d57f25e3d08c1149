// The witness synthesized from a sealed sector's C1 satisfies the recorded partition shape, and the
// public inputs it computes are exactly those derived from the commitments and the graph; a C1 that
// skips the vanilla checks with a corrupted sibling yields a witness that does not satisfy.
#include <gtest/gtest.h>

#include "sealed_test_util.hpp"
#include "circuit/constraint_system.hpp"
#include "filecoin/porep/c1_values.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/porep/graph.hpp"

namespace cuzk::filecoin::porep {
namespace {

std::vector<math::Fr> witness_for(const porep::C1Output& c1, const porep::PorepConfig& cfg, std::size_t partition) {
  auto values = partition_values(c1, cfg, partition);
  EXPECT_TRUE(values.ok()) << values.error();
  const auto params = porep::StackedCircuitParams::from_config(cfg);
  return circuit::build_witness([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, *values); }).assignment();
}

TEST(PorepWitness, SealedSectorsSatisfyTheShapeWithDerivedInputs) {
  const auto& v11 = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  const groth16::R1csShape shape = record_porep_shape(v11);
  ASSERT_EQ(shape.num_constraints(), 2687921u + 40u);  // published circuit rows + bellperson's input rows
  ASSERT_EQ(shape.num_inputs, 40u);

  struct Case {
    const char* proof;
    std::size_t partition;
  };
  for (const Case& k :
       {Case{"StackedDrg2KiBV1_1", 0}, Case{"StackedDrg2KiBV1", 0}, Case{"StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 0},
        Case{"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 7}}) {
    SCOPED_TRACE(k.proof);
    const auto& cfg = porep::porep_config_by_name(k.proof);
    const auto c1 = test::sealed_c1(k.proof, 9);
    const auto w = witness_for(c1, cfg, k.partition);
    ASSERT_EQ(w.size(), shape.num_variables());
    EXPECT_FALSE(groth16::first_unsatisfied_row(shape, w).has_value());
    porep::Graph graph(cfg);
    const auto inputs =
        partition_public_inputs(cfg, graph, {c1.replica_id, c1.comm_d, c1.comm_r, c1.seed}, k.partition);
    ASSERT_EQ(inputs.size(), 39u);
    for (std::size_t j = 0; j < inputs.size(); ++j) EXPECT_EQ(w[1 + j], inputs[j]) << "input " << j;
    // Spot-check the layout of §4.2: the first challenge appears as tree-D path, UInt64, tree R, tree C.
    const math::Fr c0 = inputs[3];
    EXPECT_EQ(inputs[3 + 15], c0);
    EXPECT_EQ(inputs[3 + 16], c0);
    EXPECT_EQ(inputs[3 + 17], c0);
  }
}

// synthesize_porep_partition hands the prover the compact form (binary aux as bits): the same
// assignment as the dense one, a fraction of its bytes, counts equal to count_porep_witness (which
// sizes the engine's reservations), and public inputs still checked against the derived ones.
TEST(PorepWitness, SynthesizedPartitionIsCompactAndChecksInputs) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  const groth16::R1csShape shape = record_porep_shape(cfg);
  const auto c1 = test::sealed_c1("StackedDrg2KiBV1_1", 9);
  porep::Graph graph(cfg);
  const auto inputs = partition_public_inputs(cfg, graph, {c1.replica_id, c1.comm_d, c1.comm_r, c1.seed}, 0);
  auto w = synthesize_porep_partition(c1, cfg, 0, shape, inputs);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_TRUE(w->check().ok());
  EXPECT_EQ(w->num_variables(), shape.num_variables());
  EXPECT_EQ(w->assignment(), witness_for(c1, cfg, 0));
  const auto counts = count_porep_witness(cfg);
  EXPECT_EQ(counts.inputs, shape.num_inputs);
  EXPECT_EQ(counts.aux, shape.num_aux);
  EXPECT_EQ(counts.binary_aux, w->num_binary());
  EXPECT_EQ(counts.compact_bytes(), w->payload_bytes());
  EXPECT_GT(double(w->num_binary()), 0.95 * double(w->num_aux));  // SHA-256 bits dominate
  EXPECT_LT(w->payload_bytes() * 8, shape.num_variables() * sizeof(math::Fr));

  auto wrong = inputs;
  wrong[5] += math::Fr::one();
  auto refused = synthesize_porep_partition(c1, cfg, 0, shape, wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), "public input 5 of the witness differs from the derived one");
}

TEST(PorepWitness, UncheckedCorruptionDoesNotSatisfy) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  const groth16::R1csShape shape = record_porep_shape(cfg);
  auto c1 = test::sealed_c1("StackedDrg2KiBV1_1", 4);
  c1.vanilla_proofs[0][1].comm_r_last_proof.base[1].hashes[2][0] ^= 1;
  const auto w = witness_for(c1, cfg, 0);
  EXPECT_TRUE(groth16::first_unsatisfied_row(shape, w).has_value());
}

}  // namespace
}  // namespace cuzk::filecoin::porep
