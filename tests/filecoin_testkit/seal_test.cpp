// Sealing and commit phase 1 end to end: a 2 KiB sector of every variant (V1, V1_1, synthetic,
// non-interactive) and an 8 MiB sector produce C1 outputs that pass the vanilla checks (porep::check_c1),
// and the sealed sector agrees with the inputs (replica_id, fr32 data, replica = label_L + data).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "circuit/poseidon.hpp"
#include "filecoin/testkit/fr32.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/testkit/seal.hpp"
#include "filecoin/testkit/vanilla.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "../filecoin_porep/test_util.hpp"

namespace cuzk::filecoin::testkit {
using namespace porep;
namespace {

// "" when the C1 passes the vanilla checks (porep::check_c1), else the one-line error.
std::string vanilla_error(const porep::PorepConfig& cfg, const porep::C1Output& c1) {
  auto st = porep::check_c1(c1, cfg);
  return st.ok() ? std::string() : st.error();
}

SealInputs inputs_for(const porep::PorepConfig& cfg, std::uint64_t rng_seed) {
  SealInputs in;
  in.prover_id = prover_id_from_actor(1000);
  in.sector_id = 7;
  in.ticket = test::filled(0x11);
  in.ticket[31] = 0;
  in.seed = test::filled(0x22);
  in.data = random_unpadded_data(cfg, rng_seed);
  return in;
}

void check_sector(const porep::PorepConfig& cfg, const SealInputs& in, const SealedSector& s) {
  EXPECT_EQ(s.replica_id, replica_id(in.prover_id, in.sector_id, in.ticket, s.comm_d, porep_id(cfg)));
  EXPECT_EQ(fr32_unpad(s.data()), in.data);
  const Fr pair[2] = {s.tree_c.root(), s.tree_r.root()};
  EXPECT_EQ(s.comm_r, fr_to_bytes(circuit::poseidon_hash(circuit::poseidon_constants(2), pair)));
  const auto replica = s.replica_bytes();
  ASSERT_EQ(replica.size(), cfg.sector_size);
  for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), cfg.nodes - 1}) {
    Bytes32 r;
    std::copy_n(replica.begin() + std::ptrdiff_t(32 * n), 32, r.begin());
    EXPECT_EQ(r, fr_to_bytes(fr_from_bytes(s.label(cfg.layers, n)) + fr_from_bytes(s.data()[n])));
  }
}

class SdrSeal2KiB : public ::testing::TestWithParam<const char*> {};

TEST_P(SdrSeal2KiB, C1PassesVanillaChecks) {
  const auto& cfg = porep::porep_config_by_name(GetParam());
  const SealInputs in = inputs_for(cfg, 1);
  const SealedSector s = seal(cfg, in);
  check_sector(cfg, in, s);
  const porep::C1Output c1 = commit_phase1(s, in.seed);
  EXPECT_EQ(c1.registered_proof, cfg.name);
  EXPECT_EQ(c1.vanilla_key, "StackedDrg2KiBV1");
  EXPECT_EQ(c1.comm_d, s.comm_d);
  EXPECT_EQ(c1.comm_r, s.comm_r);
  EXPECT_EQ(c1.replica_id, s.replica_id);
  EXPECT_EQ(c1.seed, in.seed);
  EXPECT_EQ(c1.ticket, in.ticket);
  ASSERT_EQ(c1.vanilla_proofs.size(), cfg.partitions);
  for (const auto& part : c1.vanilla_proofs) {
    ASSERT_EQ(part.size(), 2u);
    for (const auto& p : part) {
      EXPECT_EQ(p.comm_d_proofs.base.size(), 6u);
      EXPECT_EQ(p.comm_r_last_proof.base.size(), 2u);
      EXPECT_EQ(p.comm_r_last_proof.base[0].hashes.size(), 7u);
      EXPECT_EQ(p.c_x.inclusion_proof.root, s.comm_c);
      EXPECT_EQ(p.comm_r_last_proof.root, s.comm_r_last);
      EXPECT_EQ(p.labeling_proofs.size(), 2u);
      EXPECT_EQ(p.encoding_proof.layer_index, 2u);
    }
  }
  EXPECT_EQ(vanilla_error(cfg, c1), "");
}

INSTANTIATE_TEST_SUITE_P(Variants, SdrSeal2KiB,
                         ::testing::Values("StackedDrg2KiBV1", "StackedDrg2KiBV1_1",
                                           "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                                           "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"));

TEST(SdrSeal, ZeroSector2KiBHasTheZeroCommD) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  SealInputs in;  // no data: zero-filled
  const SealedSector s = seal(cfg, in);
  EXPECT_EQ(bytes32_hex(s.comm_d), "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
  EXPECT_THROW(seal(cfg, SealInputs{.data = std::vector<std::uint8_t>(2033)}), std::invalid_argument);
}

TEST(SdrSeal, VerifierRejectsTampering) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  const SealInputs in = inputs_for(cfg, 2);
  const porep::C1Output good = seal_commit_phase1(cfg, in);
  ASSERT_EQ(vanilla_error(cfg, good), "");
  auto expect_bad = [&](auto mutate, const char* needle) {
    porep::C1Output bad = good;
    mutate(bad);
    const std::string err = vanilla_error(cfg, bad);
    EXPECT_NE(err.find(needle), std::string::npos) << "got: " << err;
  };
  expect_bad([](porep::C1Output& c) { c.seed[0] ^= 1; }, "challenge");
  expect_bad([](porep::C1Output& c) { c.vanilla_proofs[0][1].labeling_proofs[1].parents[20][0] ^= 1; },
             "labeling_proofs[1]");
  expect_bad([](porep::C1Output& c) { c.vanilla_proofs[0][0].exp_parents[3].rows[0][0] ^= 1; }, "exp_parents[3]");
  expect_bad([](porep::C1Output& c) { c.vanilla_proofs[0][0].comm_d_proofs.base[2].hashes[0][0] ^= 1; }, "comm_d");
  expect_bad([](porep::C1Output& c) { c.vanilla_proofs[0][0].comm_r_last_proof.base[1].hashes[6][0] ^= 1; },
             "comm_r_last");
  expect_bad([](porep::C1Output& c) { c.vanilla_proofs[0][0].encoding_proof.node ^= 1; }, "encoding_proof");
  expect_bad([](porep::C1Output& c) { c.comm_r[0] ^= 1; }, "comm_r");
  expect_bad([](porep::C1Output& c) { c.replica_id[0] ^= 1; }, "");
}

TEST(SdrSeal, Sector8MiB) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg8MiBV1_1");
  const SealInputs in = inputs_for(cfg, 3);
  const auto t0 = std::chrono::steady_clock::now();
  const SealedSector s = seal(cfg, in);
  const porep::C1Output c1 = commit_phase1(s, in.seed);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& t : s.timings) std::printf("  8 MiB %-14s %.3f s\n", t.phase.c_str(), t.seconds);
  std::printf("  8 MiB seal + C1: %.3f s\n", secs);
  check_sector(cfg, in, s);
  EXPECT_EQ(c1.vanilla_proofs[0][0].comm_d_proofs.base.size(), 18u);
  EXPECT_EQ(c1.vanilla_proofs[0][0].comm_r_last_proof.base.size(), 6u);
  EXPECT_EQ(vanilla_error(cfg, c1), "");
}

}  // namespace
}  // namespace cuzk::filecoin::testkit
