// MSM benchmark: G1 and G2 Pippenger with random scalars, plus G1 with 0/1 scalars (the Filecoin
// witness case) through the general entry point and through msm_g1_bits.
//
//   bench_msm [--min-log N] [--max-log N] [--threads N] [--window C] [--buckets auto|xyzz|affine]
//             [--sweep] [--no-g1] [--no-g2]
//
// --sweep times G1 at every window c-3 .. c+3 around the table's choice, with both bucket kinds
// (used to tune the table).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/parallel.hpp"
#include "math/ec/batch_affine.hpp"
#include "math/msm/msm.hpp"

using namespace cuzk::math;

namespace {

struct Args {
  unsigned min_log = 12, max_log = 20;
  std::size_t threads = 0;
  unsigned window = 0;
  MsmBuckets buckets = MsmBuckets::kAuto;
  bool sweep = false, g1 = true, g2 = true;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return std::strtol(argv[++i], nullptr, 10);
    };
    if (!std::strcmp(argv[i], "--max-log")) a.max_log = unsigned(next());
    else if (!std::strcmp(argv[i], "--min-log")) a.min_log = unsigned(next());
    else if (!std::strcmp(argv[i], "--threads")) a.threads = std::size_t(next());
    else if (!std::strcmp(argv[i], "--window")) a.window = unsigned(next());
    else if (!std::strcmp(argv[i], "--sweep")) a.sweep = true;
    else if (!std::strcmp(argv[i], "--buckets") && i + 1 < argc) {
      const char* v = argv[++i];
      if (!std::strcmp(v, "xyzz")) a.buckets = MsmBuckets::kXyzz;
      else if (!std::strcmp(v, "affine")) a.buckets = MsmBuckets::kBatchAffine;
      else a.buckets = MsmBuckets::kAuto;
    }
    else if (!std::strcmp(argv[i], "--no-g2")) a.g2 = false;
    else if (!std::strcmp(argv[i], "--no-g1")) a.g1 = false;
    else {
      std::fprintf(stderr,
                   "usage: %s [--min-log N] [--max-log N] [--threads N] [--window C] [--buckets auto|xyzz|affine] "
                   "[--sweep] [--no-g1] [--no-g2]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (!a.threads) a.threads = cuzk::default_threads();
  return a;
}

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

// Best of several runs: repeats while the total stays under ~1 s (a single run when it is slower).
// Also reports the CPU time of that best run: on a shared machine, cpu / threads is what the wall
// time would be without other load (when the work parallelizes perfectly).
struct Timing {
  double ms, cpu;
};
template <class Fn>
Timing time_ms(Fn&& fn) {
  Timing best{1e300, 0};
  double total = 0;
  for (int rep = 0; rep < 20 && (rep < 2 || total < 1000.0); ++rep) {
    const double c0 = cpu_ms();
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_ms() - c0;
    if (ms < best.ms) best = {ms, cpu};
    total += ms;
    if (ms > 2000.0) break;
  }
  return best;
}

volatile bool g_sink;

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  Rng rng{0xbe7c4};
  std::printf("# bench_msm: threads=%zu, load average at start %s\n", args.threads, loadavg().c_str());
  std::printf("# ms = wall time, best of repeated runs; cpu = CPU time of that run, all threads; points/s = n / ms\n");

  if (args.g1) {
    std::printf("\nG1 (random scalars; \"0/1\" = random 0/1 scalars through msm_g1, \"bits\" = msm_g1_bits, same bits)\n");
    std::printf("%8s %6s %10s %10s %12s %10s %10s\n", "n", "window", "ms", "cpu ms", "points/s", "0/1 ms", "bits ms");
  }
  for (unsigned lg = args.min_log; args.g1 && lg <= args.max_log; lg += 2) {
    const std::size_t n = std::size_t(1) << lg;
    auto bases = make_bases<G1Curve>(n, g1_generator(), rng, args.threads);
    std::vector<Fr> scalars(n), bitscalars(n);
    std::vector<std::uint64_t> bits((n + 63) / 64);
    for (auto& k : scalars) k = rng.fr();
    for (auto& w : bits) w = rng.next();
    for (std::size_t i = 0; i < n; ++i) bitscalars[i] = ((bits[i / 64] >> (i % 64)) & 1) ? Fr::one() : Fr::zero();
    MsmOptions opt;
    opt.threads = args.threads;
    opt.window = args.window;
    opt.buckets = args.buckets;
    const unsigned c = msm_window<G1Curve>(n, opt);
    const Timing t = time_ms([&] { g_sink = msm_g1(bases, scalars, opt).is_identity(); });
    const Timing t01 = time_ms([&] { g_sink = msm_g1(bases, bitscalars, opt).is_identity(); });
    const Timing tb = time_ms([&] { g_sink = msm_g1_bits(bases, bits, args.threads).is_identity(); });
    std::printf("%8zu %6u %10.1f %10.1f %12.3g %10.1f %10.1f\n", n, c, t.ms, t.cpu, double(n) / t.ms * 1e3, t01.ms,
                tb.ms);
    std::fflush(stdout);
    if (args.sweep) {
      for (unsigned cc = c > 3 ? c - 3 : 1; cc <= std::min(c + 3, 20u); ++cc) {
        MsmOptions o = opt;
        o.window = cc;
        o.buckets = MsmBuckets::kXyzz;
        const Timing tx = time_ms([&] { g_sink = msm_g1(bases, scalars, o).is_identity(); });
        o.buckets = MsmBuckets::kBatchAffine;
        const Timing ta = time_ms([&] { g_sink = msm_g1(bases, scalars, o).is_identity(); });
        std::printf("    sweep n=2^%u c=%2u  xyzz %9.1f ms (cpu %9.1f)  affine %9.1f ms (cpu %9.1f)%s\n", lg, cc, tx.ms,
                    tx.cpu, ta.ms, ta.cpu, cc == c ? "  (table)" : "");
        std::fflush(stdout);
      }
    }
  }

  if (args.g2) {
    std::printf("\nG2 (random scalars)\n");
    std::printf("%8s %6s %10s %10s %12s\n", "n", "window", "ms", "cpu ms", "points/s");
    for (unsigned lg = args.min_log; lg <= args.max_log; lg += 2) {
      const std::size_t n = std::size_t(1) << lg;
      auto bases = make_bases<G2Curve>(n, g2_generator(), rng, args.threads);
      std::vector<Fr> scalars(n);
      for (auto& k : scalars) k = rng.fr();
      MsmOptions opt;
      opt.threads = args.threads;
      opt.window = args.window;
      opt.buckets = args.buckets;
      const unsigned c = msm_window<G2Curve>(n, opt);
      const Timing t = time_ms([&] { g_sink = msm_g2(bases, scalars, opt).is_identity(); });
      std::printf("%8zu %6u %10.1f %10.1f %12.3g\n", n, c, t.ms, t.cpu, double(n) / t.ms * 1e3);
      std::fflush(stdout);
    }
  }
  return 0;
}
