// PorepJob end to end on the CPU with the shared TEST-ONLY 2 KiB parameters (fixture.porep_params_2k):
// prepare -> check_key -> filecoin::prove_job (synthesize + prove + self-verify) -> verify true, and verify
// false (naming the partition) for a proof that belongs to another sector.
#include <gtest/gtest.h>

#include <cstdlib>

#include "filecoin/porep/params.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/shape.hpp"
#include "sealed_test_util.hpp"

namespace cuzk::filecoin::porep {
namespace {

std::string params_dir() {
  const char* env = std::getenv("CUZK_POREP_PARAMS_2K");
  return env && *env ? env : CUZK_POREP_PARAMS_2K;
}

TEST(PorepJobProve, CpuProofsVerifyAndAreBoundToTheirSector) {
  const auto& cfg = porep_config_by_name("StackedDrg2KiBV1_1");
  auto job = PorepJob::prepare(test::sealed_c1("StackedDrg2KiBV1_1", 6));
  ASSERT_TRUE(job) << job.error();
  auto paths = porep_param_paths(cfg, params_dir());
  ASSERT_TRUE(paths) << paths.error();
  const auto shape = load_or_record_porep_shape(cfg, filecoin::shape_cache_path(paths->params)).shape;
  ASSERT_TRUE(job->check_key(shape)) << job->check_key(shape).error();
  auto key = load_porep_proving_key(cfg, params_dir(), shape);
  ASSERT_TRUE(key) << key.error();
  auto backend = groth16::make_cpu_backend();
  std::size_t reported = 0;
  filecoin::PartitionProveOptions opt;
  opt.on_partition = [&](std::size_t, const filecoin::PartitionTiming& t) {
    ++reported;
    EXPECT_GT(t.prove_ms, 0);
  };
  auto proofs = filecoin::prove_job(*job, shape, *key, *backend, opt);
  ASSERT_TRUE(proofs) << proofs.error();
  ASSERT_EQ(proofs->size(), job->partitions());
  EXPECT_EQ(reported, job->partitions());

  auto vk = load_porep_vk(cfg, params_dir());
  ASSERT_TRUE(vk) << vk.error();
  auto ok = job->verify(*vk, *proofs);
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_TRUE(*ok);

  // Another sector's job rejects these proofs, naming partition 0.
  auto other = PorepJob::prepare(test::sealed_c1("StackedDrg2KiBV1_1", 7));
  ASSERT_TRUE(other) << other.error();
  std::size_t failed = 99;
  auto wrong = other->verify(*vk, *proofs, &failed);
  ASSERT_TRUE(wrong) << wrong.error();
  EXPECT_FALSE(*wrong);
  EXPECT_EQ(failed, 0u);
}

}  // namespace
}  // namespace cuzk::filecoin::porep
