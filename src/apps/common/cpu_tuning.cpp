#include "apps/common/cpu_tuning.hpp"

#include <charconv>
#include <cstring>

#include "base/parallel.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/poly/ntt_ifma.hpp"

namespace cuzk::apps {

Result<std::uint64_t> env_uint(const GetEnv& getenv_fn, const char* name, std::uint64_t lo, std::uint64_t hi,
                               std::uint64_t fallback) {
  const char* v = getenv_fn ? getenv_fn(name) : nullptr;
  if (!v || !*v) return fallback;
  std::uint64_t x = 0;
  const char* end = v + std::strlen(v);
  auto [p, ec] = std::from_chars(v, end, x);
  if (ec != std::errc() || p != end || x < lo || x > hi) {
    return Error{std::string(name) + "=" + v + ": expected an integer from " + std::to_string(lo) + " to " +
                 std::to_string(hi)};
  }
  return x;
}

Result<CpuTuning> cpu_tuning_from_env(const GetEnv& getenv_fn) {
  CpuTuning t;
  auto threads = env_uint(getenv_fn, "CUZK_THREADS", 1, 4096, 0);
  if (!threads) return Error{threads.error()};
  auto no_ifma = env_uint(getenv_fn, "CUZK_NO_IFMA", 0, 1, 0);
  if (!no_ifma) return Error{no_ifma.error()};
  auto ntt_ifma = env_uint(getenv_fn, "CUZK_NTT_IFMA", 0, 1, 1);
  if (!ntt_ifma) return Error{ntt_ifma.error()};
  t.threads = *threads;
  t.ifma = *no_ifma == 0;
  t.ntt_ifma = *ntt_ifma == 1;
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
