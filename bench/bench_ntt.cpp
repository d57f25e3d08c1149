// NTT benchmark over Fr: forward, inverse, coset (shift 7) and inverse coset transforms, in place.
//
//   bench_ntt [--min-log N] [--max-log N] [--threads N] [--format text|md|csv|json]
//
// Results: bench/RESULTS_math.md.
#include <cstdint>
#include <vector>

#include "base/parallel.hpp"
#include "harness.hpp"
#include "math/poly/ntt.hpp"

using namespace cuzk::math;
namespace bench = cuzk::bench;

int main(int argc, char** argv) {
  unsigned min_log = 12, max_log = 22;
  std::size_t threads = 0;
  bench::Cli cli("bench_ntt", "NTT, inverse NTT and coset NTTs over Fr, in place, sizes 2^min-log .. 2^max-log");
  cli.option("--min-log", min_log, "N", "smallest log2 n", 0, kNttMaxLog)
      .option("--max-log", max_log, "N", "largest log2 n (capped at the library's maximum)")
      .option("--threads", threads, "N", "threads (0: all cores)");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  if (!threads) threads = cuzk::default_threads();
  if (max_log > kNttMaxLog) max_log = kNttMaxLog;
  const bench::Format fmt = cli.format();
  bench::note(fmt, "bench_ntt: threads=%zu, load average at start %s", threads, bench::load_average().c_str());
  bench::note(fmt,
              "ms = wall time, best of repeated runs (~0.5 s per measurement), in place; cpu = CPU time of that run, "
              "all threads");
  bench::Table table(
      fmt, "",
      {{"n", 0}, {"log n", 0}, {"ntt ms", 2}, {"(cpu)", 2}, {"intt ms", 2}, {"coset ms", 2}, {"coset-i ms", 2}});
  const bench::Repeat repeat = bench::Repeat::for_about(500.0, 3, 200);
  std::uint64_t s = 0x5eed;
  for (unsigned lg = min_log; lg <= max_log; ++lg) {
    const Domain& d = domain_for(lg);
    std::vector<Fr> v(d.size());
    for (auto& x : v) {
      Fr::Repr r;
      for (auto& l : r) l = (s += 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
      x = Fr::from_reduced(r);
    }
    const bench::Timing t_ntt = bench::measure(repeat, [&] { ntt(d, v, threads); });
    const bench::Timing t_intt = bench::measure(repeat, [&] { intt(d, v, threads); });
    const bench::Timing t_coset = bench::measure(repeat, [&] { coset_ntt(d, v, threads); });
    const bench::Timing t_icoset = bench::measure(repeat, [&] { coset_intt(d, v, threads); });
    table.row({d.size(), lg, t_ntt.best_ms, t_ntt.cpu_at_best_ms, t_intt.best_ms, t_coset.best_ms, t_icoset.best_ms});
  }
  return 0;
}
