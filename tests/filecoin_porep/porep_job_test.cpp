// PorepJob, the one PoRep C2 orchestration the CLI and the daemon drive: prepare refuses a tampered
// C1 naming the check, touches no key, and derives exactly partition_public_inputs per partition.
#include <gtest/gtest.h>

#include <algorithm>

#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/shape.hpp"
#include "sealed_test_util.hpp"

namespace cuzk::filecoin::porep {
namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(PorepJob, PrepareDerivesThePublicInputsOfEveryPartition) {
  for (const char* name : {"StackedDrg2KiBV1_1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    SCOPED_TRACE(name);
    const auto& cfg = porep_config_by_name(name);
    const C1Output c1 = test::sealed_c1(name, 3);
    auto job = PorepJob::prepare(c1);
    ASSERT_TRUE(job) << job.error();
    EXPECT_EQ(&job->config(), &cfg);
    EXPECT_EQ(job->partitions(), cfg.partitions);
    EXPECT_EQ(job->sector_size(), cfg.sector_size);
    const Graph graph(cfg);
    for (std::uint32_t k = 0; k < job->partitions(); ++k) {
      const auto expected = partition_public_inputs(cfg, graph, {c1.replica_id, c1.comm_d, c1.comm_r, c1.seed}, k);
      const auto got = job->public_inputs(k);
      EXPECT_EQ(std::vector<math::Fr>(got.begin(), got.end()), expected) << "partition " << k;
    }
  }
}

TEST(PorepJob, PrepareFromBytesChecksTheSectorSize) {
  const C1Output c1 = test::sealed_c1("StackedDrg2KiBV1_1", 3);
  const std::string json = write_c1_json(c1);
  auto ok = PorepJob::prepare(as_bytes(json), 2048);
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(ok->partitions(), 1u);
  auto wrong = PorepJob::prepare(as_bytes(json), 8u << 20);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error(), "sector_size 8388608 disagrees with the C1's sector size 2048");
  auto garbage = PorepJob::prepare(as_bytes("{\"registered_proof\":"), 0);
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().rfind("C1 JSON: ", 0), 0u) << garbage.error();
}

TEST(PorepJob, PrepareRefusesATamperedC1NamingTheCheck) {
  C1Output c1 = test::sealed_c1("StackedDrg2KiBV1_1", 5);
  c1.vanilla_proofs[0][1].drg_parents[2].rows[0][3] ^= 1;
  auto r = PorepJob::prepare(c1);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("drg_parents[2]"), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
  c1 = test::sealed_c1("StackedDrg2KiBV1_1", 5);
  c1.registered_proof = "StackedDrg3KiBV1_1";
  r = PorepJob::prepare(c1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().rfind("registered_proof: ", 0), 0u) << r.error();
}

TEST(PorepJob, PrepareHonoursCancellation) {
  auto r = PorepJob::prepare(test::sealed_c1("StackedDrg2KiBV1_1", 5), [] { return true; });
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "cancelled");
}

TEST(PorepJob, CheckKeyNamesTheCountThatDiffers) {
  const auto& cfg = porep_config_by_name("StackedDrg2KiBV1_1");
  auto job = PorepJob::prepare(test::sealed_c1("StackedDrg2KiBV1_1", 5));
  ASSERT_TRUE(job) << job.error();
  groth16::R1csShape shape = record_porep_shape(cfg);
  EXPECT_TRUE(job->check_key(shape)) << job->check_key(shape).error();
  groth16::R1csShape fewer_inputs = shape;
  fewer_inputs.num_inputs -= 1;
  auto a = job->check_key(fewer_inputs);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error(), "StackedDrg2KiBV1_1 has 39 public inputs per partition but the key has 38");
  groth16::R1csShape more_aux = shape;
  more_aux.num_aux += 1;
  auto b = job->check_key(more_aux);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().find("aux variables but the key has"), std::string::npos) << b.error();
}

TEST(PorepJob, SynthesizeGivesTheCompactWitnessWithTheDerivedInputs) {
  const auto& cfg = porep_config_by_name("StackedDrg2KiBV1_1");
  auto job = PorepJob::prepare(test::sealed_c1("StackedDrg2KiBV1_1", 9));
  ASSERT_TRUE(job) << job.error();
  const groth16::R1csShape shape = record_porep_shape(cfg);
  auto w = job->synthesize(0, shape);
  ASSERT_TRUE(w) << w.error();
  const auto inputs = job->public_inputs(0);
  for (std::size_t j = 0; j < inputs.size(); ++j) EXPECT_EQ(w->inputs[1 + j], inputs[j]) << "input " << j;
  EXPECT_FALSE(groth16::first_unsatisfied_row(shape, w->assignment()).has_value());
  EXPECT_FALSE(job->synthesize(1, shape));
  // The memory model: the device backend holds only the witness on the host.
  const auto cpu = job->partition_memory(shape, shape.domain_log2(), false);
  const auto cuda = job->partition_memory(shape, shape.domain_log2(), true);
  EXPECT_GT(cpu.full, cuda.full);
  const std::uint64_t compact = count_porep_witness(cfg).compact_bytes();
  EXPECT_EQ(cuda.full, std::max<std::uint64_t>(3 * compact, compact + (8u << 20)) + (32u << 20));
  EXPECT_EQ(cuda.full, 44'017'536u);  // the 44 MB of the model's comment
  EXPECT_EQ(cpu.after_start, 64u << 10);
}

}  // namespace
}  // namespace cuzk::filecoin::porep
