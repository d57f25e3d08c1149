// Registered PoRep proofs: ids, names, per-size configuration (filecoin-formats.md §4.1, §6.1).
#include <gtest/gtest.h>

#include <stdexcept>

#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::porep {
namespace {

TEST(PorepConfig, TwentyRegisteredProofsInIdOrder) {
  auto all = all_porep_configs();
  ASSERT_EQ(all.size(), 20u);
  for (std::uint32_t i = 0; i < 20; ++i) {
    EXPECT_EQ(all[i].id, i);
    EXPECT_EQ(&porep_config_by_id(i), &all[i]);
    EXPECT_EQ(&porep_config_by_name(all[i].name), &all[i]);
  }
  EXPECT_EQ(all[0].name, "StackedDrg2KiBV1");
  EXPECT_EQ(all[3].name, "StackedDrg32GiBV1");
  EXPECT_EQ(all[5].name, "StackedDrg2KiBV1_1");
  EXPECT_EQ(all[8].name, "StackedDrg32GiBV1_1");
  EXPECT_EQ(all[12].name, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep");
  EXPECT_EQ(all[19].name, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep");
  EXPECT_EQ(all[0].api_version, "V1_0_0");
  EXPECT_EQ(all[9].api_version, "V1_1_0");
  EXPECT_EQ(all[14].api_version, "V1_2_0");
  EXPECT_EQ(all[15].api_version, "V1_2_0");
}

TEST(PorepConfig, PerSizeConfiguration) {
  const auto& k2 = porep_config_by_name("StackedDrg2KiBV1_1");
  EXPECT_EQ(k2.nodes, 64u);
  EXPECT_EQ(k2.layers, 2u);
  EXPECT_EQ(k2.partitions, 1u);
  EXPECT_EQ(k2.challenges_per_partition, 2u);
  EXPECT_EQ(k2.num_public_inputs(), 39u);
  EXPECT_EQ(k2.tree_d_shape().base_levels, 6u);
  EXPECT_EQ(k2.tree_rc_shape().base_levels, 2u);
  EXPECT_EQ(k2.tree_rc_shape().num_leaves(), 64u);

  const auto& m8 = porep_config_by_name("StackedDrg8MiBV1");
  EXPECT_EQ(m8.nodes, 1u << 18);
  EXPECT_EQ(m8.tree_rc_shape().base_levels, 6u);

  const auto& m512 = porep_config_by_name("StackedDrg512MiBV1_1");
  EXPECT_EQ(m512.tree_rc_shape().base_levels, 8u);

  const auto& g32 = porep_config_by_name("StackedDrg32GiBV1_1");
  EXPECT_EQ(g32.nodes, std::uint64_t(1) << 30);
  EXPECT_EQ(g32.layers, 11u);
  EXPECT_EQ(g32.partitions, 10u);
  EXPECT_EQ(g32.challenges_per_partition, 18u);
  EXPECT_EQ(g32.num_public_inputs(), 327u);  // + ONE = 328
  EXPECT_EQ(g32.tree_rc_shape().base_levels, 9u);
  EXPECT_EQ(g32.tree_rc_shape().sub_arity, 8u);
  EXPECT_EQ(g32.tree_rc_shape().top_arity, 0u);
  EXPECT_EQ(g32.tree_rc_shape().num_leaves(), g32.nodes);

  const auto& g64 = porep_config_by_name("StackedDrg64GiBV1_1");
  EXPECT_EQ(g64.tree_rc_shape().base_levels, 9u);
  EXPECT_EQ(g64.tree_rc_shape().sub_arity, 8u);
  EXPECT_EQ(g64.tree_rc_shape().top_arity, 2u);
  EXPECT_EQ(g64.tree_rc_shape().num_leaves(), g64.nodes);

  const auto& ni32 = porep_config_by_name("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep");
  EXPECT_EQ(ni32.partitions, 126u);
  EXPECT_EQ(ni32.challenges_per_partition, 18u);  // ceil(2253 / 126)
  const auto& ni2 = porep_config_by_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
  EXPECT_EQ(ni2.partitions, 13u);
  EXPECT_EQ(ni2.challenges_per_partition, 2u);  // 26 / 13
  const auto& syn = porep_config_by_name("StackedDrg32GiBV1_1_Feat_SyntheticPoRep");
  EXPECT_EQ(syn.partitions, 10u);
  EXPECT_EQ(syn.challenges_per_partition, 18u);
}

TEST(PorepConfig, UnknownNameOrIdIsAClearError) {
  EXPECT_THROW(porep_config_by_name("StackedDrg4KiBV1"), std::invalid_argument);
  EXPECT_THROW(porep_config_by_id(20), std::invalid_argument);
  try {
    porep_config_by_name("nope");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("StackedDrg32GiBV1_1"), std::string::npos);
  }
}

}  // namespace
}  // namespace cuzk::filecoin::porep
