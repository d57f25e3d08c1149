// GPU correctness check (needs a CUDA device; built but not registered with ctest, CI has no GPU).
// Prints PASS/FAIL per case and exits non-zero on any failure.
//
//   NTT: every order (NN, NR, RN), forward/inverse, plain/coset, against a CPU radix-2 reference
//        (itself checked against a naive DFT), random inputs 2^1 .. 2^24 (2^26 with --big).
//   MSM G1: bases P_i = a_i * G generated on the GPU from known a_i (checked against the CPU on a
//        sample), so the expected result is (sum k_i a_i) * G, exact at any size; random and skewed
//        scalars (all 0, all 1, 90% 0, 90% 1, all equal, all r-1, around (r-1)/2, small), repeated
//        points, points at infinity, window sizes 2..22, host-uploaded bases, the 0/1 bitmap path.
//   MSM G1 with shifted copies of the bases (2, 3, 4 copies): the copies, random and skewed scalars.
//   MSM G2: the same construction over G2 (smaller sizes).
//   Both curves at 2^22 .. 2^24 (not with --quick): random, all 0, all 1, 90% 0 / 1 / 0-or-1 scalars,
//   distinct bases and repeated ones.
//   Cross-checks against the CPU library: math::ntt / intt / coset_* and math::msm_g1 / msm_g2.
// Usage: gpu_check [--quick] [--big]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/test_random.hpp"
#include "apps/common/gpu_tuning.hpp"
#include "base/parallel.hpp"
#include "gpu/generators.hpp"
#include "gpu/gpu.hpp"
#include "math/msm/msm.hpp"
#include "math/poly/ntt.hpp"

using namespace cuzk;

namespace {
// The tuning under test: the defaults, or the CUZK_* variables (src/apps/common/gpu_tuning.hpp), so
// that a tuning variant can be checked for correctness.
gpu::MsmTuning g_msm;
gpu::NttTuning g_ntt;
gpu::MsmConfig tuned() {
  gpu::MsmConfig c;
  c.tuning = g_msm;
  return c;
}
}  // namespace
using math::Fr;

namespace {

int g_failures = 0, g_passes = 0;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void report(const std::string& name, bool ok, double ms) {
  std::printf("%-64s %s  (%.1f ms)\n", name.c_str(), ok ? "PASS" : "FAIL", ms);
  std::fflush(stdout);
  if (ok) ++g_passes;
  else ++g_failures;
}

// Runs fn, catching exceptions as failures.
void check(const std::string& name, const std::function<bool()>& fn) {
  double t0 = now_ms();
  bool ok = false;
  try {
    ok = fn();
  } catch (const std::exception& e) {
    std::printf("  exception: %s\n", e.what());
    ok = false;
  }
  report(name, ok, now_ms() - t0);
}

std::vector<Fr> random_frs(test::Rng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  // parallel generation with per-chunk seeds (the Rng is only used for the seed)
  std::uint64_t seed = rng.next();
  parallel_chunks(n, default_threads(), [&](std::size_t b, std::size_t e, std::size_t c) {
    test::Rng r(seed ^ (0x9e3779b97f4a7c15ULL * (c + 1)));
    for (std::size_t i = b; i < e; ++i) v[i] = r.fr();
  });
  return v;
}

// ---------------------------------------------------------------------------------------------
// CPU NTT reference.
std::size_t bitrev(std::size_t x, int bits) {
  std::size_t r = 0;
  for (int i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
  return r;
}
void bitrev_permute(std::vector<Fr>& a) {
  int logn = 0;
  while ((std::size_t(1) << logn) < a.size()) ++logn;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::size_t j = bitrev(i, logn);
    if (i < j) std::swap(a[i], a[j]);
  }
}
Fr root_of_order(int log) {
  Fr w = math::fr_root_of_unity();
  for (int i = log; i < 32; ++i) w = w.square();
  return w;
}
void cpu_ntt_with(std::vector<Fr>& a, const Fr& w) {
  const std::size_t n = a.size();
  if (n <= 1) return;
  bitrev_permute(a);
  for (std::size_t len = 2; len <= n; len <<= 1) {
    Fr wl = w;
    for (std::size_t m = n; m > len; m >>= 1) wl = wl.square();  // w^(n/len)
    std::vector<Fr> tw(len / 2);
    Fr x = Fr::one();
    for (auto& t : tw) {
      t = x;
      x *= wl;
    }
    const std::size_t h = len / 2;
    parallel_for(
        n / 2,
        [&](std::size_t idx) {
          std::size_t blk = idx / h, k = idx % h, i = blk * len + k;
          Fr u = a[i], v = a[i + h] * tw[k];
          a[i] = u + v;
          a[i + h] = u - v;
        },
        std::size_t(1) << 14);
  }
}
void cpu_ntt(std::vector<Fr>& a, int logn) { cpu_ntt_with(a, root_of_order(logn)); }
void cpu_intt(std::vector<Fr>& a, int logn) {
  cpu_ntt_with(a, root_of_order(logn).inverse());
  Fr ninv = Fr::from_u64(a.size()).inverse();
  parallel_for(
      a.size(), [&](std::size_t i) { a[i] *= ninv; }, std::size_t(1) << 14);
}
void scale_powers(std::vector<Fr>& a, const Fr& g) {
  std::size_t chunks = default_threads();
  parallel_chunks(a.size(), chunks, [&](std::size_t b, std::size_t e, std::size_t) {
    Fr x = g.pow(b);
    for (std::size_t i = b; i < e; ++i) {
      a[i] *= x;
      x *= g;
    }
  });
}
Fr coset_gen() { return Fr::from_u64(math::kFrMultiplicativeGenerator); }

bool naive_dft_check(test::Rng& rng, int logn) {
  std::size_t n = std::size_t(1) << logn;
  auto a = random_frs(rng, n);
  auto b = a;
  cpu_ntt(b, logn);
  Fr w = root_of_order(logn);
  for (std::size_t i = 0; i < n; ++i) {
    Fr acc = Fr::zero(), wi = w.pow(i), x = Fr::one();
    for (std::size_t j = 0; j < n; ++j) {
      acc += a[j] * x;
      x *= wi;
    }
    if (acc != b[i]) return false;
  }
  return true;
}

bool equal_vec(const std::vector<Fr>& a, const std::vector<Fr>& b, const char* what) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      std::printf("  %s: first mismatch at %zu of %zu\n", what, i, a.size());
      return false;
    }
  }
  return true;
}

