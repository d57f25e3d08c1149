// bench_params_load: how fast a bellperson .params file becomes a ready-to-prove key.
//
// Writes a .params file shaped like a 2^LOG-domain circuit with the proportions of the 32 GiB PoRep
// circuit (filecoin-formats.md 1.2: l = 0.9698 m, a = 0.9667 m, b = 0.2467 m, ic = 328) into a temp
// dir, then times, with 1 thread and with all threads:
//   open    mmap + every count checked against the file size + vk decoded with subgroup checks
//   decode  every vector decoded in parallel into std::vector<G1Affine/G2Affine> (Montgomery form),
//           flags, field range and the curve equation checked (bellperson's rules; no subgroup)
// and prints bytes/s and bytes/s per thread. The file is in the page cache (just written), so this
// measures the CPU side, not the disk.
//
// Valid random points are expensive to make, so the file holds DISTINCT_G1 / DISTINCT_G2 distinct
// points (a chain P, P+Q, P+2Q, ... of subgroup points) repeated; the decoder does the same work for
// every point either way.
//
//   bench_params_load [--log 22] [--dir DIR] [--keep] [--threads N] [--subgroup] [--profile]
//                     [--format text|md|csv|json]
// Results: bench/RESULTS_params.md.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/parallel.hpp"
#include "formats/bellperson/params.hpp"
#include "harness.hpp"
#include "math/ec/bls12_381.hpp"
#include "math/ec/encoding.hpp"

namespace {

using namespace cuzk;
namespace bp = formats::bellperson;
using math::Fp;
using math::G1Affine;
using math::G2Affine;
namespace bench = cuzk::bench;

constexpr std::size_t kDistinctG1 = 4096;
constexpr std::size_t kDistinctG2 = 512;

// CPU time of the whole process (all threads): on a shared machine, bytes per CPU-second is the
// per-core rate even when other processes take turns on the cores.
double process_cpu_seconds() { return bench::cpu_ms(bench::CpuClock::kProcess) * 1e-3; }

template <class C>
std::vector<std::uint8_t> distinct_points(const math::Affine<C>& g, std::size_t n, std::uint64_t seed) {
  using J = math::Jacobian<C>;
  J p = J::from_affine(g).mul(math::Fr::from_u64(seed * 7919 + 13));
  J q = J::from_affine(g).mul(math::Fr::from_u64(seed * 104729 + 7));
  constexpr std::size_t kBytes = sizeof(C) ? (std::is_same_v<C, math::G1Curve> ? 96 : 192) : 0;
  std::vector<std::uint8_t> out(n * kBytes);
  for (std::size_t i = 0; i < n; ++i, p += q) {
    auto a = p.to_affine();
    if constexpr (std::is_same_v<C, math::G1Curve>) {
      auto e = math::g1_to_uncompressed(a);
      std::memcpy(out.data() + i * kBytes, e.data(), kBytes);
    } else {
      auto e = math::g2_to_uncompressed(a);
      std::memcpy(out.data() + i * kBytes, e.data(), kBytes);
    }
  }
  return out;
}

struct Shape {
  std::uint32_t ic, h, l, a, b;
};

void put_count(std::FILE* f, std::uint32_t n) {
  std::uint8_t c[4] = {std::uint8_t(n >> 24), std::uint8_t(n >> 16), std::uint8_t(n >> 8), std::uint8_t(n)};
  std::fwrite(c, 1, 4, f);
}

void put_repeated(std::FILE* f, std::uint32_t count, const std::vector<std::uint8_t>& pool, std::size_t psize) {
  put_count(f, count);
  const std::size_t distinct = pool.size() / psize;
  for (std::size_t done = 0; done < count;) {
    std::size_t n = std::min<std::size_t>(distinct, count - done);
    std::fwrite(pool.data(), psize, n, f);
    done += n;
  }
}

bool write_file(const std::string& path, const Shape& s, const std::vector<std::uint8_t>& g1,
                const std::vector<std::uint8_t>& g2) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  // vk: alpha, beta (G1), beta, gamma (G2), delta (G1), delta (G2) from the pools.
  std::fwrite(g1.data(), 1, 96, f);
  std::fwrite(g1.data() + 96, 1, 96, f);
  std::fwrite(g2.data(), 1, 192, f);
  std::fwrite(g2.data() + 192, 1, 192, f);
  std::fwrite(g1.data() + 192, 1, 96, f);
  std::fwrite(g2.data() + 384, 1, 192, f);
  put_repeated(f, s.ic, g1, 96);
  put_repeated(f, s.h, g1, 96);
  put_repeated(f, s.l, g1, 96);
  put_repeated(f, s.a, g1, 96);
  put_repeated(f, s.b, g1, 96);
  put_repeated(f, s.b, g2, 192);
  return std::fclose(f) == 0;
}

struct LoadResult {
  double open_s = 0, decode_s = 0, cpu_s = 0;
  std::uint64_t bytes = 0;
  double section_s[5] = {};
};

