// Registered update proofs, the geometry of every allowed size (storage-proofs-update constants.rs,
// post-snap.md §3.4/§3.5 table), and the challenge and φ known answers: the hard-coded vectors of
// storage-proofs-update challenges.rs test_challenges_against_hardcoded and Curio's TestPhi.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "filecoin/common/bytes32.hpp"
#include "filecoin/common/merkle_path.hpp"
#include "filecoin/snap/challenges.hpp"
#include "filecoin/snap/config.hpp"

namespace cuzk::filecoin::snap {
namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;

math::Fr fr_hex(const char* hex) { return fr_from_bytes32(bytes32_from_hex(hex).value(), "test").value(); }
std::string hex_of(const math::Fr& x) { return bytes32_hex(fr_to_bytes32(x)); }

TEST(SnapConfig, CodesAndNames) {
  ASSERT_EQ(all_update_configs().size(), 5u);
  const char* names[] = {"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1",
                         "StackedDrg64GiBV1"};
  const std::uint64_t sizes[] = {2 * kKiB, 8 * kMiB, 512 * kMiB, 32 * kGiB, 64 * kGiB};
  for (std::uint32_t i = 0; i < 5; ++i) {
    const UpdateConfig* c = *update_config_by_code(i);
    EXPECT_EQ(c->name, names[i]);
    EXPECT_EQ(c->sector_size, sizes[i]);
    EXPECT_EQ(*update_config_by_name(names[i]), c);
    EXPECT_EQ(*update_config_by_name(std::to_string(i)), c);
    EXPECT_EQ(*update_config_by_name(std::string("RegisteredUpdateProof_") + names[i]), c);
    EXPECT_EQ(*update_config_by_sector_size(sizes[i]), c);
  }
  EXPECT_FALSE(update_config_by_code(5));
  EXPECT_FALSE(update_config_by_name("StackedDrg4KiBV1"));
  EXPECT_FALSE(update_config_by_name(""));
  EXPECT_NE(update_config_by_name("x").error().find("unknown registered update proof 'x'"), std::string::npos);
  EXPECT_FALSE(update_config_by_sector_size(4 * kKiB));
}

// post-snap.md §3.5 table, plus the test sizes.
TEST(SnapConfig, Geometry) {
  struct Row {
    std::uint64_t bytes;
    std::size_t p, c, a, cb, pb, rb, cpd, dpp, apex_level, h, h_select;
    std::uint64_t k_and_h_select_k1;  // k = 1 when P > 1, else k = 0
  };
  const Row rows[] = {
      {2 * kKiB, 1, 10, 8, 6, 0, 6, 42, 1, 3, 1, 1, 1},
      {8 * kMiB, 4, 10, 128, 18, 2, 16, 15, 1, 9, 10, 8, 33},
      {512 * kMiB, 16, 86, 128, 24, 4, 20, 12, 8, 13, 10, 8, 129},
      {32 * kGiB, 16, 86, 128, 30, 4, 26, 9, 10, 19, 10, 8, 129},
      {64 * kGiB, 16, 86, 128, 31, 4, 27, 9, 10, 20, 10, 8, 129},
      {16 * kKiB, 2, 10, 128, 9, 1, 8, 31, 1, 1, 1, 1, 3},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.bytes);
    const SnapGeometry g = snap_geometry(r.bytes).value();
    EXPECT_EQ(g.tree_r.num_leaves(), g.nodes);
    EXPECT_EQ(g.partitions, r.p);
    EXPECT_EQ(g.challenge_count, r.c);
    EXPECT_EQ(g.apex_leaf_count, r.a);
    EXPECT_EQ(g.challenge_bits, r.cb);
    EXPECT_EQ(g.partition_bits, r.pb);
    EXPECT_EQ(g.random_bits, r.rb);
    EXPECT_EQ(g.challenges_per_digest, r.cpd);
    EXPECT_EQ(g.digests_per_partition, r.dpp);
    EXPECT_EQ(g.apex_level(), r.apex_level);
    EXPECT_EQ(g.h, r.h);
    EXPECT_EQ(g.h_select, r.h_select);
    EXPECT_EQ(g.k_and_h_select(r.p > 1 ? 1 : 0), r.k_and_h_select_k1);
  }
  // Every allowed size has a geometry whose tree R covers the sector; others are refused.
  for (std::uint64_t b : {1 * kKiB, 4 * kKiB, 8 * kKiB, 32 * kKiB, 16 * kMiB}) EXPECT_TRUE(snap_geometry(b)) << b;
  EXPECT_EQ(snap_geometry(32 * kKiB)->tree_r.top_arity, 2u);
  EXPECT_FALSE(snap_geometry(64 * kKiB));
  EXPECT_NE(snap_geometry(3000).error().find("not an EmptySectorUpdate size"), std::string::npos);
  // The Poseidon variant: one partition, C·P challenges of cb bits (32 GiB: 1,376 from 172 digests).
  const SnapGeometry p = snap_geometry(32 * kGiB, UpdateVariant::kPoseidon).value();
  EXPECT_EQ(p.partitions, 1u);
  EXPECT_EQ(p.challenge_count, 1376u);
  EXPECT_EQ(p.random_bits, 30u);
  EXPECT_EQ(p.challenges_per_digest, 8u);
  EXPECT_EQ(p.digests_per_partition, 172u);
  EXPECT_EQ(p.apex_leaf_count, 0u);
  EXPECT_EQ(p.h_select, 8u);
}