void ntt_tests(gpu::NttDomain& dom, test::Rng& rng, int max_log, bool all_orders_big) {
  for (int logn = 1; logn <= max_log; ++logn) {
    if (logn > 12 && logn % 2 == 1 && logn != max_log) continue;  // 1..12, then even sizes
    const std::size_t n = std::size_t(1) << logn;
    const bool full = logn <= 16 || all_orders_big || logn == max_log;
    check("ntt 2^" + std::to_string(logn) + (full ? " (NN/NR/RN fwd+inv, coset)" : " (NN fwd+inv, coset)"), [&] {
      auto a = random_frs(rng, n);
      gpu::DeviceBuffer buf(n * sizeof(Fr));
      auto run = [&](const std::vector<Fr>& in, bool inv, gpu::NttOrder ord, bool coset) {
        buf.upload(in.data(), n * sizeof(Fr));
        if (inv) dom.inverse(buf.get(), logn, ord, coset);
        else dom.forward(buf.get(), logn, ord, coset);
        std::vector<Fr> out(n);
        buf.download(out.data(), n * sizeof(Fr));
        return out;
      };
      bool ok = true;
      // forward
      auto ref = a;
      cpu_ntt(ref, logn);
      ok &= equal_vec(run(a, false, gpu::NttOrder::kNN, false), ref, "fwd NN");
      auto ref_r = ref;
      bitrev_permute(ref_r);
      auto a_r = a;
      bitrev_permute(a_r);
      if (full) {
        ok &= equal_vec(run(a, false, gpu::NttOrder::kNR, false), ref_r, "fwd NR");
        ok &= equal_vec(run(a_r, false, gpu::NttOrder::kRN, false), ref, "fwd RN");
      }
      // inverse (of a, viewed as evaluations)
      auto iref = a;
      cpu_intt(iref, logn);
      ok &= equal_vec(run(a, true, gpu::NttOrder::kNN, false), iref, "inv NN");
      auto iref_r = iref;
      bitrev_permute(iref_r);
      if (full) {
        ok &= equal_vec(run(a, true, gpu::NttOrder::kNR, false), iref_r, "inv NR");
        ok &= equal_vec(run(a_r, true, gpu::NttOrder::kRN, false), iref, "inv RN");
      }
      // coset forward: ntt(a_j g^j)
      auto cref = a;
      scale_powers(cref, coset_gen());
      cpu_ntt(cref, logn);
      ok &= equal_vec(run(a, false, gpu::NttOrder::kNN, true), cref, "coset fwd NN");
      auto cref_r = cref;
      bitrev_permute(cref_r);
      if (full) {
        ok &= equal_vec(run(a, false, gpu::NttOrder::kNR, true), cref_r, "coset fwd NR");
        ok &= equal_vec(run(a_r, false, gpu::NttOrder::kRN, true), cref, "coset fwd RN");
      }
      // coset inverse: intt(A) * g^-j
      auto ciref = a;
      cpu_intt(ciref, logn);
      scale_powers(ciref, coset_gen().inverse());
      ok &= equal_vec(run(a, true, gpu::NttOrder::kNN, true), ciref, "coset inv NN");
      auto ciref_r = ciref;
      bitrev_permute(ciref_r);
      if (full) {
        ok &= equal_vec(run(a, true, gpu::NttOrder::kNR, true), ciref_r, "coset inv NR");
        ok &= equal_vec(run(a_r, true, gpu::NttOrder::kRN, true), ciref, "coset inv RN");
      }
      // host-span API round trip
      if (logn <= 16) {
        auto h = a;
        dom.coset_ntt(h);
        ok &= equal_vec(h, cref, "host coset_ntt");
        dom.coset_intt(h);
        ok &= equal_vec(h, a, "host coset round trip");
        dom.ntt(h);
        ok &= equal_vec(h, ref, "host ntt");
        dom.intt(h);
        ok &= equal_vec(h, a, "host round trip");
      }
      return ok;
    });
  }
}

