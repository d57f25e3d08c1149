// NTT benchmark over Fr: forward, inverse and coset (shift 7) transforms, in place.
//
//   bench_ntt [--min-log N] [--max-log N] [--threads N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/parallel.hpp"
#include "math/poly/ntt.hpp"

using namespace cuzk::math;

namespace {

template <class Fn>
double time_ms(Fn&& fn) {  // best of repeated runs, ~0.5 s per measurement
  double best = 1e300, total = 0;
  for (int rep = 0; rep < 200 && (rep < 2 || total < 500.0); ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ms);
    total += ms;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned min_log = 12, max_log = 22;
  std::size_t threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && !std::strcmp(argv[i], "--max-log")) max_log = unsigned(std::strtol(argv[++i], nullptr, 10));
    else if (i + 1 < argc && !std::strcmp(argv[i], "--min-log")) min_log = unsigned(std::strtol(argv[++i], nullptr, 10));
    else if (i + 1 < argc && !std::strcmp(argv[i], "--threads")) threads = std::size_t(std::strtol(argv[++i], nullptr, 10));
    else {
      std::fprintf(stderr, "usage: %s [--min-log N] [--max-log N] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  if (!threads) threads = cuzk::default_threads();
  if (max_log > kNttMaxLog) max_log = kNttMaxLog;
  std::printf("# bench_ntt: threads=%zu  (ms = best of repeated runs, in place)\n", threads);
  std::printf("%8s %6s %10s %10s %10s\n", "n", "log n", "ntt ms", "intt ms", "coset ms");
  std::uint64_t s = 0x5eed;
  for (unsigned lg = min_log; lg <= max_log; ++lg) {
    const Domain& d = domain_for(lg);
    std::vector<Fr> v(d.size());
    for (auto& x : v) {
      Fr::Repr r;
      for (auto& l : r) l = (s += 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
      x = Fr::from_reduced(r);
    }
    double t_ntt = time_ms([&] { ntt(d, v, threads); });
    double t_intt = time_ms([&] { intt(d, v, threads); });
    double t_coset = time_ms([&] { coset_ntt(d, v, threads); });
    std::printf("%8zu %6u %10.2f %10.2f %10.2f\n", d.size(), lg, t_ntt, t_intt, t_coset);
    std::fflush(stdout);
  }
  return 0;
}
