// GPU setup check (needs a CUDA device; built, not registered with ctest).
//
// 1. Fixed-base products on the GPU (gpu/fixed_base.hpp) equal the CPU multiplier's, point by point
//    and as bellperson bytes, for n = 1 .. 2^20 (G1) and 1 .. 2^18 (G2) with edge scalars (0, 1,
//    r - 1, 2^k, repeats) among random ones; also several window sizes, tiny chunks (many pipeline
//    rounds on both streams) and 1 product per thread.
// 2. Whole TEST-ONLY keys for random circuits of 2^12 .. 2^16 rows: the .params / .vk written section
//    by section with the CUDA multiplier are byte-identical to the CPU multiplier's and to
//    write_params(generate_test_key(...)).
// 3. Throughput (products/s) of G1 2^24 and 2^26 and G2 2^22 batches, a window / per-thread sweep,
//    and a 2^20-row key written with the GPU.
// Every check prints PASS or FAIL; the exit code is the number of failures (capped at 100), 2 when
// there is no device.
// Usage: gpu_setup_check [--quick] [--no-bench] [--tmp DIR]
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../common/random_shape.hpp"
#include "../common/test_random.hpp"
#include "base/parallel.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "formats/bellperson/writer.hpp"
#include "gpu/fixed_base.hpp"
#include "gpu/gpu.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/test_setup.hpp"

using namespace cuzk;
using math::Fr;
namespace bp = formats::bellperson;

namespace {

int g_failures = 0, g_passes = 0;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void report(const std::string& name, bool ok, const std::string& detail) {
  std::printf("%-64s %s  %s\n", name.c_str(), ok ? "PASS" : "FAIL", detail.c_str());
  std::fflush(stdout);
  if (ok) ++g_passes;
  else ++g_failures;
}

// Runs fn(detail) -> ok, turning exceptions into failures.
void check(const std::string& name, const std::function<bool(std::string&)>& fn) {
  std::string detail;
  bool ok = false;
  double t0 = now_s();
  try {
    ok = fn(detail);
  } catch (const std::exception& e) {
    detail = std::string("exception: ") + e.what();
  }
  char t[32];
  std::snprintf(t, sizeof t, " (%.2f s)", now_s() - t0);
  report(name, ok, detail + t);
}

// n scalars: the edge cases first (0, 1, r - 1, 2, 2^k around window and limb borders, 2^64 - 1,
// r - 2, repeats), then random ones, with every 5th random one repeating an earlier value.
std::vector<Fr> scalars(std::size_t n, std::uint64_t seed) {
  test::Rng rng(seed);
  std::vector<Fr> k = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(2)};
  for (unsigned e : {7u, 8u, 11u, 12u, 13u, 16u, 31u, 32u, 63u, 64u, 127u, 128u, 191u, 192u, 240u, 252u, 253u, 254u}) {
    k.push_back(Fr::from_u64(2).pow(std::uint64_t(e)));
  }
  k.push_back(Fr::from_u64(~0ULL));
  k.push_back(-Fr::from_u64(2));
  k.push_back(-Fr::one());
  k.push_back(Fr::zero());
  k.push_back(Fr::one());
  while (k.size() < n) k.push_back(k.size() % 5 == 0 ? k[rng.next() % k.size()] : rng.fr());
  k.resize(n);
  return k;
}

// Fast random scalars for the benchmarks (parallel splitmix64, reduced by clearing the top bits).
std::vector<Fr> bench_scalars(std::size_t n, std::uint64_t seed) {
  std::vector<Fr> k(n);
  parallel_chunks(n, default_threads(), [&](std::size_t lo, std::size_t hi, std::size_t c) {
    test::Rng rng(seed * 1000003 + c);
    for (std::size_t i = lo; i < hi; ++i) {
      math::Limbs<4> x;
      for (auto& l : x) l = rng.next();
      x[3] &= 0x3fffffffffffffffULL;
      k[i] = Fr::from_reduced(x);
    }
  });
  return k;
}

template <class C>
math::Affine<C> generator() {
  if constexpr (std::is_same_v<C, math::G1Curve>) return math::g1_generator();
  else return math::g2_generator();
}