// ---------------------------------------------------------------------------------------------
// MSM
Fr dot(const std::vector<Fr>& k, const std::vector<Fr>& a, std::size_t n) {
  std::size_t chunks = default_threads();
  std::vector<Fr> part(chunks, Fr::zero());
  parallel_chunks(n, chunks, [&](std::size_t b, std::size_t e, std::size_t c) {
    Fr acc = Fr::zero();
    for (std::size_t i = b; i < e; ++i) acc += k[i] * a[i];
    part[c] = acc;
  });
  Fr s = Fr::zero();
  for (auto& p : part) s += p;
  return s;
}
math::G1Jacobian g_times(const Fr& s) { return math::G1Jacobian::from_affine(math::g1_generator()).mul(s); }
math::G2Jacobian g2_times(const Fr& s) { return math::G2Jacobian::from_affine(math::g2_generator()).mul(s); }

// A random selection of n bases, each set with probability 1/2: its device bitmap (bit i of word
// i / 64) and the matching 0/1 scalars.
struct RandomSelection {
  gpu::DeviceBuffer bitmap;
  std::vector<Fr> scalars;
};
RandomSelection random_selection(test::Rng& rng, std::size_t n) {
  std::vector<std::uint64_t> bm((n + 63) / 64, 0);
  RandomSelection sel{gpu::DeviceBuffer(bm.size() * 8), std::vector<Fr>(n, Fr::zero())};
  for (std::size_t i = 0; i < n; ++i)
    if (rng.next() & 1) {
      bm[i / 64] |= std::uint64_t(1) << (i % 64);
      sel.scalars[i] = Fr::one();
    }
  sel.bitmap.upload(bm.data(), bm.size() * 8);
  return sel;
}

// How a fixture's bases are made (the large sizes need the fast ways): one scalar multiplication per
// base; (i + 1) G by additions (distinct bases); or `tile` bases from scalars, repeated to fill n.
enum class BaseGen { kFromScalars, kSequential, kTiled };

template <class C>
struct MsmFixtureT {
  std::vector<Fr> a;  // discrete logs of the bases
  gpu::Msm<C> ctx;
  explicit MsmFixtureT(std::vector<Fr> dl) : MsmFixtureT(std::move(dl), BaseGen::kFromScalars, 0) {}
  // kSequential: dl must be 1 .. n; kTiled: dl[i] must equal dl[i % tile]
  MsmFixtureT(std::vector<Fr> dl, BaseGen gen, std::size_t tile) : a(std::move(dl)), ctx(a.size()) {
    constexpr bool g1 = std::is_same_v<C, math::G1Curve>;
    if (gen == BaseGen::kSequential) {
      if constexpr (g1) gpu::gen_bases_sequential(ctx.device_bases(), a.size());
      else gpu::gen_g2_bases_sequential(ctx.device_bases(), a.size());
      return;
    }
    const std::size_t made = gen == BaseGen::kTiled ? std::min(tile, a.size()) : a.size();
    gpu::DeviceBuffer d(made * sizeof(Fr));
    d.upload(a.data(), made * sizeof(Fr));
    if constexpr (g1) gpu::gen_bases_from_scalars(ctx.device_bases(), d.get(), made);
    else gpu::gen_g2_bases_from_scalars(ctx.device_bases(), d.get(), made);
    gpu::device_synchronize();
    constexpr std::size_t kBytes = 2 * sizeof(math::Affine<C>{}.x);  // device layout: x, y
    auto* b = static_cast<char*>(ctx.device_bases());
    for (std::size_t have = made; have < a.size();) {  // doubling copies of the tiled prefix
      const std::size_t len = std::min(have, a.size() - have);
      if (cudaMemcpy(b + have * kBytes, b, len * kBytes, cudaMemcpyDeviceToDevice) != cudaSuccess)
        throw std::runtime_error("gpu_check: tiling the bases failed");
      have += len;
    }
  }
  static math::Jacobian<C> gen_times(const Fr& s) {
    if constexpr (std::is_same_v<C, math::G1Curve>) return g_times(s);
    else return g2_times(s);
  }
  bool run(const std::vector<Fr>& k, int c = 0) {
    gpu::MsmConfig cfg = tuned();
    cfg.window_bits = c;
    auto got = ctx.msm(std::span<const Fr>(k.data(), k.size()), cfg);
    auto want = gen_times(dot(k, a, k.size()));
    if (got != want) {
      std::printf("  msm mismatch (n = %zu, c = %d)\n", k.size(), c);
      return false;
    }
    return true;
  }
};
using MsmFixture = MsmFixtureT<math::G1Curve>;
using MsmFixture2 = MsmFixtureT<math::G2Curve>;

