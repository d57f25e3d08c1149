// The apps' one reader of the CPU tuning variables (apps/common/cpu_tuning.hpp): defaults, accepted
// values, one-line errors naming the variable, and the non-default list the executables log.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>

#include "apps/common/cpu_tuning.hpp"
#include "base/parallel.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/poly/ntt_ifma.hpp"

namespace cuzk::apps {
namespace {

GetenvFn env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* n) -> const char* {
    auto it = vars.find(n);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(CpuTuning, DefaultsWhenNothingIsSet) {
  auto t = cpu_tuning_from_env(env({}));
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->threads, 0u);
  EXPECT_TRUE(t->ifma);
  EXPECT_TRUE(t->ntt_ifma);
  EXPECT_TRUE(t->non_default.empty());
  // Empty counts as unset.
  EXPECT_TRUE(cpu_tuning_from_env(env({{"CUZK_THREADS", ""}}))->non_default.empty());
}

TEST(CpuTuning, ValuesAreReadAndReported) {
  auto t = cpu_tuning_from_env(env({{"CUZK_THREADS", "3"}, {"CUZK_NO_IFMA", "1"}, {"CUZK_NTT_IFMA", "0"}}));
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->threads, 3u);
  EXPECT_FALSE(t->ifma);
  EXPECT_FALSE(t->ntt_ifma);
  EXPECT_EQ(t->non_default, (std::vector<std::string>{"CUZK_THREADS=3", "CUZK_NO_IFMA=1", "CUZK_NTT_IFMA=0"}));
}

TEST(CpuTuning, BadValuesAreOneLineErrorsNamingTheVariable) {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{{"CUZK_THREADS", "0"},
                                                                             {"CUZK_THREADS", "-2"},
                                                                             {"CUZK_THREADS", "4097"},
                                                                             {"CUZK_THREADS", "8x"},
                                                                             {"CUZK_NO_IFMA", "yes"},
                                                                             {"CUZK_NO_IFMA", "2"},
                                                                             {"CUZK_NTT_IFMA", " 1"}}) {
    auto t = cpu_tuning_from_env(env({{name, value}}));
    ASSERT_FALSE(t) << name << "=" << value;
    EXPECT_EQ(t.error().rfind(name + "=\"" + value + "\": expected an integer from ", 0), 0u) << t.error();
    EXPECT_EQ(t.error().find('\n'), std::string::npos);
  }
}

TEST(CpuTuning, ApplyReachesTheLibraries) {
  CpuTuning t;
  t.threads = 5;
  t.ntt_ifma = false;
  apply(t);
  EXPECT_EQ(cuzk::default_threads(), 5u);
  EXPECT_FALSE(math::ntt_ifma::enabled());
  apply(CpuTuning{});
  EXPECT_EQ(cuzk::default_threads(), std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(math::ntt_ifma::enabled(), math::ifma::available());
}

}  // namespace
}  // namespace cuzk::apps
