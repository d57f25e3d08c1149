// Where a proof's rows are made (src/gpu/proof_memory.hpp), on the cards storage providers own: the
// sizes below are the 32 GiB WindowPoSt and PoRep partitions' (bench/RESULTS_post.md's section table;
// the shapes' device encodings as measured at READY), and the decisions are what CudaBackend::upload
// takes with the device memory left after the key's copy.
#include <gtest/gtest.h>

#include "gpu/proof_memory.hpp"

using namespace cuzk::gpu;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t(1) << 30, kGB = 1000000000;

// A 32 GiB WindowPoSt partition: 2^27 rows, 25,840 inputs + 126,902,376 aux, a and b_g1 query lengths.
ProofFootprint window_post_32g() {
  ProofFootprint p;
  p.domain_log2 = 27;
  p.num_variables = 25840 + 126902376;
  p.a_n = 96205645;
  p.b_n = 91925767;
  return p;
}
constexpr std::uint64_t kWindowShape = 9600 * (std::uint64_t(1) << 20);  // ~9.6 GB encoded
// The file-streamed key's device part: H, L/A/B_G1 and B_G2 rings of two 2^22-base chunk buffers.
constexpr std::uint64_t kFileKeyRings = 3300 * (std::uint64_t(1) << 20);

}  // namespace

TEST(ProofFixedBytes, CountsTheWitnessAndTheRowsThatLiveTogether) {
  const ProofFootprint p = window_post_32g();
  const std::uint64_t m = std::uint64_t(1) << 27, w = p.num_variables * 32;
  EXPECT_EQ(proof_fixed_bytes(p, false), w + 3 * m * 32);  // 4.06 GB + 12.9 GB
  EXPECT_EQ(proof_fixed_bytes(p, true), w + 2 * m * 32);   // one row vector fewer
  ProofFootprint snark = p;
  snark.snarkjs_layout = true;
  EXPECT_EQ(proof_fixed_bytes(snark, false), w + 4 * m * 32);
  // A query longer than two row vectors' worth would set the later peak (witness + H + gathered).
  ProofFootprint odd = p;
  odd.domain_log2 = 10;
  odd.num_variables = 100;
  odd.a_n = 5000;
  odd.b_n = 10;
  EXPECT_EQ(proof_fixed_bytes(odd, true), 100 * 32 + 1024 * 32 + 5000 * 32);
}

TEST(PlanRows, A32GiBWindowPoStOnA24GiBCardEvaluatesItsRowsOnTheHost) {
  const ProofFootprint p = window_post_32g();
  const std::uint64_t card = 24 * kGiB, free = card - kFileKeyRings - kGiB;  // the context and the key's rings
  const RowsPlan plan = plan_rows(RowsPlacement::kAuto, p, kWindowShape, free);
  EXPECT_TRUE(plan.on_host) << plan.why;
  EXPECT_EQ(plan.why.rfind("rows on the host: the shape 9600 MiB + a proof ", 0), 0u) << plan.why;
  EXPECT_NE(plan.why.find(" > "), std::string::npos) << plan.why;
  // and the host path fits that card: 12.7 GB + the workspace reserve
  EXPECT_LE(proof_fixed_bytes(p, true) + kProofWorkspaceReserve, free);
}

TEST(PlanRows, TheSamePartitionOnLargerCardsKeepsTheShapeOnTheDevice) {
  const ProofFootprint p = window_post_32g();
  for (std::uint64_t card : {std::uint64_t(40) * kGB, 48 * kGiB, 80 * kGB, 141 * kGB}) {
    const RowsPlan plan = plan_rows(RowsPlacement::kAuto, p, kWindowShape, card - kFileKeyRings - kGiB);
    EXPECT_FALSE(plan.on_host) << card << ": " << plan.why;
    EXPECT_EQ(plan.why.rfind("rows on the device: the shape 9600 MiB + a proof ", 0), 0u) << plan.why;
  }
  // 32 GB (a 5090): 9.6 + 17 + 2 > 27.5 left
  EXPECT_TRUE(plan_rows(RowsPlacement::kAuto, p, kWindowShape, 32 * kGB - kFileKeyRings - kGiB).on_host);
}

TEST(PlanRows, TheBoundaryIsTheShapeAProofAndTheReserve) {
  const ProofFootprint p = window_post_32g();
  const std::uint64_t need = kWindowShape + proof_fixed_bytes(p, false) + kProofWorkspaceReserve;
  EXPECT_FALSE(plan_rows(RowsPlacement::kAuto, p, kWindowShape, need).on_host);
  EXPECT_TRUE(plan_rows(RowsPlacement::kAuto, p, kWindowShape, need - 1).on_host);
}

TEST(PlanRows, WhatIsAskedWinsWhereTheProofAllowsIt) {
  const ProofFootprint p = window_post_32g();
  const RowsPlan dev = plan_rows(RowsPlacement::kDevice, p, kWindowShape, kGiB);
  EXPECT_FALSE(dev.on_host);
  EXPECT_EQ(dev.why, "rows on the device: asked");
  const RowsPlan host = plan_rows(RowsPlacement::kHost, p, kWindowShape, 1000 * kGiB);
  EXPECT_TRUE(host.on_host);
  EXPECT_EQ(host.why, "rows on the host: asked");
}

TEST(PlanRows, SnarkjsKeysAndShapesWithoutCHaveNoHostPath) {
  ProofFootprint snark = window_post_32g();
  snark.snarkjs_layout = true;
  for (RowsPlacement asked : {RowsPlacement::kAuto, RowsPlacement::kHost}) {
    const RowsPlan plan = plan_rows(asked, snark, kWindowShape, kGiB);
    EXPECT_FALSE(plan.on_host);
    EXPECT_EQ(plan.why, "rows on the device: the snarkjs layout has no host path");
  }
  ProofFootprint no_c = window_post_32g();
  no_c.has_c = false;
  EXPECT_FALSE(plan_rows(RowsPlacement::kAuto, no_c, kWindowShape, kGiB).on_host);
  EXPECT_EQ(plan_rows(RowsPlacement::kAuto, no_c, kWindowShape, kGiB).why,
            "rows on the device: a shape without C has no host path");
}

TEST(PlanRows, SmallCircuitsNeverLeaveTheDevice) {
  ProofFootprint p;  // a 2 KiB PoRep partition's size class: 2^17 rows
  p.domain_log2 = 17;
  p.num_variables = 120000;
  p.a_n = 100000;
  p.b_n = 90000;
  EXPECT_FALSE(plan_rows(RowsPlacement::kAuto, p, 20 << 20, 8 * kGB).on_host);
}
