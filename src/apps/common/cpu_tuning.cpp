#include "apps/common/cpu_tuning.hpp"

#include "base/parallel.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/poly/ntt_ifma.hpp"

namespace cuzk::apps {

Result<CpuTuning> cpu_tuning_from_env(const GetenvFn& getenv_fn) {
  CpuTuning t;
  auto read = [&](const char* name, long lo, long hi) { return parse_env_int(name, getenv_fn(name), lo, hi); };
  auto threads = read("CUZK_THREADS", 1, 4096);
  if (!threads) return Error{threads.error()};
  auto no_ifma = read("CUZK_NO_IFMA", 0, 1);
  if (!no_ifma) return Error{no_ifma.error()};
  auto ntt_ifma = read("CUZK_NTT_IFMA", 0, 1);
  if (!ntt_ifma) return Error{ntt_ifma.error()};
  t.threads = std::size_t(threads->value_or(0));
  t.ifma = no_ifma->value_or(0) == 0;
  t.ntt_ifma = ntt_ifma->value_or(1) == 1;
  if (t.threads) t.non_default.push_back("CUZK_THREADS=" + std::to_string(t.threads));
  if (!t.ifma) t.non_default.push_back("CUZK_NO_IFMA=1");
  if (!t.ntt_ifma) t.non_default.push_back("CUZK_NTT_IFMA=0");
  return t;
}

void apply(const CpuTuning& t) {
  cuzk::set_default_threads(t.threads);
  math::ifma::set_enabled(t.ifma);
  math::ntt_ifma::set_enabled(t.ntt_ifma);
}

}  // namespace cuzk::apps
