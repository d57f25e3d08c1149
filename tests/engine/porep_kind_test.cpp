// PoRep C2 through the engine on the CPU backend with the shared TEST-ONLY 2 KiB parameters
// (CUZK_POREP_PARAMS_2K, ctest fixture porep_params_2k). One real proof for the whole file: a
// 2 KiB partition takes about a minute on 2 cores, so the cheap refusals share the engine (and the
// loaded key) with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "engine/kinds/builtin_kinds.hpp"
#include "engine/engine.hpp"
#include "engine/kinds/porep_kind.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/params.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/testkit/seal.hpp"
#include "filecoin/testkit/vanilla.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

namespace porep = filecoin::porep;
namespace testkit = filecoin::testkit;
using namespace std::chrono_literals;

constexpr std::uint32_t kPoRep = static_cast<std::uint32_t>(ProofKind::kPoRepC2);
const char* kProof = "StackedDrg2KiBV1_1";

std::string params_dir() {
  const char* env = std::getenv("CUZK_POREP_PARAMS_2K");
  return env && *env ? env : CUZK_POREP_PARAMS_2K;
}

// A sealed 2 KiB sector's C1 (milliseconds), as Curio sends it.
porep::C1Output sealed_c1(std::uint64_t n) {
  const auto& cfg = porep::porep_config_by_name(kProof);
  testkit::SealInputs in;
  in.prover_id = porep::prover_id_from_actor(1000);
  in.sector_id = n;
  in.ticket.fill(std::uint8_t(0x10 + n));
  in.ticket[31] = 0;
  in.seed.fill(std::uint8_t(0x40 + n));
  in.seed[31] = 0;
  in.data = testkit::random_unpadded_data(cfg, n);
  return testkit::seal_commit_phase1(cfg, in);
}

ProofRequest porep_request(const porep::C1Output& c1, const std::string& id, std::uint64_t sector) {
  ProofRequest r;
  r.request_id = id;
  r.proof_kind = kPoRep;
  r.sector_number = sector;
  r.miner_id = 1000;
  r.vanilla_proof = porep::write_curio_c1_json({std::int64_t(sector), 2048, c1});
  return r;
}

EngineOptions porep_options() {
  EngineOptions o;
  kinds::register_builtin_kinds(o.kinds);
  o.memory_budget_bytes = std::uint64_t(12) << 30;
  o.param_cache = params_dir();
  o.srs_min_idle = 0ms;
  o.workers_per_device = 1;
  return o;
}

