// The partition charge (engine/partition_sizing.hpp), rule by rule.
#include "engine/partition_sizing.hpp"

#include <gtest/gtest.h>

namespace cuzk::engine {
namespace {

constexpr std::uint64_t MiB = std::uint64_t(1) << 20;

TEST(PartitionSizer, TheModelTimesTheFactorIsTheChargeUntilSomethingIsMeasured) {
  PartitionSizer s(1.5);
  auto m = s.size("porep-c2/porep-2k", 0, {100 * MiB, 40 * MiB}, 1000 * MiB);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m->full, 150 * MiB);
  EXPECT_EQ(m->after_start, 40 * MiB);
  EXPECT_EQ(s.table().at("porep-c2/porep-2k").model_bytes, 150 * MiB);
  EXPECT_EQ(s.table().at("porep-c2/porep-2k").samples, 0u);
}

TEST(PartitionSizer, ASoloMeasurementAboveTheModelRaisesTheChargeTo110PercentOfIt) {
  PartitionSizer s;
  s.measured("k", 200 * MiB);
  s.measured("k", 150 * MiB);  // the largest counts
  auto m = s.size("k", 3, {100 * MiB, 100 * MiB}, 1000 * MiB);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->full, 220 * MiB);
  EXPECT_EQ(m->after_start, 100 * MiB);
  EXPECT_EQ(s.table().at("k").measured_bytes, 200 * MiB);
  EXPECT_EQ(s.table().at("k").samples, 2u);
  // Another key keeps its own model.
  auto other = s.size("j", 0, {10 * MiB, 10 * MiB}, 1000 * MiB);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->full, 10 * MiB);
}

TEST(PartitionSizer, AfterStartIsNeverAboveFull) {
  PartitionSizer s;
  auto m = s.size("k", 0, {50 * MiB, 80 * MiB}, 1000 * MiB);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->after_start, 50 * MiB);
}

TEST(PartitionSizer, AChargeAboveTheWholeBudgetIsAnErrorNamingThePartition) {
  PartitionSizer s(2.0);
  auto m = s.size("k", 7, {600 * MiB, 0}, 1000 * MiB);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error(), "partition 7 needs 1.17 GiB but the whole memory budget is 1000.00 MiB");
  EXPECT_EQ(s.table().at("k").model_bytes, 1200 * MiB);  // recorded all the same (status shows it)
}

TEST(PartitionSizer, AFactorOfZeroOrLessMeansOne) {
  PartitionSizer s(0);
  auto m = s.size("k", 0, {64 * MiB, 0}, 1000 * MiB);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->full, 64 * MiB);
}

}  // namespace
}  // namespace cuzk::engine
