// check_c1_shape: the generated documents of every (small) registered proof pass; every shape,
// domain and bookkeeping violation is named by the JSON path of the first offending value.
#include <gtest/gtest.h>

#include <functional>

#include "c1_test_util.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/testkit/random_c1.hpp"

using cuzk::filecoin::testkit::random_c1_for_tests;

namespace cuzk::filecoin::porep {
namespace {

// r (BLS12-381 scalar field modulus) and r - 1 as LE bytes.
Bytes32 modulus_le(int minus) {
  const std::uint64_t limbs[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                  0x73eda753299d7d48ULL};
  Bytes32 b{};
  for (int i = 0; i < 32; ++i) b[std::size_t(i)] = std::uint8_t(limbs[i / 8] >> (8 * (i % 8)));
  b[0] = std::uint8_t(b[0] - minus);  // r ends in ...01: no borrow for minus <= 1
  return b;
}

const std::string P = "vanilla_proofs.StackedDrg2KiBV1[0][1]";

std::string shape_error(const std::function<void(C1Output&)>& mutate, const char* name = "StackedDrg2KiBV1_1") {
  C1Output c1 = random_c1_for_tests(porep_config_by_name(name), 21);
  mutate(c1);
  auto st = check_c1_shape(c1);
  return st.ok() ? std::string("(accepted)") : st.error();
}

TEST(C1Shape, GeneratedDocumentsPass) {
  for (const PorepConfig& cfg : all_porep_configs()) {
    if (cfg.nodes > (std::uint64_t(512) << 20) / 32) continue;  // large ones: see the JSON round-trip tests
    const C1Output c1 = random_c1_for_tests(cfg, cfg.id);
    auto st = check_c1_shape(c1, cfg);
    EXPECT_TRUE(st.ok()) << cfg.name << ": " << st.error();
    EXPECT_EQ(c1.vanilla_proofs.size(), cfg.partitions);
  }
}

TEST(C1Shape, TopLevel) {
  C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 1);
  auto st = check_c1_shape(c1, porep_config_by_name("StackedDrg8MiBV1_1"));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error(), "registered_proof: 'StackedDrg2KiBV1_1' does not match the configuration 'StackedDrg8MiBV1_1'");
  EXPECT_EQ(shape_error([](C1Output& c) { c.registered_proof = "X"; }),
            "registered_proof: unknown registered proof 'X'");
  EXPECT_EQ(
      shape_error([](C1Output& c) { c.vanilla_key = "StackedDrg8MiBV1"; }),
      "vanilla_proofs.StackedDrg8MiBV1: VanillaSealProof variant does not match registered_proof StackedDrg2KiBV1_1 "
      "(expected StackedDrg2KiBV1)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs.push_back(c.vanilla_proofs[0]); }),
            "vanilla_proofs.StackedDrg2KiBV1: expected 1 partitions, got 2");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0].pop_back(); }),
            "vanilla_proofs.StackedDrg2KiBV1[0]: expected 2 challenge proofs, got 1");
  EXPECT_EQ(shape_error([](C1Output& c) { c.comm_r = modulus_le(0); }), "comm_r: not a canonical field element (>= r)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.comm_r = modulus_le(1); }), "(accepted)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.replica_id[31] = 0xff; }),
            "replica_id: not a canonical field element (>= r)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.seed.fill(0xff), c.ticket.fill(0xff); }), "(accepted)");
  // NI: 13 partitions of 2 for 2 KiB.
  EXPECT_EQ(
      shape_error([](C1Output& c) { c.vanilla_proofs.pop_back(); }, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"),
      "vanilla_proofs.StackedDrg2KiBV1: expected 13 partitions, got 12");
}