TEST(PorepKind, ProvesA2KiBSectorRefusesBadC1sAndJoinsDuplicates) {
  Engine e(porep_options());
  const porep::C1Output c1 = sealed_c1(1);

  // Refusals before anything is loaded or proved: the vanilla checks name the failed check.
  {
    porep::C1Output bad = c1;
    bad.vanilla_proofs[0][0].c_x.rows[1][3] ^= 0x01;  // one label flipped
    JobResult r = e.prove(porep_request(bad, "porep-bad-label", 1));
    ASSERT_EQ(r.status, ResultStatus::kFailed) << r.error;
    EXPECT_EQ(r.error.rfind("porep-c2: vanilla_proof: ", 0), 0u) << r.error;
    EXPECT_NE(r.error.find("c_x"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    EXPECT_EQ(r.num_partitions, 0u) << "a refused C1 must not reach the partition pipeline";
    EXPECT_EQ(r.gpu_compute_ms, 0u);
  }
  {
    ProofRequest g;
    g.proof_kind = kPoRep;
    g.vanilla_proof = "garbage\x01\x02";
    JobResult r = e.prove(g);
    ASSERT_EQ(r.status, ResultStatus::kFailed);
    EXPECT_EQ(r.error.rfind("porep-c2: vanilla_proof: bincode: ", 0), 0u) << r.error;
    g.vanilla_proof = R"({"SectorNum":1,"Phase1Out":"!!!!","SectorSize":2048})";
    r = e.prove(g);
    ASSERT_EQ(r.status, ResultStatus::kFailed);
    EXPECT_NE(r.error.find("porep-c2: vanilla_proof: Curio wrapper JSON: "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("Phase1Out"), std::string::npos) << r.error;
    ProofRequest mismatch = porep_request(c1, "", 1);
    mismatch.sector_size = 8u << 20;
    r = e.prove(mismatch);
    ASSERT_EQ(r.status, ResultStatus::kFailed);
    EXPECT_NE(r.error.find("sector_size 8388608 disagrees with the C1's sector size 2048"), std::string::npos)
        << r.error;
  }
  for (const auto& info : e.srs().list()) EXPECT_NE(info.id, "porep-2k") << "no key is touched by a refused C1";

  // The real proof, with a duplicate submission that joins it (one run, one result).
  auto a = e.submit(porep_request(c1, "porep-1000-1", 1));
  ASSERT_TRUE(a) << a.error();
  auto b = e.submit(porep_request(c1, "porep-1000-1", 1));
  ASSERT_TRUE(b) << b.error();
  EXPECT_FALSE(a->joined);
  EXPECT_TRUE(b->joined);
  JobResult ra = e.wait(a->job), rb = e.wait(b->job);
  ASSERT_EQ(ra.status, ResultStatus::kCompleted) << ra.error;
  EXPECT_EQ(rb.proof, ra.proof);
  ASSERT_EQ(ra.proof.size(), 192u);
  EXPECT_EQ(ra.num_partitions, 1u);
  EXPECT_GT(ra.synthesis_ms, 0u);

  // Accepted by the PoRep family's verifier (porep::verify_porep) with the .vk file (not the key the
  // engine loaded).
  const auto& cfg = porep::porep_config_by_name(kProof);
  auto vk = porep::load_porep_vk(cfg, params_dir());
  ASSERT_TRUE(vk) << vk.error();
  const porep::SectorPublic sector{c1.replica_id, c1.comm_d, c1.comm_r, c1.seed};
  auto ok = porep::verify_porep(cfg, sector, *vk,
                                std::span(reinterpret_cast<const std::uint8_t*>(ra.proof.data()), ra.proof.size()));
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_TRUE(*ok);
  // ... and bound to its sector: another sector's public inputs reject it.
  const porep::C1Output other = sealed_c1(2);
  auto wrong = porep::verify_porep(cfg, {other.replica_id, other.comm_d, other.comm_r, other.seed}, *vk,
                                   std::span(reinterpret_cast<const std::uint8_t*>(ra.proof.data()), ra.proof.size()));
  ASSERT_TRUE(wrong) << wrong.error();
  EXPECT_FALSE(*wrong);

  // The key is resident as a full proving key, charged to the budget, and released by the job (the
  // engine drops the job's lease just after publishing the result, hence the bounded wait).
  auto porep_key = [&]() -> std::optional<SrsInfo> {
    for (const auto& info : e.srs().list())
      if (info.id == "porep-2k") return info;
    return std::nullopt;
  };
  ASSERT_TRUE(porep_key());
  EXPECT_EQ(porep_key()->tier, SrsTier::kHost);
  EXPECT_GT(porep_key()->bytes, std::uint64_t(1) << 29);
  EXPECT_TRUE(test::eventually([&] { return porep_key()->refs == 0; })) << porep_key()->refs << " references left";
  auto st = e.status();
  EXPECT_EQ(st.completed, 1u);
  ASSERT_EQ(st.sizing.count("porep-c2/porep-2k"), 1u);
  const auto sizing = st.sizing["porep-c2/porep-2k"];
  EXPECT_GT(sizing.model_bytes, std::uint64_t(256) << 20);
  // The numbers PorepJob::partition_memory's model comment (filecoin/porep/porep_job.cpp) quotes (peak
  // RSS growth of the solo partition).
  std::printf("porep-2k partition on the cpu backend: model %llu bytes, measured %llu bytes (%llu samples)\n",
              (unsigned long long)sizing.model_bytes, (unsigned long long)sizing.measured_bytes,
              (unsigned long long)sizing.samples);

  // The reservation model: the compact witness (its size from count_porep_witness) plus, on the CPU
  // backend, the dense assignment and the prover's buffers; on the CUDA backend only the witness is
  // on the host, so a partition in flight reserves a small fraction.
  const auto counts = porep::count_porep_witness(cfg);
  const std::uint64_t compact = counts.compact_bytes();
  EXPECT_LT(compact, std::uint64_t(4) << 20);  // 2.7M variables, 98 % bits
  const std::uint64_t n = counts.inputs + counts.aux, m = std::uint64_t(1) << 22, fr = 32, slack = 32u << 20;
  const std::uint64_t cpu_model =
      std::max(3 * compact, compact + n * fr + 4 * m * fr + 2 * n * fr + (8u << 20)) + slack;
  const std::uint64_t cuda_model = std::max(3 * compact, compact + (8u << 20)) + slack;
  auto kind = kinds::make_porep_c2_kind();
  auto req = std::make_shared<const ProofRequest>(porep_request(c1, "", 1));
  for (const char* backend : {"cpu", "cuda"}) {
    PrepareContext ctx{e.srs(), CancelToken(), 0, true,
                       std::string(backend) == "cuda" ? MemoryModel::kDevice : MemoryModel::kHost};
    auto prepared = kind->prepare(req, ctx);
    ASSERT_TRUE(prepared) << prepared.error();
    const PartitionMemory mem = (*prepared)->partition_memory(0);
    EXPECT_EQ(mem.full, std::string(backend) == "cuda" ? cuda_model : cpu_model) << backend;
    EXPECT_EQ(mem.after_start, 64u << 10);
    std::printf("porep-2k partition model, %s backend: %llu bytes (compact witness %llu bytes)\n", backend,
                (unsigned long long)mem.full, (unsigned long long)compact);
  }
}

}  // namespace
}  // namespace cuzk::engine