// Decoded vectors; kept between runs for the "decode into existing buffers" rows.
struct Buffers {
  HugeVector<G1Affine> h, l, a, b1;
  HugeVector<G2Affine> b2;
};

// reuse = false: open + allocate + decode (ready to prove, as assemble_proving_key does it).
// reuse = true:  open + decode_into the buffers of an earlier run (the decoder's CPU work alone).
LoadResult load(const std::string& path, std::size_t threads, math::SubgroupCheck sub, Buffers& buf, bool reuse) {
  // A fresh load has no earlier key to free: the buffers of the previous run go before the clocks start.
  if (!reuse) buf = Buffers{};
  LoadResult r;
  const double c0 = process_cpu_seconds();
  const bench::Stopwatch total;
  auto f = bp::ParamsFile::open(path);
  r.open_s = total.s();
  if (!f) {
    std::fprintf(stderr, "%s\n", f.error().c_str());
    std::exit(2);
  }
  r.bytes = f->file_size();
  bp::DecodeOptions opt;
  opt.threads = threads;
  opt.subgroup = sub;
  const bench::Stopwatch decode;
  auto run = [&](auto view, auto& out, int k) {
    const bench::Stopwatch section;
    if (reuse) {
      auto st = view.decode_into(std::span(out), 0, opt);
      if (!st) {
        std::fprintf(stderr, "%s\n", st.error().c_str());
        std::exit(2);
      }
    } else {
      auto v = view.decode(opt);
      if (!v) {
        std::fprintf(stderr, "%s\n", v.error().c_str());
        std::exit(2);
      }
      out = std::move(*v);
    }
    r.section_s[k] = section.s();
  };
  run(f->h(), buf.h, 0);
  run(f->l(), buf.l, 1);
  run(f->a(), buf.a, 2);
  run(f->b_g1(), buf.b1, 3);
  run(f->b_g2(), buf.b2, 4);
  r.decode_s = decode.s();
  r.cpu_s = process_cpu_seconds() - c0;
  return r;
}

// Where one thread's time goes on a G1 vector: loads and range check, + Montgomery conversion of
// both coordinates, + the curve equation (what the decoder does), + writing the output.
void profile(const std::string& path, bench::Format fmt) {
  auto f = bp::ParamsFile::open(path).value();
  auto raw = f.h().raw_all();
  const std::size_t n = std::min<std::size_t>(f.h().size(), 1 << 20);
  auto load = [](const std::uint8_t* p, Fp::Repr& r) {
    for (int k = 0; k < 6; ++k) {
      std::uint64_t v;
      std::memcpy(&v, p + 8 * (5 - k), 8);
      r[k] = __builtin_bswap64(v);
    }
    return math::limbs::less_than(r, Fp::modulus());
  };
  const Fp b = math::G1Curve::b();
  std::uint64_t sink = 0;
  for (std::size_t i = 0; i < n * 96; i += 4096) sink += raw[i];  // fault the mapping in first
  double t[3];
  for (int stage = 0; stage < 3; ++stage) {
    const bench::Stopwatch sw;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t* p = raw.data() + i * 96;
      Fp::Repr x, y;
      bool ok = load(p, x) & load(p + 48, y);
      if (stage == 0) {
        sink += ok + x[0] + y[0];
        continue;
      }
      Fp fx = Fp::from_canonical_unchecked(x), fy = Fp::from_canonical_unchecked(y);
      if (stage == 1) {
        sink += fx.mont_raw()[0] + fy.mont_raw()[0];
        continue;
      }
      sink += (fy.square() == fx.square() * fx + b);
    }
    t[stage] = sw.s() / double(n) * 1e9;
  }
  const bench::Stopwatch chain;
  Fp acc = Fp::one();
  for (std::size_t i = 0; i < n; ++i) acc = acc * b;  // dependent chain: latency
  double mul_ns = chain.s() / double(n) * 1e9;
  sink += acc.mont_raw()[0];
  bench::Table table(fmt, bench::strf("profile, 1 thread, %zu G1 points of h (scalar path)", n),
                     {{"stage", 0, 'f', 36, true}, {"ns/point", 1}});
  table.row({"load + range check", t[0]});
  table.row({"+ 2 Montgomery conversions (2 mul)", t[1]});
  table.row({"+ curve equation (2 sqr + 1 mul)", t[2]});  // the full fast path without the output store
  table.row({"one Fp multiplication (latency)", mul_ns});
  bench::note(fmt, "sink %llu", (unsigned long long)(sink & 1));
}

}  // namespace