// GPU points and bytes vs the CPU multiplier's.
template <class C>
bool compare_products(gpu::FixedBase<C>& fb, groth16::FixedBaseMultiplier& cpu, std::size_t n, std::uint64_t seed,
                      std::string& d) {
  constexpr bool kG1 = std::is_same_v<C, math::G1Curve>;
  constexpr std::size_t kBytes = gpu::FixedBase<C>::kEncodedBytes;
  auto ks = scalars(n, seed);
  std::vector<math::Affine<C>> want(n), got(n);
  if constexpr (kG1) cpu.mul_g1(ks, want);
  else cpu.mul_g2(ks, want);
  fb.mul(ks, got);
  std::size_t bad = 0, first = n, inf = 0;
  for (std::size_t i = 0; i < n; ++i) {
    inf += want[i].infinity;
    bool same = got[i] == want[i] && got[i].infinity == want[i].infinity;
    if (!same && bad++ == 0) first = i;
  }
  std::vector<std::uint8_t> wb(n * kBytes), gb(n * kBytes);
  if constexpr (kG1) cpu.mul_g1_uncompressed(ks, wb.data());
  else cpu.mul_g2_uncompressed(ks, wb.data());
  fb.mul_uncompressed(ks, gb.data());
  std::size_t bad_bytes = 0;
  for (std::size_t i = 0; i < n; ++i)
    bad_bytes += std::memcmp(wb.data() + i * kBytes, gb.data() + i * kBytes, kBytes) != 0;
  d = std::to_string(bad) + " points and " + std::to_string(bad_bytes) + " encodings differ (" + std::to_string(inf) +
      " at infinity)";
  if (bad) d += ", first at " + std::to_string(first);
  return bad == 0 && bad_bytes == 0 && (n < 1 || want[0].infinity);
}

std::vector<std::uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

double rate(std::size_t n, double s) { return s > 0 ? n / s : 0; }