TEST(C1Shape, TreeD) {
  const std::string d = P + ".comm_d_proofs.data";
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.base[3].hashes[0][31] |= 0x40; }),
            d + ".Single.path.path[3].hashes[0]: bits 254/255 set (not a trimmed SHA-256 domain value)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.leaf[31] |= 0x80; }),
            d + ".Single.leaf: bits 254/255 set (not a trimmed SHA-256 domain value)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.base.pop_back(); }),
            d + ".Single.path.path: expected 6 levels, got 5");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.base[2].hashes.push_back({}); }),
            d + ".Single.path.path[2].hashes: expected 1 hashes (arity 2), got 2");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.base[0].index = 2; }),
            d + ".Single.path.path[0].index: 2 is not < arity 2");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.root[0] ^= 1; }),
            d + ".Single.root: differs from comm_d");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_d_proofs.kind = MerkleProofKind::kSub; }),
            d + ": expected a Single proof, got Sub");
}

TEST(C1Shape, TreeR) {
  const std::string r = P + ".comm_r_last_proof";
  EXPECT_EQ(
      shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base[1].hashes[6] = modulus_le(0); }),
      r + ".data.Single.path.path[1].hashes[6]: not a canonical field element (>= r)");
  EXPECT_EQ(
      shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base[1].hashes[6] = modulus_le(1); }),
      "(accepted)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base[0].hashes.pop_back(); }),
            r + ".data.Single.path.path[0].hashes: expected 7 hashes (arity 8), got 6");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base[0].index = 8; }),
            r + ".data.Single.path.path[0].index: 8 is not < arity 8");
  {
    C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 21);
    auto& e = c1.vanilla_proofs[0][1].comm_r_last_proof.base[0];
    const std::uint64_t challenge = c1.vanilla_proofs[0][1].c_x.index;
    e.index = (e.index + 1) % 8;
    auto st = check_c1_shape(c1);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error(), r + ": path opens node " + std::to_string((challenge & ~7ull) | e.index) +
                              ", but the challenge (comm_d_proofs) is " + std::to_string(challenge));
  }
  EXPECT_EQ(
      shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.root[0] ^= 1; }),
      r + ".data.Single.root: differs from vanilla_proofs.StackedDrg2KiBV1[0][0].comm_r_last_proof.data.Single.root "
          "(all tree-R (comm_r_last) roots must agree)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.kind = MerkleProofKind::kTop; }),
            r + ".data: expected a Single proof, got Top");
}

TEST(C1Shape, Columns) {
  const std::string rcp = P + ".replica_column_proofs";
  EXPECT_EQ(
      shape_error([](C1Output& c) { c.vanilla_proofs[0][1].c_x.index ^= 1; }), rcp + ".c_x.column.index: " + [] {
        C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 21);
        const auto x = c1.vanilla_proofs[0][1].c_x.index;
        return std::to_string(x ^ 1) + ", but the challenge (comm_d_proofs) is " + std::to_string(x);
      }());
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].drg_parents[3].rows[1][31] = 0x40; }),
            rcp + ".drg_parents[3].column.rows[1]: bits 254/255 set (labels are trimmed SHA-256 outputs)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].exp_parents[7].rows.pop_back(); }),
            rcp + ".exp_parents[7].column.rows: expected 2 rows (layers), got 1");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].drg_parents.pop_back(); }),
            rcp + ".drg_parents: expected 6 DRG parent columns, got 5");
  EXPECT_EQ(shape_error([](C1Output& c) {
              c.vanilla_proofs[0][1].exp_parents.push_back(c.vanilla_proofs[0][1].exp_parents[0]);
            }),
            rcp + ".exp_parents: expected 8 expander parent columns, got 9");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].drg_parents[0].index = 64; }),
            rcp + ".drg_parents[0].column.index: 64 is not < nodes 64");
  {
    C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 21);
    auto& col = c1.vanilla_proofs[0][1].exp_parents[2];
    const std::uint32_t old = col.index;
    col.index = (old + 1) % 64;
    auto st = check_c1_shape(c1);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error(), rcp + ".exp_parents[2].inclusion_proof: path opens node " + std::to_string(old) +
                              ", but column.index is " + std::to_string(col.index));
  }
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].exp_parents[2].inclusion_proof.root[5] ^= 1; }),
            rcp +
                ".exp_parents[2].inclusion_proof.data.Single.root: differs from "
                "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.inclusion_proof.data.Single.root (all "
                "tree-C (comm_c) roots must agree)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].c_x.inclusion_proof.leaf = modulus_le(0); }),
            rcp + ".c_x.inclusion_proof.data.Single.leaf: not a canonical field element (>= r)");
}