// comm_r_new = TreeRDomain::random(XorShiftRng::from_seed(TEST_SEED)) (post-snap.md §8.3); the first
// five challenges of partition k for every size in the Rust test.
TEST(SnapChallenges, HardcodedVectors) {
  const math::Fr comm_r_new = fr_hex("101cbe4b9c42604f04c703c396f788c6cb2d6d7d58f45430b12eb2edd640076c");
  EXPECT_EQ(hex_of(gen_randomness_hash(comm_r_new, math::Fr::from_u64(0))),
            "f58c0f801cacc62a930e0a332c4253a93662416412bc1f9a0678e9cca731b661");
  using Key = std::pair<std::uint64_t, std::size_t>;
  const std::map<Key, std::array<std::uint64_t, 5>> v = {
      {{1 * kKiB, 0}, {21, 7, 3, 31, 0}},
      {{2 * kKiB, 0}, {53, 51, 56, 3, 0}},
      {{4 * kKiB, 0}, {117, 25, 62, 0, 72}},
      {{8 * kKiB, 0}, {245, 140, 15, 128, 28}},
      {{16 * kKiB, 0}, {245, 140, 15, 128, 28}},
      {{16 * kKiB, 1}, {286, 308, 493, 510, 508}},
      {{32 * kKiB, 0}, {245, 454, 3, 400, 193}},
      {{32 * kKiB, 1}, {542, 666, 955, 927, 911}},
      {{8 * kMiB, 0}, {36085, 32783, 44060, 10950, 3731}},
      {{8 * kMiB, 1}, {78878, 130797, 112892, 93994, 78379}},
      {{16 * kMiB, 0}, {101621, 16391, 109319, 25944, 41193}},
      {{16 * kMiB, 1}, {209950, 163702, 175679, 224741, 197410}},
      {{512 * kMiB, 0}, {1019125, 116736, 706220, 59698, 799498}},
      {{512 * kMiB, 1}, {2092548, 1213276, 1185483, 1164598, 1095197}},
      {{512 * kMiB, 14}, {15212432, 15665918, 15015423, 15012912, 15495223}},
      {{512 * kMiB, 15}, {16388544, 15794686, 16637142, 16319148, 16328348}},
      {{32 * kGiB, 0}, {1019125, 27985696, 15282860, 11586600, 44651330}},
      {{32 * kGiB, 1}, {109168525, 127316247, 80331041, 97065716, 72310052}},
      {{32 * kGiB, 14}, {990420169, 955146989, 968005601, 976863263, 944650706}},
      {{32 * kGiB, 15}, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
      {{64 * kGiB, 0}, {1019125, 13992848, 3820715, 18225541, 57316660}},
      {{64 * kGiB, 1}, {243386253, 197875851, 204632136, 171516766, 247789010}},
      {{64 * kGiB, 14}, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
      {{64 * kGiB, 15}, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
  };
  for (const auto& [key, expected] : v) {
    const SnapGeometry g = snap_geometry(key.first).value();
    const auto c = partition_challenges(g, comm_r_new, key.second);
    ASSERT_EQ(c.size(), g.challenge_count);
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(c[i], expected[i]) << key.first << " k=" << key.second << " i=" << i;
    // Every challenge of partition k lies in its slice of the sector.
    for (std::uint64_t x : c) EXPECT_EQ(x >> g.random_bits, key.second);
  }
}

// Curio lib/ffi/cunative/decode_snap_test.go TestPhi; ρ values derived from it (post-snap.md §8.3).
TEST(SnapChallenges, PhiAndRho) {
  const math::Fr d = fr_hex("b0c133e15929f16f9491f9c82a128786d006a3b7286642cc78644c974f55c42f");
  const math::Fr r = fr_hex("58b65c3e1a1d52c078cb69b4ac995e515c54be9cbecd8ed28ee8009722d3c969");
  const math::Fr f = phi(d, r);
  EXPECT_EQ(hex_of(f), "436c953f3ae69bf47385748daf306871e6839a91d5229a55dda0e02653ce2f27");
  EXPECT_NE(hex_of(phi(r, d)), hex_of(f));  // the order matters
  EXPECT_EQ(hex_of(rho(f, 0)), "5a72b3331a43aa0956dba290c61dc78578d648e43d8571ca5038eb35bb5ced63");
  EXPECT_EQ(hex_of(rho(f, 1023)), "a4c99f488dec7c53dda57c9b684c1075bb4daaff031251518017a88430c65a5a");
  const SnapGeometry g = snap_geometry(32 * kGiB).value();
  EXPECT_EQ(rho_high(g, (std::uint64_t(1) << 30) - 1), 1023u);
  EXPECT_EQ(rho_high(g, std::uint64_t(1) << 20), 1u);
}

}  // namespace
}  // namespace cuzk::filecoin::snap