void msm_tests(test::Rng& rng, int max_log, bool quick) {
  const std::size_t nmax = (std::size_t(1) << max_log) + 3;
  auto dl = random_frs(rng, nmax);
  for (std::size_t i = 5; i < nmax; i += 97) dl[i] = Fr::zero();  // some points at infinity
  MsmFixture fx(dl);

  check("bases a_i*G generated on the GPU match the CPU (sample)", [&] {
    std::vector<std::size_t> idx = {0, 1, 5, 102, nmax / 2, nmax - 1};
    for (int i = 0; i < 10; ++i) idx.push_back(rng.next() % nmax);
    std::vector<math::G1Affine> host(nmax);
    gpu::download_bases(host.data(), fx.ctx.device_bases(), nmax);
    for (auto i : idx) {
      auto want = g_times(fx.a[i]).to_affine();
      if (host[i] != want) {
        std::printf("  base %zu differs\n", i);
        return false;
      }
      if (!host[i].is_on_curve()) return false;
    }
    return true;
  });

  std::vector<std::size_t> sizes = {1, 2, 3, 7, 100, 1000, 1 << 10, 1 << 12, 4099, 1 << 14, 1 << 16, 1 << 18, 1 << 20};
  for (auto n : sizes) {
    if (n > nmax) continue;
    check("msm random scalars n=" + std::to_string(n), [&] { return fx.run(random_frs(rng, n)); });
  }
  check("msm n=2^20+3 (not a power of two)", [&] { return nmax < (1u << 20) || fx.run(random_frs(rng, nmax)); });

  std::vector<std::size_t> skew_sizes =
      quick ? std::vector<std::size_t>{1 << 12} : std::vector<std::size_t>{1 << 12, 1 << 16, 1 << 20};
  const Fr minus_one = -Fr::one();
  // (r-1)/2 and neighbours: the negation threshold of the signed digits
  math::Limbs<4> half_l = math::FrParams::kModulus;
  for (int i = 0; i < 4; ++i) half_l[i] = (half_l[i] >> 1) | (i < 3 ? half_l[i + 1] << 63 : 0);
  const Fr half = Fr::from_canonical_unchecked(half_l);
  for (auto n : skew_sizes) {
    if (n > nmax) continue;
    std::string sz = " n=" + std::to_string(n);
    check("msm all zero" + sz, [&] { return fx.run(std::vector<Fr>(n, Fr::zero())); });
    check("msm all one" + sz, [&] { return fx.run(std::vector<Fr>(n, Fr::one())); });
    check("msm all r-1" + sz, [&] { return fx.run(std::vector<Fr>(n, minus_one)); });
    check("msm all equal (random k)" + sz, [&] { return fx.run(std::vector<Fr>(n, rng.fr())); });
    check("msm 90% zero" + sz, [&] {
      auto k = random_frs(rng, n);
      for (auto& x : k)
        if (rng.next() % 10) x = Fr::zero();
      return fx.run(k);
    });
    check("msm 90% one" + sz, [&] {
      auto k = random_frs(rng, n);
      for (auto& x : k)
        if (rng.next() % 10) x = Fr::one();
      return fx.run(k);
    });
    check("msm around (r-1)/2, small and 2^k scalars" + sz, [&] {
      std::vector<Fr> k(n);
      for (std::size_t i = 0; i < n; ++i) {
        switch (rng.next() % 6) {
          case 0: k[i] = half; break;
          case 1: k[i] = half + Fr::one(); break;
          case 2: k[i] = half - Fr::one(); break;
          case 3: k[i] = Fr::from_u64(rng.next() % 65536); break;
          case 4: k[i] = Fr::from_u64(2).pow(rng.next() % 255); break;
          default: k[i] = rng.fr();
        }
      }
      return fx.run(k);
    });
  }
  for (int c : {2, 3, 5, 8, 11, 13, 16, 17, 19, 20, 22}) {
    std::size_t n = c <= 3 ? 1000 : (std::size_t(1) << 14) + 17;
    check("msm window bits c=" + std::to_string(c) + " n=" + std::to_string(n),
          [&] { return fx.run(random_frs(rng, n), c); });
  }
  check("msm all equal scalars, c=16, n=2^16", [&] { return fx.run(std::vector<Fr>(1 << 16, rng.fr()), 16); });

  // repeated points
  {
    const std::size_t n = quick ? (1 << 12) : (1 << 16);
    MsmFixture rep(std::vector<Fr>(n, rng.fr()));
    check("msm repeated points, random scalars n=" + std::to_string(n), [&] { return rep.run(random_frs(rng, n)); });
    check("msm repeated points, equal scalars n=" + std::to_string(n),
          [&] { return rep.run(std::vector<Fr>(n, rng.fr())); });
    check("msm repeated points, scalars 1 n=" + std::to_string(n),
          [&] { return rep.run(std::vector<Fr>(n, Fr::one())); });
    check("msm repeated points, k and -k pairs n=" + std::to_string(n), [&] {
      auto k = random_frs(rng, n);
      for (std::size_t i = 1; i < n; i += 2) k[i] = -k[i - 1];
      return rep.run(k);
    });
  }

  // host-uploaded bases (math::G1Affine, 104-byte layout) including the point at infinity
  check("msm with host-uploaded bases n=1024", [&] {
    const std::size_t n = 1024;
    std::vector<Fr> a(n);
    std::vector<math::G1Affine> pts(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = i % 100 == 7 ? Fr::zero() : rng.fr();
      pts[i] = g_times(a[i]).to_affine();
    }
    gpu::MsmG1 ctx(std::span<const math::G1Affine>(pts.data(), n));
    std::vector<math::G1Affine> back(n);
    gpu::download_bases(back.data(), ctx.device_bases(), n);
    for (std::size_t i = 0; i < n; ++i)
      if (back[i] != pts[i]) return false;
    auto k = random_frs(rng, n);
    return ctx.msm(std::span<const Fr>(k.data(), n), tuned()) == g_times(dot(k, a, n));
  });

  // 0/1 bitmap path
  for (int mode = 0; mode < 4; ++mode) {
    // (2^16 + 5 would exceed the 2^16 + 3 bases of --quick)
    const std::size_t n = mode == 3 ? nmax : std::min(nmax, (std::size_t(1) << 16) + 5);
    const char* names[] = {"50% set", "all set", "none set", "50% set, n=2^20+3"};
    check(std::string("sum_selected (0/1 path) ") + names[mode], [&] {
      std::vector<std::uint64_t> bm((n + 63) / 64, 0);
      std::vector<Fr> k(n, Fr::zero());
      for (std::size_t i = 0; i < n; ++i) {
        bool set = mode == 1 || ((mode == 0 || mode == 3) && (rng.next() & 1));
        if (set) {
          bm[i / 64] |= std::uint64_t(1) << (i % 64);
          k[i] = Fr::one();
        }
      }
      if (n % 64) bm.back() |= ~std::uint64_t(0) << (n % 64);  // junk bits past n must be ignored
      gpu::DeviceBuffer d(bm.size() * 8);
      d.upload(bm.data(), bm.size() * 8);
      return fx.ctx.sum_selected(d.get(), n, nullptr, g_msm) == g_times(dot(k, fx.a, n));
    });
  }
}

