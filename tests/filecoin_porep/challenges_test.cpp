// PoRep challenges: the synthetic-PoRep KATs of storage-proofs-porep challenges.rs
// (test_synth_challenges_against_hardcoded; filecoin-formats.md §6.9) and the interactive / NI
// derivation against values computed with tools/filecoin-kat.
#include <gtest/gtest.h>

#include <vector>

#include "filecoin/porep/challenges.hpp"
#include "test_util.hpp"

namespace cuzk::filecoin::porep {
namespace {

using V = std::vector<std::uint64_t>;

TEST(SdrChallenges, SyntheticKat) {
  // nodes 1024, replica_id = Fr(55), comm_r = Fr(101): the first 21 synthetic challenges.
  const V synth = synthetic_challenges(1024, test::small_fr(55), test::small_fr(101), 21);
  EXPECT_EQ(synth, (V{178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                      801, 176, 692, 429, 691, 290, 204, 986, 210, 973}));
  // Seeking gives the same values as the stream.
  EXPECT_EQ(synthetic_challenges(1024, test::small_fr(55), test::small_fr(101), 3, 17), (V{204, 986, 210}));
  // Selection with rand [1;32] over a set of 21: 10 porep challenges.
  const V idx = synthetic_selection(test::small_fr(55), test::filled(1), 21, 10, 0);
  V picked;
  for (auto i : idx) picked.push_back(synth[i]);
  EXPECT_EQ(picked, (V{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}));
  // Partition k reads the selection stream from word C·k.
  const V p1 = synthetic_selection(test::small_fr(55), test::filled(1), 21, 4, 1);
  const V all = synthetic_selection(test::small_fr(55), test::filled(1), 21, 8, 0);
  EXPECT_EQ(p1, V(all.begin() + 4, all.end()));
}

TEST(SdrChallenges, InteractiveMatchesOracle) {
  // Expected values: python3 with tools/filecoin-kat (SHA-256(replica_id ‖ seed ‖ j LE) mod 63 + 1)
  // for the replica_id of the Ids.PorepIdAndReplicaId test and seed [2;32].
  const Bytes32 rid = test::hex32("4368b07d340a62540b0722af597baf46a874ec9f769256b1d043ea737b7bd211");
  EXPECT_EQ(interactive_challenges(64, rid, test::filled(2), 2, 0), (V{52, 51}));
  EXPECT_EQ(interactive_challenges(64, rid, test::filled(2), 2, 1), (V{16, 61}));
  EXPECT_EQ(ni_challenges(64, rid, test::filled(3), 2, 0), (V{60, 16}));
  const auto& cfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  EXPECT_EQ(partition_challenges(cfg, rid, test::filled(2), test::filled(3), 0), (V{52, 51}));
  const auto& ni = porep::porep_config_by_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
  EXPECT_EQ(ni.partitions, 13u);
  EXPECT_EQ(partition_challenges(ni, rid, test::filled(2), test::filled(3), 0), (V{60, 16}));
}

TEST(SdrChallenges, InRangeAndDeterministic) {
  for (const auto& cfg : porep::all_porep_configs()) {
    for (std::size_t k = 0; k < cfg.partitions; k += 3) {
      const V a = partition_challenges(cfg, test::filled(7), test::filled(8), test::filled(9), k);
      EXPECT_EQ(a.size(), cfg.challenges_per_partition);
      for (auto c : a) {
        EXPECT_GE(c, 1u);
        EXPECT_LT(c, cfg.nodes);
      }
      EXPECT_EQ(a, partition_challenges(cfg, test::filled(7), test::filled(8), test::filled(9), k));
    }
  }
  // Different seeds give different interactive challenges (32 GiB: 18 per partition).
  const auto& big = porep::porep_config_by_name("StackedDrg32GiBV1_1");
  EXPECT_NE(partition_challenges(big, test::filled(7), test::filled(8), {}, 0),
            partition_challenges(big, test::filled(7), test::filled(6), {}, 0));
}

TEST(SdrChallenges, SyntheticPartitionPicksFromTheSyntheticSet) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg8MiBV1_1_Feat_SyntheticPoRep");
  const Bytes32 rid = test::filled(4), seed = test::filled(5), comm_r = test::filled(6);
  const V got = partition_challenges(cfg, rid, seed, comm_r, 0);
  const V idx = synthetic_selection(rid, seed, num_synthetic_challenges(cfg.nodes), 2, 0);
  ASSERT_EQ(got.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(got[i], synthetic_challenges(cfg.nodes, rid, comm_r, idx[i] + 1).back());
  EXPECT_EQ(num_synthetic_challenges(64), 64u);
  EXPECT_EQ(num_synthetic_challenges(std::uint64_t(1) << 30), std::uint64_t(1) << 18);
}

}  // namespace
}  // namespace cuzk::filecoin::porep
