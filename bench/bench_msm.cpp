// MSM benchmark: G1 and G2 Pippenger with random scalars, plus G1 with 0/1 scalars (the Filecoin
// witness case) through the general entry point and through msm_g1_bits.
//
//   bench_msm [--min-log N] [--max-log N] [--threads N] [--window C] [--buckets auto|xyzz|affine]
//             [--sweep] [--no-g1] [--no-g2] [--format text|md|csv|json]
//
// --sweep times G1 at every window c-3 .. c+3 around the table's choice, with both bucket kinds
// (used to tune the table). Results: bench/RESULTS_math.md.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/parallel.hpp"
#include "harness.hpp"
#include "math/ec/batch_affine.hpp"
#include "math/msm/msm.hpp"

using namespace cuzk::math;
namespace bench = cuzk::bench;

namespace {

struct Rng {  // splitmix64
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  Fr fr() {
    Fr::Repr x;
    for (auto& l : x) l = next();
    return Fr::from_reduced(x);
  }
};

// Cheap distinct bases: P_i = P0 + i Q, built per thread chunk by repeated mixed addition, then one
// batch conversion to affine.
template <class C>
std::vector<Affine<C>> make_bases(std::size_t n, const Affine<C>& gen, Rng& rng, std::size_t threads) {
  const Jacobian<C> G = Jacobian<C>::from_affine(gen);
  const Jacobian<C> P0 = G.mul(rng.fr());
  const Affine<C> Q = G.mul(rng.fr()).to_affine();
  std::vector<Jacobian<C>> jac(n);
  cuzk::parallel_chunks(n, threads, [&](std::size_t b, std::size_t e, std::size_t) {
    Jacobian<C> acc = P0 + Jacobian<C>::from_affine(Q).mul(Fr::from_u64(b));
    for (std::size_t i = b; i < e; ++i) {
      jac[i] = acc;
      acc = acc.add_affine(Q);
    }
  });
  return batch_to_affine<C>(std::span<const Jacobian<C>>(jac), threads);
}

// Best of several runs: repeats while the total stays under ~1 s (a single run when it is slower
// than 2 s). The CPU time of that best run is reported too: on a shared machine, cpu / threads is
// what the wall time would be without other load (when the work parallelizes perfectly).
const bench::Repeat kRepeat = [] {
  bench::Repeat r = bench::Repeat::for_about(1000.0, 2, 20);
  r.slow_run_ms = 2000.0;
  return r;
}();

volatile bool g_sink;

}  // namespace