TEST(C1Shape, LabelingAndEncoding) {
  const std::string lp = P + ".labeling_proofs";
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].labeling_proofs.pop_back(); }),
            lp + ": expected 2 labeling proofs (layers), got 1");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].labeling_proofs[1].parents.pop_back(); }),
            lp + "[1].parents: expected 37 parents, got 36");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].labeling_proofs[1].parents[36][31] = 0xc0; }),
            lp + "[1].parents[36]: bits 254/255 set (labels are trimmed SHA-256 outputs)");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].labeling_proofs[1].layer_index = 1; }),
            lp + "[1].layer_index: 1, expected 2");
  EXPECT_EQ(shape_error([](C1Output& c) { c.vanilla_proofs[0][1].encoding_proof.layer_index = 1; }),
            P + ".encoding_proof.layer_index: 1, expected 2");
  {
    C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 21);
    c1.vanilla_proofs[0][1].labeling_proofs[0].node += 1;
    auto st = check_c1_shape(c1);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().rfind(lp + "[0].node: ", 0), 0u) << st.error();
  }
}

TEST(C1Shape, LargeTrees) {
  const std::string p32 = "vanilla_proofs.StackedDrg32GiBV1[9][17].comm_r_last_proof.data";
  auto big = [](const char* name, const std::function<void(C1Output&)>& f) {
    C1Output c1 = random_c1_for_tests(porep_config_by_name(name), 5);
    f(c1);
    auto st = check_c1_shape(c1);
    return st.ok() ? std::string("(accepted)") : st.error();
  };
  EXPECT_EQ(big("StackedDrg32GiBV1_1", [](C1Output&) {}), "(accepted)");
  EXPECT_EQ(big("StackedDrg64GiBV1_1", [](C1Output&) {}), "(accepted)");
  EXPECT_EQ(big("StackedDrg32GiBV1_1",
                [](C1Output& c) { c.vanilla_proofs[9][17].comm_r_last_proof.sub[0].hashes.pop_back(); }),
            p32 + ".Sub.sub_proof.path[0].hashes: expected 7 hashes (arity 8), got 6");
  EXPECT_EQ(big("StackedDrg32GiBV1_1", [](C1Output& c) { c.vanilla_proofs[9][17].comm_r_last_proof.base.pop_back(); }),
            p32 + ".Sub.base_proof.path: expected 9 levels, got 8");
  EXPECT_EQ(big("StackedDrg32GiBV1_1",
                [](C1Output& c) { c.vanilla_proofs[9][17].comm_r_last_proof.kind = MerkleProofKind::kSingle; }),
            p32 + ": expected a Sub proof, got Single");
  EXPECT_EQ(big("StackedDrg32GiBV1_1", [](C1Output& c) { c.vanilla_proofs[9][17].comm_d_proofs.base.pop_back(); }),
            "vanilla_proofs.StackedDrg32GiBV1[9][17].comm_d_proofs.data.Single.path.path: expected 30 levels, got 29");
  const std::string p64 = "vanilla_proofs.StackedDrg64GiBV1[0][0].replica_column_proofs.c_x.inclusion_proof.data.Top";
  EXPECT_EQ(big("StackedDrg64GiBV1_1",
                [](C1Output& c) { c.vanilla_proofs[0][0].c_x.inclusion_proof.top[0].hashes.push_back({}); }),
            p64 + ".top_proof.path[0].hashes: expected 1 hashes (arity 2), got 2");
  EXPECT_EQ(
      big("StackedDrg64GiBV1_1", [](C1Output& c) { c.vanilla_proofs[0][0].c_x.inclusion_proof.top[0].index = 2; }),
      p64 + ".top_proof.path[0].index: 2 is not < arity 2");
  EXPECT_EQ(big("StackedDrg64GiBV1_1", [](C1Output& c) { c.vanilla_proofs[0][0].c_x.inclusion_proof.top.clear(); }),
            p64 + ".top_proof.path: expected 1 levels, got 0");
}

}  // namespace
}  // namespace cuzk::filecoin::porep
