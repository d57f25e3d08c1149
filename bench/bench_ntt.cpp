// NTT benchmark over Fr: forward, inverse, coset (shift 7) and inverse coset transforms, in place.
//
//   bench_ntt [--min-log N] [--max-log N] [--threads N]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/parallel.hpp"
#include "math/poly/ntt.hpp"

using namespace cuzk::math;

namespace {

double cpu_ms() {  // CPU time of the whole process (all threads)
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

struct Timing {
  double ms, cpu;
};
template <class Fn>
Timing time_ms(Fn&& fn) {  // best of repeated runs, ~0.5 s per measurement, with that run's CPU time
  Timing best{1e300, 0};
  double total = 0;
  for (int rep = 0; rep < 200 && (rep < 3 || total < 500.0); ++rep) {
    const double c0 = cpu_ms();
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_ms() - c0;
    if (ms < best.ms) best = {ms, cpu};
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
  std::printf("# bench_ntt: threads=%zu, load average at start %s\n", threads, loadavg().c_str());
  std::printf("# ms = wall time, best of repeated runs, in place; cpu = CPU time of that run, all threads\n");
  std::printf("%8s %6s %10s %10s %10s %10s %10s\n", "n", "log n", "ntt ms", "(cpu)", "intt ms", "coset ms",
              "coset-i ms");
  std::uint64_t s = 0x5eed;
  for (unsigned lg = min_log; lg <= max_log; ++lg) {
    const Domain& d = domain_for(lg);
    std::vector<Fr> v(d.size());
    for (auto& x : v) {
      Fr::Repr r;
      for (auto& l : r) l = (s += 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
      x = Fr::from_reduced(r);
    }
    const Timing t_ntt = time_ms([&] { ntt(d, v, threads); });
    const Timing t_intt = time_ms([&] { intt(d, v, threads); });
    const Timing t_coset = time_ms([&] { coset_ntt(d, v, threads); });
    const Timing t_icoset = time_ms([&] { coset_intt(d, v, threads); });
    std::printf("%8zu %6u %10.2f %10.2f %10.2f %10.2f %10.2f\n", d.size(), lg, t_ntt.ms, t_ntt.cpu, t_intt.ms,
                t_coset.ms, t_icoset.ms);
    std::fflush(stdout);
  }
  return 0;
}