int main(int argc, char** argv) {
  unsigned min_log = 12, max_log = 20, window = 0;
  std::size_t threads = 0;
  std::string buckets_name = "auto";
  bool sweep = false, g1 = true, g2 = true;
  bench::Cli cli(
      "bench_msm",
      "MSM on G1 and G2 (random scalars; G1 also with 0/1 scalars), sizes 2^min-log .. 2^max-log in steps of 4x");
  cli.option("--min-log", min_log, "N", "smallest log2 n", 1, 28)
      .option("--max-log", max_log, "N", "largest log2 n", 1, 28)
      .option("--threads", threads, "N", "threads (0: all cores)")
      .option("--window", window, "C", "window bits (0: the table's choice)", 0, 24)
      .choice("--buckets", buckets_name, {"auto", "xyzz", "affine"}, "bucket kind")
      .flag("--sweep", sweep, "also time G1 at windows c-3 .. c+3 with both bucket kinds")
      .flag("--no-g1", g1, "skip G1", false)
      .flag("--no-g2", g2, "skip G2", false);
  if (!cli.parse(argc, argv)) return cli.exit_code();
  if (!threads) threads = cuzk::default_threads();
  const MsmBuckets buckets = buckets_name == "xyzz"     ? MsmBuckets::kXyzz
                             : buckets_name == "affine" ? MsmBuckets::kBatchAffine
                                                        : MsmBuckets::kAuto;
  const bench::Format fmt = cli.format();
  Rng rng{0xbe7c4};
  bench::note(fmt, "bench_msm: threads=%zu, load average at start %s", threads, bench::load_average().c_str());
  bench::note(fmt, "ms = wall time, best of repeated runs; cpu = CPU time of that run, all threads; points/s = n / ms");
  MsmOptions opt;
  opt.threads = threads;
  opt.window = window;
  opt.buckets = buckets;

  bench::Table g1_table(
      fmt, "G1 (random scalars; \"0/1\" = random 0/1 scalars through msm_g1, \"bits\" = msm_g1_bits, same bits)",
      {{"n", 0}, {"window", 0}, {"ms"}, {"cpu ms"}, {"points/s", 3, 'g'}, {"0/1 ms"}, {"bits ms"}});
  bench::Table sweep_table(
      fmt, "G1 window sweep (random scalars; the table's window marked)",
      {{"n", 0}, {"c", 0}, {"xyzz ms"}, {"xyzz cpu ms"}, {"affine ms"}, {"affine cpu ms"}, {"table", 0, 'f', 0, true}});
  std::vector<std::vector<bench::Cell>> sweep_rows;
  for (unsigned lg = min_log; g1 && lg <= max_log; lg += 2) {
    const std::size_t n = std::size_t(1) << lg;
    auto bases = make_bases<G1Curve>(n, g1_generator(), rng, threads);
    std::vector<Fr> scalars(n), bitscalars(n);
    std::vector<std::uint64_t> bits((n + 63) / 64);
    for (auto& k : scalars) k = rng.fr();
    for (auto& w : bits) w = rng.next();
    for (std::size_t i = 0; i < n; ++i) bitscalars[i] = ((bits[i / 64] >> (i % 64)) & 1) ? Fr::one() : Fr::zero();
    const unsigned c = msm_window<G1Curve>(n, opt);
    const bench::Timing t = bench::measure(kRepeat, [&] { g_sink = msm_g1(bases, scalars, opt).is_identity(); });
    const bench::Timing t01 = bench::measure(kRepeat, [&] { g_sink = msm_g1(bases, bitscalars, opt).is_identity(); });
    const bench::Timing tb = bench::measure(kRepeat, [&] { g_sink = msm_g1_bits(bases, bits, threads).is_identity(); });
    g1_table.row({n, c, t.best_ms, t.cpu_at_best_ms, t.per_second(double(n)), t01.best_ms, tb.best_ms});
    if (sweep) {
      for (unsigned cc = c > 3 ? c - 3 : 1; cc <= std::min(c + 3, 20u); ++cc) {
        MsmOptions o = opt;
        o.window = cc;
        o.buckets = MsmBuckets::kXyzz;
        const bench::Timing tx = bench::measure(kRepeat, [&] { g_sink = msm_g1(bases, scalars, o).is_identity(); });
        o.buckets = MsmBuckets::kBatchAffine;
        const bench::Timing ta = bench::measure(kRepeat, [&] { g_sink = msm_g1(bases, scalars, o).is_identity(); });
        sweep_rows.push_back({"2^" + std::to_string(lg), cc, tx.best_ms, tx.cpu_at_best_ms, ta.best_ms,
                              ta.cpu_at_best_ms, cc == c ? "(table)" : ""});
      }
    }
  }
  for (const auto& r : sweep_rows) sweep_table.row(r);

  bench::Table g2_table(fmt, "G2 (random scalars)",
                        {{"n", 0}, {"window", 0}, {"ms"}, {"cpu ms"}, {"points/s", 3, 'g'}});
  for (unsigned lg = min_log; g2 && lg <= max_log; lg += 2) {
    const std::size_t n = std::size_t(1) << lg;
    auto bases = make_bases<G2Curve>(n, g2_generator(), rng, threads);
    std::vector<Fr> scalars(n);
    for (auto& k : scalars) k = rng.fr();
    const unsigned c = msm_window<G2Curve>(n, opt);
    const bench::Timing t = bench::measure(kRepeat, [&] { g_sink = msm_g2(bases, scalars, opt).is_identity(); });
    g2_table.row({n, c, t.best_ms, t.cpu_at_best_ms, t.per_second(double(n))});
  }
  return 0;
}
