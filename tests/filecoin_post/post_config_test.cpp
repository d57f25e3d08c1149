// Registered PoSt proofs: codes, go-state-types names and the Rust V1_2 aliases, geometry.
#include <gtest/gtest.h>

#include "filecoin/post/config.hpp"

namespace cuzk::filecoin::post {
namespace {

TEST(PostConfig, CodesNamesAndAliases) {
  ASSERT_EQ(all_post_configs().size(), 15u);
  EXPECT_EQ((*post_config_by_code(0))->name, "StackedDrgWinning2KiBV1");
  EXPECT_EQ((*post_config_by_code(3))->name, "StackedDrgWinning32GiBV1");
  EXPECT_EQ((*post_config_by_code(8))->name, "StackedDrgWindow32GiBV1");
  EXPECT_EQ((*post_config_by_code(13))->name, "StackedDrgWindow32GiBV1_1");
  EXPECT_EQ((*post_config_by_code(13))->rust_name, "StackedDrgWindow32GiBV1_2");
  // The naming trap: go-state-types V1_1 = proofs-api V1_2, both accepted, same config.
  EXPECT_EQ(*post_config_by_name("StackedDrgWindow2KiBV1_1"), *post_config_by_name("StackedDrgWindow2KiBV1_2"));
  EXPECT_EQ((*post_config_by_name("StackedDrgWindow2KiBV1_2"))->code, 10u);
  EXPECT_EQ((*post_config_by_name("14"))->name, "StackedDrgWindow64GiBV1_1");
  EXPECT_FALSE(post_config_by_code(15));
  EXPECT_FALSE(post_config_by_name("StackedDrgWindow4KiBV1"));
  EXPECT_FALSE(post_config_by_name(""));
  EXPECT_NE(post_config_by_name("StackedDrgWindow4KiBV1").error().find("unknown registered PoSt proof"),
            std::string::npos);
}

TEST(PostConfig, Geometry) {
  for (const PostConfig& c : all_post_configs()) {
    EXPECT_EQ(c.tree_shape().num_leaves(), c.nodes) << c.name;
    EXPECT_EQ(c.v1_2_challenges, c.code >= 10) << c.name;
    if (c.type == PostType::kWinning) {
      EXPECT_EQ(c.sector_count, 66u);
      EXPECT_EQ(c.challenge_count, 1u);
      EXPECT_EQ(c.vanilla_challenges, 66u);
      EXPECT_EQ(c.num_public_inputs(), 132u);
    } else {
      EXPECT_EQ(c.challenge_count, 10u);
      EXPECT_EQ(c.vanilla_challenges, 10u);
    }
  }
  EXPECT_EQ((*post_config_by_code(8))->sector_count, 2349u);
  EXPECT_EQ((*post_config_by_code(14))->sector_count, 2300u);
  EXPECT_EQ((*post_config_by_code(8))->num_public_inputs(), 25839u);
  EXPECT_EQ((*post_config_by_code(9))->num_public_inputs(), 25300u);
  EXPECT_EQ((*post_config_by_code(5))->num_public_inputs(), 22u);
  EXPECT_EQ((*post_config_by_code(4))->path_levels(), 11u);
}

}  // namespace
}  // namespace cuzk::filecoin::post