template <class C>
void bench_row(const char* group, std::size_t n, const gpu::FixedBaseConfig& cfg, bool with_encoded = true) {
  auto ks = bench_scalars(n, n + 17);
  gpu::FixedBase<C> fb(generator<C>(), cfg);
  // Warm-up (allocations, first launch), then timed runs.
  std::vector<math::Affine<C>> out(n);
  fb.mul(std::span<const Fr>(ks.data(), std::min<std::size_t>(n, 1 << 16)),
         std::span<math::Affine<C>>(out.data(), std::min<std::size_t>(n, 1 << 16)));
  double t0 = now_s();
  fb.mul(ks, out);
  double t_aff = now_s() - t0;
  double t_enc = 0;
  if (with_encoded) {
    std::vector<math::Affine<C>>().swap(out);
    std::vector<std::uint8_t> bytes(n * gpu::FixedBase<C>::kEncodedBytes);
    t0 = now_s();
    fb.mul_uncompressed(ks, bytes.data());
    t_enc = now_s() - t0;
  }
  std::printf("| %-3s | 2^%-2d | %2d | %3d | %8zu | %8.3f | %10.1f M/s | %8.3f | %10.1f M/s | %7.1f |\n", group,
              int(std::log2(double(n))), fb.window_bits(), cfg.per_thread ? cfg.per_thread : 32,
              cfg.chunk ? cfg.chunk : std::size_t(1) << 22, t_aff, rate(n, t_aff) / 1e6, t_enc, rate(n, t_enc) / 1e6,
              fb.table_build_ms());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, bench = true;
  std::string tmp = std::filesystem::temp_directory_path().string();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--no-bench") bench = false;
    else if (a == "--tmp" && i + 1 < argc) tmp = argv[++i];
    else {
      std::fprintf(stderr, "usage: gpu_setup_check [--quick] [--no-bench] [--tmp DIR]\n");
      return 2;
    }
  }
  if (!gpu::device_available()) {
    std::printf("gpu_setup_check: SKIP no CUDA device\n");
    return 77;  // ctest's SKIP_RETURN_CODE (tests/gpu/CMakeLists.txt)
  }
  std::printf("device: %s; host threads: %zu\n", gpu::device_name().c_str(), default_threads());
  auto cpu = groth16::make_cpu_fixed_base_multiplier();

  // ---- 1. products ------------------------------------------------------------------------------
  {
    gpu::FixedBaseG1 g1(math::g1_generator());
    std::vector<std::size_t> sizes = {1, 2, 3, 31, 32, 33, 1000, 4097, 65543};
    if (!quick) sizes.push_back(std::size_t(1) << 20);
    for (std::size_t n : sizes) {
      check("G1 fixed-base n=" + std::to_string(n) + " (c=12)",
            [&](std::string& d) { return compare_products(g1, *cpu, n, n * 3 + 1, d); });
    }
    for (int c : {4, 8, 13, 16}) {
      check("G1 fixed-base n=20000 c=" + std::to_string(c), [&](std::string& d) {
        gpu::FixedBaseG1 fb(math::g1_generator(), {.window_bits = c});
        return compare_products(fb, *cpu, 20000, 100 + c, d);
      });
    }
    check("G1 fixed-base n=65543 chunk=1000 per_thread=7 (66 pipeline rounds)", [&](std::string& d) {
      gpu::FixedBaseG1 fb(math::g1_generator(), {.window_bits = 10, .chunk = 1000, .per_thread = 7});
      return compare_products(fb, *cpu, 65543, 7, d);
    });
    check("G1 fixed-base n=5000 per_thread=1 chunk=333", [&](std::string& d) {
      gpu::FixedBaseG1 fb(math::g1_generator(), {.chunk = 333, .per_thread = 1});
      return compare_products(fb, *cpu, 5000, 8, d);
    });
    check("G1 fixed-base n=0 (no work)", [&](std::string& d) {
      std::vector<Fr> none;
      std::vector<math::G1Affine> out;
      g1.mul(none, out);
      g1.mul_uncompressed(none, nullptr);
      return true;
    });
  }
  {
    gpu::FixedBaseG2 g2(math::g2_generator());
    std::vector<std::size_t> sizes = {1, 2, 33, 1000, 65537};
    if (!quick) sizes.push_back(std::size_t(1) << 18);
    for (std::size_t n : sizes) {
      check("G2 fixed-base n=" + std::to_string(n) + " (c=12)",
            [&](std::string& d) { return compare_products(g2, *cpu, n, n * 5 + 2, d); });
    }
    check("G2 fixed-base n=9000 c=8 chunk=700 per_thread=5", [&](std::string& d) {
      gpu::FixedBaseG2 fb(math::g2_generator(), {.window_bits = 8, .chunk = 700, .per_thread = 5});
      return compare_products(fb, *cpu, 9000, 9, d);
    });
  }
  check("multiplier interface: vk elements equal the CPU's", [&](std::string& d) {
    auto cuda = gpu::make_cuda_fixed_base_multiplier();
    auto t = groth16::ToxicWaste::from_seed(99);
    auto a = groth16::test_vk_elements(t, *cuda), b = groth16::test_vk_elements(t, *cpu);
    d = cuda->name();
    return a.alpha_g1 == b.alpha_g1 && a.beta_g1 == b.beta_g1 && a.delta_g1 == b.delta_g1 && a.beta_g2 == b.beta_g2 &&
           a.gamma_g2 == b.gamma_g2 && a.delta_g2 == b.delta_g2;
  });

  // ---- 2. whole keys ----------------------------------------------------------------------------
  const std::string dir = tmp + "/cuzk_gpu_setup_check_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  auto cuda = gpu::make_cuda_fixed_base_multiplier({.chunk = 5000});  // several slices per section too
  for (int log_rows : quick ? std::vector<int>{12, 14} : std::vector<int>{12, 14, 16}) {
    check("key 2^" + std::to_string(log_rows) + " rows: GPU .params/.vk == CPU, == write_params(generate_test_key)",
          [&](std::string& d) {
            const std::uint32_t inputs = 5, aux = (1u << log_rows) - 100;
            auto shape = test::random_shape((std::size_t(1) << log_rows) - inputs, inputs, aux, 1000 + log_rows);
            auto toxic = groth16::ToxicWaste::from_seed(log_rows);
            const std::string g = dir + "/gpu", c = dir + "/cpu", m = dir + "/mem";
            bp::TestParamsReport rg, rc;
            auto s1 = bp::write_test_params(shape, toxic, g + ".params", g + ".vk",
                                            {.multiplier = cuda.get(), .chunk = 3000}, &rg);
            if (!s1) return d = "gpu: " + s1.error(), false;
            auto s2 = bp::write_test_params(shape, toxic, c + ".params", c + ".vk", {.multiplier = cpu.get()}, &rc);
            if (!s2) return d = "cpu: " + s2.error(), false;
            bool same = slurp(g + ".params") == slurp(c + ".params") && slurp(g + ".vk") == slurp(c + ".vk");
            bool mem_same = true;
            if (log_rows == 12) {
              auto pk =
                  groth16::generate_test_key(shape, groth16::HBasis::kMonomialOverZ, toxic, {.multiplier = cuda.get()});
              if (!pk) return d = pk.error(), false;
              if (auto st = bp::write_params(m + ".params", *pk); !st) return d = st.error(), false;
              mem_same = slurp(m + ".params") == slurp(g + ".params");
            }
            auto back = bp::load_proving_key(g + ".params", shape);
            char buf[200];
            std::snprintf(buf, sizeof buf, "%zu bytes; gpu %.2f s, cpu %.2f s; in-memory %s; loads back: %s",
                          slurp(g + ".params").size(), rg.total_s, rc.total_s, mem_same ? "same" : "DIFFERENT",
                          back ? "yes" : back.error().c_str());
            d = buf;
            return same && mem_same && back.ok();
          });
  }

  // ---- 3. throughput ----------------------------------------------------------------------------
  if (bench) {
    std::printf(
        "\n| grp | n    |  c | K   | chunk    | affine s | affine rate    | bytes s  | bytes rate     | table ms |\n");
    std::printf(
        "|-----|------|----|-----|----------|----------|----------------|----------|----------------|---------|\n");
    try {
      bench_row<math::G1Curve>("G1", std::size_t(1) << 24, {});
      if (!quick) bench_row<math::G1Curve>("G1", std::size_t(1) << 26, {});
      bench_row<math::G2Curve>("G2", std::size_t(1) << 22, {});
      for (int c : {8, 10, 14, 16}) bench_row<math::G1Curve>("G1", std::size_t(1) << 24, {.window_bits = c}, false);
      // per_thread = 1: a Fermat inversion per point (no shared inversion), for comparison.
      for (int k : {1, 8, 16, 64}) bench_row<math::G1Curve>("G1", std::size_t(1) << 24, {.per_thread = k}, false);
      bench_row<math::G1Curve>("G1", std::size_t(1) << 24, {.chunk = std::size_t(1) << 20}, false);
      bench_row<math::G1Curve>("G1", std::size_t(1) << 24, {.chunk = std::size_t(1) << 24}, false);
      for (int c : {10, 14}) bench_row<math::G2Curve>("G2", std::size_t(1) << 22, {.window_bits = c}, false);
      // A whole key through the streaming writer on the GPU.
      auto shape = test::random_shape((std::size_t(1) << 20) - 8, 8, (1u << 20) - 64, 4242);
      auto mul = gpu::make_cuda_fixed_base_multiplier();
      bp::TestParamsReport rep;
      auto st = bp::write_test_params(shape, groth16::ToxicWaste::from_seed(1), dir + "/big.params", dir + "/big.vk",
                                      {.multiplier = mul.get()}, &rep);
      std::printf(
          "\nkey 2^20 rows via the streaming writer (GPU): %s; total %.2f s (lagrange %.2f, accumulate %.2f, "
          "combine %.2f, disk waits %.2f)\n",
          st ? "ok" : st.error().c_str(), rep.total_s, rep.lagrange_s, rep.accumulate_s, rep.combine_s,
          rep.write_wait_s);
      for (auto& s : rep.sections) {
        std::printf("  %-5s %9zu points: scalars %.3f s, multiply+encode %.3f s (%.1f M/s)\n", s.name.c_str(), s.points,
                    s.scalars_s, s.mul_s, rate(s.points, s.mul_s) / 1e6);
      }
    } catch (const std::exception& e) {
      report("benchmarks", false, std::string("exception: ") + e.what());
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  std::printf("\nGPU SETUP CHECK: %d passed, %d failed\n", g_passes, g_failures);
  return g_failures ? std::min(g_failures, 100) : 0;
}