// Shifted copies of the bases (Msm::add_shifted_copies): the copies themselves (2^(k shift) P_i,
// points at infinity included), then MSMs over every count against the known discrete logs, the
// skewed scalars among them; paths that use copy 0 only (explicit windows, the 0/1 bitmap), and
// dropping the copies again.
void msm_copies_tests(test::Rng& rng, bool quick) {
  const std::size_t n = quick ? (std::size_t(1) << 12) + 5 : (std::size_t(1) << 18) + 5;
  auto dl = random_frs(rng, n);
  for (std::size_t i = 3; i < n; i += 101) dl[i] = Fr::zero();  // points at infinity
  const Fr minus_one = -Fr::one();
  for (int copies : {2, 3, 4}) {
    MsmFixture fx(dl);
    fx.ctx.add_shifted_copies(copies);
    const std::string tag =
        " (" + std::to_string(copies) + " copies, shift " + std::to_string(fx.ctx.copy_shift()) + ")";
    check("shifted copies hold 2^(k shift) P_i (sample)" + tag, [&] {
      if (fx.ctx.copies() != copies || fx.ctx.copy_shift() * copies < 255) return false;
      const Fr two_s = Fr::from_u64(2).pow(std::uint64_t(fx.ctx.copy_shift()));
      std::vector<math::G1Affine> host(n);
      for (int k = 0; k < copies; ++k) {
        gpu::download_bases(host.data(), static_cast<const char*>(fx.ctx.device_bases()) + k * n * 96, n);
        const Fr factor = two_s.pow(std::uint64_t(k));
        for (std::size_t i : {std::size_t(0), std::size_t(3), std::size_t(104), n / 2, n - 1}) {
          if (host[i] != g_times(fx.a[i] * factor).to_affine()) {
            std::printf("  copy %d base %zu differs\n", k, i);
            return false;
          }
        }
      }
      return true;
    });
    for (std::size_t m : {std::size_t(1), std::size_t(7), std::size_t(1000), n / 3, n})
      check("msm random scalars n=" + std::to_string(m) + tag, [&] { return fx.run(random_frs(rng, m)); });
    check("msm all zero / all one / all r-1 / all equal" + tag, [&] {
      return fx.run(std::vector<Fr>(n, Fr::zero())) && fx.run(std::vector<Fr>(n, Fr::one())) &&
             fx.run(std::vector<Fr>(n, minus_one)) && fx.run(std::vector<Fr>(n, rng.fr()));
    });
    check("msm 90% zero/one, k and -k pairs, 2^k scalars" + tag, [&] {
      auto k = random_frs(rng, n);
      for (std::size_t i = 0; i < n; ++i) {
        const auto r = rng.next() % 20;
        if (r < 9) k[i] = Fr::zero();
        else if (r < 18) k[i] = Fr::one();
        else if (r == 18 && i > 0) k[i] = -k[i - 1];
        else k[i] = Fr::from_u64(2).pow(rng.next() % 255);
      }
      return fx.run(k);
    });
    check("msm explicit window c=13 (copy 0 only)" + tag, [&] { return fx.run(random_frs(rng, n / 2), 13); });
    check("sum_selected (copy 0 only)" + tag, [&] {
      const auto sel = random_selection(rng, n);
      return fx.ctx.sum_selected(sel.bitmap.get(), n, nullptr, g_msm) == g_times(dot(sel.scalars, fx.a, n));
    });
    if (copies == 4) {
      check("dropping the copies again (add_shifted_copies(1))", [&] {
        fx.ctx.add_shifted_copies(1);
        return fx.ctx.copies() == 1 && fx.ctx.copy_shift() == 255 && fx.run(random_frs(rng, n));
      });
    }
  }
  check("shifted copies refused for G2", [&] {
    MsmFixture2 g2(random_frs(rng, 16));
    try {
      g2.ctx.add_shifted_copies(2);
    } catch (const std::invalid_argument&) {
      return g2.ctx.copies() == 1;
    }
    return false;
  });
}