int main(int argc, char** argv) {
  int log = 22;
  std::string dir;
  bool keep = false, subgroup = false, prof = false;
  std::size_t max_threads = default_threads();
  bench::Cli cli("bench_params_load",
                 "writes a 2^LOG-domain .params file with 32 GiB PoRep proportions and times loading it");
  cli.option("--log", log, "N", "log2 of the domain", 4, 27)
      .option("--dir", dir, "DIR", "folder for the file (default: a fresh temp folder)")
      .flag("--keep", keep, "keep the file")
      .option("--threads", max_threads, "N", "decode threads of the multi-threaded rows", 1, 4096)
      .flag("--subgroup", subgroup, "also time with subgroup checks")
      .flag("--profile", prof, "also time the scalar decoder's stages on one thread");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  const bench::Format fmt = cli.format();
  bool own_dir = dir.empty();
  if (own_dir) {
    dir = (std::filesystem::temp_directory_path() / ("cuzk_bench_params_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
  }
  const std::string path = dir + "/bench_2e" + std::to_string(log) + ".params";

  const std::uint64_t m = std::uint64_t(1) << log;
  Shape s{328, std::uint32_t(m - 1), std::uint32_t(double(m) * 0.9698), std::uint32_t(double(m) * 0.9667),
          std::uint32_t(double(m) * 0.2467)};
  s.a += s.ic;  // all inputs are in a
  bench::Stopwatch sw;
  auto g1 = distinct_points(math::g1_generator(), kDistinctG1, 1);
  auto g2 = distinct_points(math::g2_generator(), kDistinctG2, 2);
  double gen_s = sw.s();
  sw.reset();
  if (!write_file(path, s, g1, g2)) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return 2;
  }
  double write_s = sw.s();
  struct stat st {};
  ::stat(path.c_str(), &st);

  bench::note(fmt, "bench_params_load: 2^%d-domain .params (32 GiB PoRep proportions)", log);
  bench::note(fmt, "file: %s, %.3f GB (%lld bytes)", path.c_str(), double(st.st_size) / 1e9, (long long)st.st_size);
  bench::note(fmt, "counts: ic %u, h %u, l %u, a %u, b_g1 %u, b_g2 %u", s.ic, s.h, s.l, s.a, s.b, s.b);
  bench::note(fmt, "NOTE: the points are %zu distinct G1 and %zu distinct G2 subgroup points, repeated (valid points",
              kDistinctG1, kDistinctG2);
  bench::note(fmt, "      are expensive to generate); every point is still fully decoded and checked. Made in %.1f s,",
              gen_s);
  bench::note(fmt, "      written in %.1f s; the file is in the page cache, so this measures CPU work, not the disk.",
              write_s);
  bench::note(fmt, "hardware threads: %u, decode threads used: 1 and %zu", std::thread::hardware_concurrency(),
              max_threads);
  bench::note(fmt, "per-section columns: GB/s (wall) of h, l, a, b_g1, b_g2");

  std::vector<std::size_t> thread_counts = {1};
  if (max_threads > 1) thread_counts.push_back(max_threads);
  bench::Table table(fmt, "",
                     {{"run, threads", 0, 'f', 23, true},
                      {"subgroup", 0, 'f', 8, true},
                      {"open ms", 2},
                      {"decode s", 3},
                      {"cpu s", 3},
                      {"GB/s", 3},
                      {"GB/s/thread", 3},
                      {"GB/s/cpu-s", 3},
                      {"h", 3},
                      {"l", 3},
                      {"a", 3},
                      {"b_g1", 3},
                      {"b_g2", 3}});
  // Warm-up: the first run also pays for faulting in memory the process has never touched (on a VM
  // that can dominate: the hypervisor backs guest pages lazily). Shown, not counted.
  Buffers buf;
  {
    LoadResult w = load(path, max_threads, math::SubgroupCheck::kSkip, buf, false);
    table.row({"warm-up (cold memory)", "no", w.open_s * 1e3, w.decode_s, w.cpu_s,
               double(w.bytes) / (w.open_s + w.decode_s) / 1e9});
  }
  std::vector<math::SubgroupCheck> modes = {math::SubgroupCheck::kSkip};
  if (subgroup) modes.push_back(math::SubgroupCheck::kCheck);
  const double sec_bytes[5] = {double(s.h) * 96, double(s.l) * 96, double(s.a) * 96, double(s.b) * 96,
                               double(s.b) * 192};
  for (bool reuse : {false, true}) {
    for (auto mode : modes) {
      for (std::size_t th : thread_counts) {
        LoadResult r = load(path, th, mode, buf, reuse);
        double total = r.open_s + r.decode_s;
        double gbs = double(r.bytes) / total / 1e9;
        std::string what =
            std::string(reuse ? "decode into buffers" : "ready to prove") + ", " + std::to_string(th) + "t";
        std::vector<bench::Cell> cells = {what,
                                          mode == math::SubgroupCheck::kCheck ? "yes" : "no",
                                          r.open_s * 1e3,
                                          r.decode_s,
                                          r.cpu_s,
                                          gbs,
                                          gbs / double(th),
                                          double(r.bytes) / r.cpu_s / 1e9};
        for (int k = 0; k < 5; ++k) cells.push_back(sec_bytes[k] / r.section_s[k] / 1e9);
        table.row(cells);
      }
    }
  }
  if (prof) profile(path, fmt);
  if (!keep) {
    std::filesystem::remove(path);
    if (own_dir) std::filesystem::remove(dir);
  } else {
    bench::note(fmt, "kept %s", path.c_str());
  }
  return 0;
}
