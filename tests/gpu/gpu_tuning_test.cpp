// The GPU tuning reader (src/apps/common/gpu_tuning.hpp): the defaults are gpu/tuning.hpp's, every
// variable lands in its field, a bad value is a one-line error naming the variable and its range
// (CUZK_MSM_SEG=0 among them: it used to divide by zero), and the non-default values are listed.
// No GPU needed.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "apps/common/gpu_tuning.hpp"

using cuzk::apps::gpu_tuning_from_env;
using cuzk::apps::gpu_tuning_variables;
using cuzk::apps::GpuEnvTuning;
using cuzk::apps::parse_env_int;

namespace {

using Env = std::map<std::string, std::string>;

cuzk::Result<GpuEnvTuning> read(const Env& env) {
  return gpu_tuning_from_env([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST(GpuTuning, DefaultsWhenNothingIsSet) {
  auto r = read({});
  ASSERT_TRUE(r) << r.error();
  const cuzk::gpu::GpuTuning d;
  const auto& t = r->tuning;
  EXPECT_EQ(t.msm.seg, 256);
  EXPECT_EQ(t.msm.seg, d.msm.seg);
  EXPECT_FALSE(t.msm.occ.has_value());
  EXPECT_FALSE(t.msm.affine_log.has_value());
  EXPECT_FALSE(t.msm.aff_group_log.has_value());
  EXPECT_FALSE(t.msm.g2_cmax.has_value());
  EXPECT_FALSE(t.msm.red_chunk.has_value());
  EXPECT_EQ(t.msm.aff_per, 16);
  EXPECT_FALSE(t.msm.aff_profile);
  EXPECT_TRUE(t.msm.mixed);
  EXPECT_EQ(t.msm.sel_per, 0);
  EXPECT_EQ(t.msm.sel_occ, 1);
  EXPECT_TRUE(t.ntt.inverse_table);
  EXPECT_EQ(t.ntt.shape, 0);
  EXPECT_EQ(t.ntt.elems_per_block, 1024);
  EXPECT_TRUE(t.ntt.plan.empty());
  EXPECT_TRUE(t.prover.s0_priority);
  EXPECT_TRUE(t.prover.long_rows_in_pieces);
  EXPECT_TRUE(t.prover.witness_after_ntt);
  EXPECT_TRUE(t.prover.h_thread);
  EXPECT_FALSE(r->profile);
  EXPECT_EQ(r->h_copies, 0u);
  EXPECT_TRUE(r->non_default.empty());
  // An empty value is the default too.
  auto empty = read({{"CUZK_MSM_SEG", ""}, {"CUZK_GPU_PROFILE", ""}});
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_EQ(empty->tuning.msm.seg, 256);
  EXPECT_TRUE(empty->non_default.empty());
}

TEST(GpuTuning, EveryVariableLandsInItsField) {
  auto r = read({{"CUZK_MSM_SEG", "64"},           {"CUZK_MSM_OCC", "3"},       {"CUZK_MSM_AFFINE_LOG", "1"},
                 {"CUZK_MSM_AFF_GROUP_LOG", "26"}, {"CUZK_MSM_AFF_PER", "32"},  {"CUZK_MSM_AFF_PROFILE", "1"},
                 {"CUZK_MSM_G2_CMAX", "15"},       {"CUZK_MSM_MIXED", "0"},     {"CUZK_MSM_RED_CHUNK", "16"},
                 {"CUZK_SEL_PER", "1024"},         {"CUZK_SEL_OCC", "2"},       {"CUZK_NTT_INV_TABLE", "0"},
                 {"CUZK_NTT_SHAPE", "3"},          {"CUZK_NTT_ELEMS", "2048"},  {"CUZK_NTT_PLAN", "10,9,8"},
                 {"CUZK_GPU_S0_PRIORITY", "0"},    {"CUZK_GPU_LONG_ROWS", "0"}, {"CUZK_GPU_WITNESS_AFTER_NTT", "0"},
                 {"CUZK_GPU_H_THREAD", "0"},       {"CUZK_GPU_PROFILE", "1"},   {"CUZK_GPU_H_COPIES", "2"}});
  ASSERT_TRUE(r) << r.error();
  const auto& t = r->tuning;
  EXPECT_EQ(t.msm.seg, 64);
  EXPECT_EQ(t.msm.occ.value_or(-1), 3);
  EXPECT_EQ(t.msm.affine_log.value_or(-1), 1);
  EXPECT_EQ(t.msm.aff_group_log.value_or(-1), 26);
  EXPECT_EQ(t.msm.aff_per, 32);
  EXPECT_TRUE(t.msm.aff_profile);
  EXPECT_EQ(t.msm.g2_cmax.value_or(-1), 15);
  EXPECT_FALSE(t.msm.mixed);
  EXPECT_EQ(t.msm.red_chunk.value_or(-1), 16);
  EXPECT_EQ(t.msm.sel_per, 1024);
  EXPECT_EQ(t.msm.sel_occ, 2);
  EXPECT_FALSE(t.ntt.inverse_table);
  EXPECT_EQ(t.ntt.shape, 3);
  EXPECT_EQ(t.ntt.elems_per_block, 2048);
  EXPECT_EQ(t.ntt.plan, (std::vector<int>{10, 9, 8}));
  EXPECT_FALSE(t.prover.s0_priority);
  EXPECT_FALSE(t.prover.long_rows_in_pieces);
  EXPECT_FALSE(t.prover.witness_after_ntt);
  EXPECT_FALSE(t.prover.h_thread);
  EXPECT_TRUE(r->profile);
  EXPECT_EQ(r->h_copies, 2u);
  EXPECT_EQ(r->non_default.size(), 21u);
  EXPECT_EQ(gpu_tuning_variables().size(), 21u);  // every variable of the table was set above
}

TEST(GpuTuning, NonDefaultValuesAreListedOnce) {
  // A value equal to the default is not listed; an override of a curve-dependent default always is.
  auto r =
      read({{"CUZK_MSM_SEG", "256"}, {"CUZK_MSM_OCC", "2"}, {"CUZK_NTT_ELEMS", "512"}, {"CUZK_GPU_H_THREAD", "1"}});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->non_default, (std::vector<std::string>{"CUZK_MSM_OCC=2", "CUZK_NTT_ELEMS=512"}));
}

TEST(GpuTuning, SegmentLengthZeroIsRefused) {
  auto r = read({{"CUZK_MSM_SEG", "0"}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "CUZK_MSM_SEG=\"0\": expected an integer from 1 to 65536");
}

TEST(GpuTuning, BadValuesNameTheVariableAndTheRange) {
  const struct {
    const char* name;
    const char* value;
    const char* expect;
  } cases[] = {
      {"CUZK_MSM_SEG", "-4", "expected an integer from 1 to 65536"},
      {"CUZK_MSM_SEG", "abc", "expected an integer from 1 to 65536"},
      {"CUZK_MSM_SEG", " 64", "expected an integer from 1 to 65536"},
      {"CUZK_MSM_SEG", "64x", "expected an integer from 1 to 65536"},
      {"CUZK_MSM_SEG", "99999999999999999999", "expected an integer from 1 to 65536"},
      {"CUZK_MSM_OCC", "5", "expected an integer from 1 to 4"},
      {"CUZK_MSM_G2_CMAX", "1", "expected an integer from 2 to 24"},
      {"CUZK_MSM_AFF_GROUP_LOG", "31", "expected an integer from 1 to 30"},
      {"CUZK_MSM_RED_CHUNK", "0", "expected an integer from 1 to 65536"},
      {"CUZK_SEL_OCC", "0", "expected an integer from 1 to 4"},
      {"CUZK_MSM_MIXED", "yes", "expected 0 or 1"},
      {"CUZK_GPU_PROFILE", "2", "expected 0 or 1"},
      {"CUZK_NTT_SHAPE", "4", "expected an integer from 0 to 3"},
      {"CUZK_NTT_ELEMS", "1000", "expected a power of two from 256 to 2048"},
      {"CUZK_NTT_ELEMS", "4096", "expected a power of two from 256 to 2048"},
      {"CUZK_NTT_PLAN", "10,9,", "expected pass sizes r0,r1,... each from 1 to 11"},
      {"CUZK_NTT_PLAN", "12,8", "expected pass sizes r0,r1,... each from 1 to 11"},
      {"CUZK_NTT_PLAN", "9;9;9", "expected pass sizes r0,r1,... each from 1 to 11"},
      {"CUZK_GPU_H_COPIES", "5", "expected an integer from 0 to 4"},
  };
  for (const auto& c : cases) {
    auto r = read({{c.name, c.value}});
    ASSERT_FALSE(r) << c.name << "=" << c.value;
    EXPECT_TRUE(has(r.error(), std::string(c.name) + "=\"" + c.value + "\"")) << r.error();
    EXPECT_TRUE(has(r.error(), c.expect)) << r.error();
    EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
  }
}

TEST(GpuTuning, ParseEnvInt) {
  EXPECT_FALSE(parse_env_int("X", nullptr, 0, 4)->has_value());
  EXPECT_FALSE(parse_env_int("X", "", 0, 4)->has_value());
  EXPECT_EQ(parse_env_int("X", "4", 0, 4)->value(), 4);
  EXPECT_EQ(parse_env_int("X", "0", 0, 4)->value(), 0);
  auto bad = parse_env_int("X", "5", 0, 4);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "X=\"5\": expected an integer from 0 to 4");
}