void msm_g2_tests(test::Rng& rng, bool quick) {
  const std::size_t nmax = quick ? (1 << 12) : (1 << 16);
  auto dl = random_frs(rng, nmax);
  for (std::size_t i = 3; i < nmax; i += 101) dl[i] = Fr::zero();
  MsmFixture2 fx(dl);
  check("g2 bases a_i*G2 generated on the GPU match the CPU (sample)", [&] {
    std::vector<math::G2Affine> host(nmax);
    gpu::download_g2_bases(host.data(), fx.ctx.device_bases(), nmax);
    for (std::size_t i : {std::size_t(0), std::size_t(3), std::size_t(77), nmax - 1}) {
      if (host[i] != g2_times(fx.a[i]).to_affine()) return false;
    }
    return true;
  });
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(1000), std::size_t(1) << 12, nmax}) {
    if (n > nmax) continue;
    check("g2 msm random scalars n=" + std::to_string(n), [&] { return fx.run(random_frs(rng, n)); });
  }
  const std::size_t n = std::min<std::size_t>(nmax, 1 << 12);
  check("g2 msm all zero n=" + std::to_string(n), [&] { return fx.run(std::vector<Fr>(n, Fr::zero())); });
  check("g2 msm all one n=" + std::to_string(n), [&] { return fx.run(std::vector<Fr>(n, Fr::one())); });
  check("g2 msm all equal n=" + std::to_string(n), [&] { return fx.run(std::vector<Fr>(n, rng.fr())); });
  check("g2 msm all r-1 n=" + std::to_string(n), [&] { return fx.run(std::vector<Fr>(n, -Fr::one())); });
  check("g2 msm 90% zero n=" + std::to_string(n), [&] {
    auto k = random_frs(rng, n);
    for (auto& x : k)
      if (rng.next() % 10) x = Fr::zero();
    return fx.run(k);
  });
  for (int c : {3, 9, 13, 16})
    check("g2 msm window bits c=" + std::to_string(c), [&] { return fx.run(random_frs(rng, 3000), c); });
  {
    MsmFixture2 rep(std::vector<Fr>(4096, rng.fr()));
    check("g2 msm repeated points, equal scalars n=4096", [&] { return rep.run(std::vector<Fr>(4096, rng.fr())); });
    check("g2 msm repeated points, random scalars n=4096", [&] { return rep.run(random_frs(rng, 4096)); });
  }
  check("g2 sequential bases (i+1)*G2 (sample)", [&] {
    const std::size_t m = 5000;
    gpu::MsmG2 ctx(m);
    gpu::gen_g2_bases_sequential(ctx.device_bases(), m);
    std::vector<math::G2Affine> host(m);
    gpu::download_g2_bases(host.data(), ctx.device_bases(), m);
    for (std::size_t i : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(32), m - 1})
      if (host[i] != g2_times(Fr::from_u64(i + 1)).to_affine()) return false;
    return true;
  });
  check("g2 msm with host-uploaded bases vs math::msm_g2, n=512", [&] {
    const std::size_t m = 512;
    std::vector<math::G2Affine> pts(m);
    for (std::size_t i = 0; i < m; ++i) pts[i] = i % 50 == 9 ? math::G2Affine::identity() : rng.g2();
    gpu::MsmG2 ctx(std::span<const math::G2Affine>(pts.data(), m));
    auto k = random_frs(rng, m);
    for (std::size_t i = 0; i < m; i += 7) k[i] = Fr::one();
    auto got = ctx.msm(std::span<const Fr>(k.data(), m), tuned());
    return got == math::msm_g2(std::span<const math::G2Affine>(pts.data(), m), std::span<const Fr>(k.data(), m));
  });
  check("g2 sum_selected (0/1 path) 50% set", [&] {
    const auto sel = random_selection(rng, n);
    return fx.ctx.sum_selected(sel.bitmap.get(), n, nullptr, g_msm) == g2_times(dot(sel.scalars, fx.a, n));
  });
}

// Agreement with the CPU library (src/math/poly/ntt, src/math/msm/msm).
void cpu_library_tests(gpu::NttDomain& dom, test::Rng& rng, int max_log) {
  for (int logn : {1, 5, 10, 13, 16, 20}) {
    if (logn > max_log) continue;
    check("ntt/intt/coset vs math::ntt library 2^" + std::to_string(logn), [&] {
      const std::size_t n = std::size_t(1) << logn;
      const auto& d = math::domain_for(unsigned(logn));
      auto a = random_frs(rng, n);
      bool ok = true;
      auto g = a, c = a;
      dom.ntt(g);
      math::ntt(d, c);
      ok &= equal_vec(g, c, "ntt");
      dom.intt(g);
      math::intt(d, c);
      ok &= equal_vec(g, c, "intt");
      dom.coset_ntt(g);
      math::coset_ntt(d, c);
      ok &= equal_vec(g, c, "coset_ntt");
      dom.coset_intt(g);
      math::coset_intt(d, c);
      ok &= equal_vec(g, c, "coset_intt");
      return ok && g == a;
    });
  }
  check("msm G1 vs math::msm_g1 (random bases, 20% 0/1 scalars) n=4096", [&] {
    const std::size_t n = 4096;
    auto dl = random_frs(rng, n);
    MsmFixture fx(dl);
    std::vector<math::G1Affine> pts(n);
    gpu::download_bases(pts.data(), fx.ctx.device_bases(), n);
    auto k = random_frs(rng, n);
    for (std::size_t i = 0; i < n; i += 5) k[i] = (i & 1) ? Fr::one() : Fr::zero();
    auto got = fx.ctx.msm(std::span<const Fr>(k.data(), n), tuned());
    return got == math::msm_g1(std::span<const math::G1Affine>(pts.data(), n), std::span<const Fr>(k.data(), n));
  });
}

// MSMs of 2^22 .. 2^24 scalars in G1 and G2 (the issue's range; the sections above stop at 2^20 and
// 2^16): distinct bases (i + 1) G and, for repeated points, 4096 random bases tiled. Exact like the
// rest: the result is (sum k_i a_i) G, computed on the CPU.
template <class C>
void msm_large_tests(test::Rng& rng, const std::string& curve, std::vector<int> logs) {
  using Fixture = MsmFixtureT<C>;
  const std::size_t n = std::size_t(1) << 24;
  auto ninety = [&](std::size_t len, int pattern) {  // 90% zero (0), one (1) or zero/one (2)
    auto k = random_frs(rng, len);
    for (auto& x : k)
      if (rng.next() % 10) x = pattern == 0 || (pattern == 2 && (rng.next() & 1)) ? Fr::zero() : Fr::one();
    return k;
  };
  {
    std::vector<Fr> seq(n);
    for (std::size_t i = 0; i < n; ++i) seq[i] = Fr::from_u64(i + 1);
    Fixture fx(std::move(seq), BaseGen::kSequential, 0);
    check(curve + " large: bases (i+1) G match the CPU (sample, as MSMs of a unit vector)", [&] {
      for (std::size_t i : {std::size_t(0), std::size_t(12345), (std::size_t(1) << 20) + 1, n - 1}) {
        std::vector<Fr> unit(i + 1, Fr::zero());
        unit[i] = Fr::one();
        if (!(fx.ctx.msm(unit, tuned()) == Fixture::gen_times(Fr::from_u64(i + 1)))) return false;
      }
      return true;
    });
    for (int log : logs)
      check(curve + " msm random scalars n=2^" + std::to_string(log),
            [&] { return fx.run(random_frs(rng, std::size_t(1) << log)); });
    const std::string sz = " n=2^24";
    check(curve + " msm all zero" + sz, [&] { return fx.run(std::vector<Fr>(n, Fr::zero())); });
    check(curve + " msm all one" + sz, [&] { return fx.run(std::vector<Fr>(n, Fr::one())); });
    check(curve + " msm 90% zero" + sz, [&] { return fx.run(ninety(n, 0)); });
    check(curve + " msm 90% one" + sz, [&] { return fx.run(ninety(n, 1)); });
    check(curve + " msm 90% zero/one" + sz, [&] { return fx.run(ninety(n, 2)); });
  }
  {
    std::vector<Fr> dl = random_frs(rng, 4096);
    dl.resize(n);
    for (std::size_t i = 4096; i < n; ++i) dl[i] = dl[i % 4096];
    Fixture rep(std::move(dl), BaseGen::kTiled, 4096);
    const std::string sz = " n=2^24";
    check(curve + " msm repeated points (4096 bases tiled), random scalars" + sz,
          [&] { return rep.run(random_frs(rng, n)); });
    check(curve + " msm repeated points, all one" + sz, [&] { return rep.run(std::vector<Fr>(n, Fr::one())); });
    check(curve + " msm repeated points, 90% zero/one" + sz, [&] { return rep.run(ninety(n, 2)); });
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, big = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--big")) big = true;
  }
  auto env = apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!env) {
    std::fprintf(stderr, "gpu_check: %s\n", env.error().c_str());
    return 2;
  }
  for (const auto& kv : env->non_default) std::printf("tuning: %s\n", kv.c_str());
  g_msm = env->tuning.msm;
  g_ntt = env->tuning.ntt;
  if (!gpu::device_available()) {
    std::printf("SKIP: no CUDA device\n");
    return 77;  // ctest's SKIP_RETURN_CODE (tests/gpu/CMakeLists.txt)
  }
  std::printf("device: %s, host threads: %zu\n", gpu::device_name().c_str(), default_threads());
  test::Rng rng(0xC0FFEE);
  double t0 = now_ms();

  check("cpu reference ntt == naive dft (2^1..2^9)", [&] {
    for (int l = 1; l <= 9; ++l)
      if (!naive_dft_check(rng, l)) return false;
    return true;
  });
  {
    const int max_log = big ? 26 : (quick ? 16 : 24);
    gpu::NttDomain dom(max_log, g_ntt);
    ntt_tests(dom, rng, max_log, false);
    cpu_library_tests(dom, rng, max_log);
  }
  msm_tests(rng, quick ? 16 : 20, quick);
  msm_copies_tests(rng, quick);
  msm_g2_tests(rng, quick);
  if (!quick) {
    msm_large_tests<math::G1Curve>(rng, "g1", {22, 24});
    msm_large_tests<math::G2Curve>(rng, "g2", {18, 20, 22, 24});
  }

  std::printf("\n%d passed, %d failed (%.1f s)\n", g_passes, g_failures, (now_ms() - t0) / 1000);
  std::printf(g_failures ? "GPU CHECK: FAIL\n" : "GPU CHECK: PASS\n");
  return g_failures ? 1 : 0;
}
