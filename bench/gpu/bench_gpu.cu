// GPU benchmark: field multiplication rate, NTT 2^20..2^28, G1 MSM 2^20..2^27, G2 MSM 2^20..2^24 and
// the 0/1 path (bitmaps with 50% and 25% of the bits set),
// printed as one table with supranational/sppark's H200 figures (docs/reference/gpu-anchors.md)
// beside. All data stays on the device: NTT inputs and MSM scalars are random Fr made on the GPU;
// MSM bases are P_i = (i+1) G made on the GPU (distinct points, checked against the CPU on a sample,
// and the MSM result at 2^20 is checked exactly); base generation and upload are not timed.
// Times are medians of CUDA-event-timed runs after one warm-up.
//
// G1 MSM with shifted copies of the bases (Msm::add_shifted_copies) at 2^24, 2^26 and 2^27: each
// result is compared with the plain MSM's on the same scalars; the copies' precomputation is timed
// apart.
//
// Tuning: the CUZK_* variables (src/apps/common/gpu_tuning.hpp) set the base tuning; the sweeps
// below vary fields of it (MsmTuning, NttTuning) in this process.
//
// Usage: bench_gpu [--max-ntt L] [--max-msm L] [--max-g2 L] [--no-sweep] [--reps R] [--copies 2,3]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/gpu_tuning.hpp"
#include "../harness.hpp"
#include "base/parallel.hpp"
#include "gpu/cuda_util.cuh"
#include "gpu/generators.hpp"
#include "gpu/gpu.hpp"

using namespace cuzk;
using cuzk::gpu::Fp;
using cuzk::gpu::Fp2;
using cuzk::gpu::Fr;

namespace {

float time_ms(const std::function<void()>& fn, int reps) {
  cudaEvent_t a, b;
  CUZK_CUDA(cudaEventCreate(&a));
  CUZK_CUDA(cudaEventCreate(&b));
  fn();  // warm-up
  CUZK_CUDA(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CUZK_CUDA(cudaEventRecord(a));
    fn();
    CUZK_CUDA(cudaEventRecord(b));
    CUZK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Op: 0 multiplication, 1 squaring, 2 a*b - c*d (one reduction), counted as one operation each.
template <class F, int Op>
__global__ void mul_rate_kernel(F* out, int iters) {
  F x = F::one(), y = F::one(), z = F::one();
  x.v[0] ^= threadIdx.x;
  y.v[1] ^= blockIdx.x;
  z.v[2] ^= threadIdx.x * 7;
  for (int i = 0; i < iters; ++i) {
    if constexpr (Op == 0) {
      x = x * y;
      z = z * y;
    } else if constexpr (Op == 1) {
      x = x.sqr();
      z = z.sqr();
    } else {
      x = F::mul_sub(x, y, z, y);
      z = F::mul_sub(z, y, x, y);
    }
  }
  if ((x.v[0] ^ z.v[0]) == 0x12345678u) out[0] = x;  // keep the chains alive
}

template <class F, int Op = 0>
double mul_rate(int sms) {
  F* out;
  CUZK_CUDA(cudaMalloc(&out, sizeof(F)));
  const int blocks = sms * 8, threads = 256, iters = 2048;
  float ms = time_ms([&] { mul_rate_kernel<F, Op><<<blocks, threads>>>(out, iters); }, 3);
  CUZK_CUDA(cudaFree(out));
  return double(blocks) * threads * iters * 2 / (ms * 1e-3);
}

// Latency of one inversion on one thread (the top of a batched inversion, once per batch-affine
// round): `iters` chained inversions, binary extended Euclid (inverse) or Fermat (inverse_fermat).
template <class F, bool kFermat>
__global__ void inverse_chain_kernel(F* out, int iters) {
  F x = F::one() + F::one();
  for (int i = 0; i < iters; ++i) x = (kFermat ? x.inverse_fermat() : x.inverse()) + F::one();
  out[0] = x;
}
template <class F, bool kFermat>
double inverse_us() {
  F* out;
  CUZK_CUDA(cudaMalloc(&out, sizeof(F)));
  const int iters = 20;
  float ms = time_ms([&] { inverse_chain_kernel<F, kFermat><<<1, 1>>>(out, iters); }, 3);
  CUZK_CUDA(cudaFree(out));
  return ms * 1e3 / iters;
}

// A/B for the Montgomery factor: the same fields with -p^-1 mod 2^32 as a compile-time constant
// (field.cuh reads it from constant memory; see there).
struct FpParamsImm : gpu::FpParams32 {
  __device__ static gpu::u32 m0() { return kM0; }
};
struct FrParamsImm : gpu::FrParams32 {
  __device__ static gpu::u32 m0() { return kM0; }
};

// Fp2 multiplications per second (out of line, lazy reduction).
__global__ void fp2_mul_rate_kernel(Fp2* out, int iters) {
  Fp2 x = Fp2::one(), y = Fp2::one();
  x.c0.v[0] ^= threadIdx.x;
  y.c1.v[1] ^= blockIdx.x;
  for (int i = 0; i < iters; ++i) x = x * y;
  if (x.c0.v[0] == 0x12345678u) out[0] = x;
}
double fp2_mul_rate(int sms) {
  Fp2* out;
  CUZK_CUDA(cudaMalloc(&out, sizeof(Fp2)));
  const int blocks = sms * 8, threads = 256, iters = 512;
  float ms = time_ms([&] { fp2_mul_rate_kernel<<<blocks, threads>>>(out, iters); }, 3);
  CUZK_CUDA(cudaFree(out));
  return double(blocks) * threads * iters / (ms * 1e-3);
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  int max_ntt = 28, max_msm = 27, max_g2 = 24, reps = 5;
  bool sweep = true;
  std::string copies = "2,3";  // G1 MSM with shifted copies of the bases (0: none)
  cuzk::bench::Cli cli("bench_gpu", "NTT, G1/G2 MSM and 0/1-path timings on the GPU, with sppark's anchors");
  cli.option("--max-ntt", max_ntt, "LOG", "largest NTT size", 1, 28)
      .option("--max-msm", max_msm, "LOG", "largest G1 MSM size", 1, 28)
      .option("--max-g2", max_g2, "LOG", "largest G2 MSM size", 1, 26)
      .option("--reps", reps, "N", "timed runs per size", 1, 1000)
      .flag("--no-sweep", sweep, "skip the tuning sweeps", false)
      .option("--copies", copies, "K,K", "G1 MSM copy counts to time, each 2..8 (0: none)");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  std::vector<int> copy_counts;
  {
    std::stringstream list(copies);
    for (std::string item; std::getline(list, item, ',');) {
      const int k = std::atoi(item.c_str());
      if (k < 0 || k > 8) {
        std::fprintf(stderr, "bench_gpu: --copies: a list of copy counts in [2, 8] (0: none), got %s\n", item.c_str());
        return 2;
      }
      if (k > 1) copy_counts.push_back(k);
    }
  }
  auto env = cuzk::apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!env) {
    std::fprintf(stderr, "bench_gpu: %s\n", env.error().c_str());
    return 2;
  }
  for (const auto& kv : env->non_default) std::printf("tuning: %s\n", kv.c_str());
  const gpu::MsmTuning base_msm = env->tuning.msm;
  const gpu::NttTuning base_ntt = env->tuning.ntt;
  gpu::MsmConfig base_cfg;  // default windows, the base tuning
  base_cfg.tuning = base_msm;
  if (!gpu::device_available()) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CUZK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              double(prop.totalGlobalMem) / (1 << 30));

  // --- field multiplication rate ---
  std::printf("one-thread inversion: Fp %.1f us (Fermat %.1f), Fp2 %.1f us (Fermat %.1f), Fr %.1f us (Fermat %.1f)\n",
              inverse_us<Fp, false>(), inverse_us<Fp, true>(), inverse_us<Fp2, false>(), inverse_us<Fp2, true>(),
              inverse_us<Fr, false>(), inverse_us<Fr, true>());
  double fp_rate = mul_rate<Fp>(prop.multiProcessorCount);
  double fr_rate = mul_rate<Fr>(prop.multiProcessorCount);
  std::printf("Fp mul %.3g /s, Fr mul %.3g /s\n", fp_rate, fr_rate);
  std::printf("Fp sqr %.3g /s, Fp mul_sub %.3g /s, Fr sqr %.3g /s, Fp2 mul %.3g /s (sppark Fp2 ~0.86e10)\n",
              mul_rate<Fp, 1>(prop.multiProcessorCount), mul_rate<Fp, 2>(prop.multiProcessorCount),
              mul_rate<Fr, 1>(prop.multiProcessorCount), fp2_mul_rate(prop.multiProcessorCount));
  std::printf("Montgomery factor as an immediate: Fp mul %.3g /s, Fr mul %.3g /s\n",
              mul_rate<gpu::FieldT<FpParamsImm>>(prop.multiProcessorCount),
              mul_rate<gpu::FieldT<FrParamsImm>>(prop.multiProcessorCount));
  std::fflush(stdout);

  // --- NTT ---
  std::map<int, std::vector<double>> anchors_ntt = {// iNTT NR, coset NTT RN, coset iNTT NN (sppark, H200)
                                                    {24, {4.69, 5.01, 5.59}},
                                                    {25, {9.94, 10.55, 11.83}},
                                                    {26, {21.98, 24.92, 27.23}},
                                                    {27, {44.49, 46.48, 51.77}},
                                                    {28, {97.36, 108.47, 117.72}}};
  struct NttRow {
    int logn;
    float fwd_nn, fwd_nr, inv_nr, coset_rn, coset_inv_nn;
  };
  std::vector<NttRow> ntt_rows;
  if (max_ntt >= 20) {
    double t0 = now_s();
    gpu::NttDomain dom(max_ntt, base_ntt);
    std::printf("NTT domain 2^%d twiddles built in %.2f s\n", max_ntt, now_s() - t0);
    gpu::DeviceBuffer buf((std::size_t(1) << max_ntt) * sizeof(Fr));
    gpu::gen_random_scalars(buf.get(), std::size_t(1) << max_ntt, 42);
    for (int l = 20; l <= max_ntt; ++l) {
      int r = l >= 27 ? std::max(3, reps - 2) : reps;
      NttRow row{l, 0, 0, 0, 0, 0};
      row.fwd_nn = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kNN); }, r);
      row.fwd_nr = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kNR); }, r);
      row.inv_nr = time_ms([&] { dom.inverse(buf.get(), l, gpu::NttOrder::kNR); }, r);
      row.coset_rn = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kRN, true); }, r);
      row.coset_inv_nn = time_ms([&] { dom.inverse(buf.get(), l, gpu::NttOrder::kNN, true); }, r);
      ntt_rows.push_back(row);
      if (l >= 24 && l <= 27) {  // pass-kernel shapes x elements per block (default: shape 0, 1024)
        for (int sh = 0; sh < gpu::NttDomain::shape_count(); ++sh) {
          for (const char* e : {"512", "1024", "2048"}) {
            if (sh == 0 && !std::strcmp(e, "1024")) continue;
            gpu::NttTuning nt = base_ntt;
            nt.shape = sh;
            nt.elems_per_block = std::atoi(e);
            dom.set_tuning(nt);
            float f = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kNR); }, r);
            float iv = time_ms([&] { dom.inverse(buf.get(), l, gpu::NttOrder::kNR); }, r);
            float cs = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kRN, true); }, r);
            dom.set_tuning(base_ntt);
            std::printf("ntt 2^%d variant shape=%d elems=%s: fwd NR %.2f  inv NR %.2f  coset RN %.2f ms\n", l, sh, e, f,
                        iv, cs);
          }
        }
      }
      // pass plans to try (tuning): CUZK_BENCH_NTT_PLANS="9,9,9 11,8,8 ..."; those adding up to l run
      if (const char* plans = std::getenv("CUZK_BENCH_NTT_PLANS")) {
        std::stringstream ps(plans);
        std::string plan;
        while (ps >> plan) {
          int sum = 0;
          gpu::NttTuning nt = base_ntt;
          nt.plan.clear();
          for (std::size_t p0 = 0; p0 < plan.size();) {
            std::size_t p1 = plan.find(',', p0);
            nt.plan.push_back(std::atoi(plan.substr(p0, p1 - p0).c_str()));
            sum += nt.plan.back();
            p0 = p1 == std::string::npos ? plan.size() : p1 + 1;
          }
          if (sum != l) continue;
          dom.set_tuning(nt);
          float f = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kNR); }, r);
          float iv = time_ms([&] { dom.inverse(buf.get(), l, gpu::NttOrder::kNR); }, r);
          float cs = time_ms([&] { dom.forward(buf.get(), l, gpu::NttOrder::kRN, true); }, r);
          dom.set_tuning(base_ntt);
          std::printf("ntt 2^%d variant plan=%s: fwd NR %.2f  inv NR %.2f  coset RN %.2f ms\n", l, plan.c_str(), f, iv,
                      cs);
        }
      }
      std::printf("ntt 2^%d: fwd NN %.2f  fwd NR %.2f  inv NR %.2f  coset RN %.2f  coset inv NN %.2f ms\n", l,
                  row.fwd_nn, row.fwd_nr, row.inv_nr, row.coset_rn, row.coset_inv_nn);
      std::fflush(stdout);
    }
  }

  // --- MSM G1 ---
  struct MsmRow {
    int logn;
    float ms;
    int c;
  };
  std::vector<MsmRow> msm_rows;
  std::map<int, double> anchors_msm = {{20, 20.0},  {21, 32.8},  {22, 52.3},  {23, 87.5},
                                       {24, 153.1}, {25, 284.3}, {26, 542.8}, {27, 1025.6}};
  std::vector<std::pair<int, float>> sweep_rows;
  struct CopyRow {
    int logn, copies, shift = 0;
    float ms = 0, plain_ms = 0, precompute_s = 0;
    bool same = false;
    gpu::MsmProfile prof{};
  };
  std::vector<CopyRow> copy_rows;
  bool copies_ok = true;
  gpu::MsmProfile prof26{};
  float sel_ms = 0, sel25_ms = 0, gen_s = 0;
  bool msm_ok = true, bases_ok = true;
  if (max_msm >= 20) {
    const std::size_t nmax = std::size_t(1) << max_msm;
    gpu::MsmG1 ctx(nmax);
    double t0 = now_s();
    gpu::gen_bases_sequential(ctx.device_bases(), nmax);
    gen_s = float(now_s() - t0);
    std::printf("generated 2^%d bases (i+1)G on the GPU in %.2f s\n", max_msm, gen_s);
    {  // sample check against the CPU
      std::vector<std::size_t> idx = {0, 1, 2, 12345, nmax / 3, nmax - 2, nmax - 1};
      const auto g = math::G1Jacobian::from_affine(math::g1_generator());
      for (auto i : idx) {
        math::G1Affine h;
        gpu::download_bases(&h, static_cast<const char*>(ctx.device_bases()) + i * 96, 1);
        if (h != g.mul(math::Fr::from_u64(i + 1)).to_affine()) bases_ok = false;
      }
      std::printf("base sample check: %s\n", bases_ok ? "ok" : "MISMATCH");
    }
    gpu::DeviceBuffer sc(nmax * sizeof(Fr));
    gpu::gen_random_scalars(sc.get(), nmax, 7);
    {  // exact check at 2^20: sum k_i (i+1) G
      const std::size_t n = std::size_t(1) << 20;
      std::vector<math::Fr> k(n);
      sc.download(k.data(), n * sizeof(Fr));
      math::Fr s = math::Fr::zero();
      for (std::size_t i = 0; i < n; ++i) s += k[i] * math::Fr::from_u64(i + 1);
      auto want = math::G1Jacobian::from_affine(math::g1_generator()).mul(s);
      auto got = ctx.msm_device(sc.get(), n, base_cfg);
      msm_ok = got == want;
      std::printf("msm 2^20 exact check: %s\n", msm_ok ? "ok" : "MISMATCH");
    }
    for (int l = 20; l <= max_msm; ++l) {
      int r = l >= 26 ? 2 : std::max(3, reps);
      gpu::MsmConfig cfg = base_cfg;
      float ms = time_ms([&] { ctx.msm_device(sc.get(), std::size_t(1) << l, cfg); }, r);
      msm_rows.push_back({l, ms, ctx.last_profile().window_bits});
      std::printf("msm 2^%d: %.1f ms (c=%d)\n", l, ms, msm_rows.back().c);
      std::fflush(stdout);
    }
    if (max_msm >= 26) {
      gpu::MsmConfig cfg = base_cfg;
      cfg.profile = true;
      ctx.msm_device(sc.get(), std::size_t(1) << 26, cfg);
      prof26 = ctx.last_profile();
      std::printf("2^26 profile: digits %.1f  sort %.1f  accumulate %.1f  reduce %.1f  total %.1f ms (c=%d)\n",
                  prof26.digits_ms, prof26.sort_ms, prof26.accumulate_ms, prof26.reduce_ms, prof26.total_ms,
                  prof26.window_bits);
    }
    if (sweep && max_msm >= 27) {
      for (int c : {20, 21, 23}) {
        gpu::MsmConfig cfg = base_cfg;
        cfg.window_bits = c;
        float ms = time_ms([&] { ctx.msm_device(sc.get(), std::size_t(1) << 27, cfg); }, 1);
        std::printf("sweep 2^27 c=%d: %.1f ms\n", c, ms);
        std::fflush(stdout);
      }
    }
    if (sweep) {
      const int ls = std::min(max_msm, 26);
      for (int c : {16, 17, 18, 19, 20, 21, 22}) {
        gpu::MsmConfig cfg = base_cfg;
        cfg.window_bits = c;
        float ms = time_ms([&] { ctx.msm_device(sc.get(), std::size_t(1) << ls, cfg); }, 1);
        sweep_rows.push_back({c, ms});
        std::printf("sweep 2^%d c=%d: %.1f ms\n", ls, c, ms);
        std::fflush(stdout);
      }
    }
    if (sweep) {  // kernel-shape variants of the accumulation (MsmTuning::occ, ::seg)
      const int ls = std::min(max_msm, 26);
      const std::pair<int, int> variants[] = {{3, 128}, {2, 128}, {4, 128}, {3, 64}, {3, 256}};
      for (auto [occ, seg] : variants) {
        gpu::MsmConfig cfg = base_cfg;
        cfg.tuning.occ = occ;
        cfg.tuning.seg = seg;
        cfg.profile = true;
        float ms = time_ms([&] { ctx.msm_device(sc.get(), std::size_t(1) << ls, cfg); }, 1);
        auto p = ctx.last_profile();
        std::printf("variant 2^%d occ=%d seg=%d: %.1f ms (accumulate %.1f, reduce %.1f, sort %.1f)\n", ls, occ, seg, ms,
                    p.accumulate_ms, p.reduce_ms, p.sort_ms);
        std::fflush(stdout);
      }
    }
    // shifted copies: one Msm per size, since the shift is chosen for its base count
    ctx.release_workspace();
    for (int K : copy_counts) {
      for (int l : {24, 26, 27}) {
        if (l > max_msm) continue;
        const std::size_t n = std::size_t(1) << l;
        CopyRow row{l, K};
        gpu::MsmG1 cx(n);
        gpu::gen_bases_sequential(cx.device_bases(), n);
        gpu::device_synchronize();
        const double t1 = now_s();
        cx.add_shifted_copies(K);
        row.precompute_s = float(now_s() - t1);
        row.shift = cx.copy_shift();
        row.same = cx.msm_device(sc.get(), n, base_cfg) == ctx.msm_device(sc.get(), n, base_cfg);
        ctx.release_workspace();
        copies_ok &= row.same;
        gpu::MsmConfig cfg = base_cfg;
        row.ms = time_ms([&] { cx.msm_device(sc.get(), n, cfg); }, l >= 26 ? 3 : std::max(3, reps));
        cfg.profile = true;
        cx.msm_device(sc.get(), n, cfg);
        row.prof = cx.last_profile();
        for (auto& r : msm_rows)
          if (r.logn == l) row.plain_ms = r.ms;
        std::printf(
            "msm 2^%d, %d copies (shift %d, %d windows from c=%d): %.1f ms (plain %.1f), precompute %.2f s, "
            "same result as plain: %s; digits %.1f sort %.1f accumulate %.1f reduce %.1f\n",
            l, K, row.shift, row.prof.windows, row.prof.window_bits, row.ms, row.plain_ms, row.precompute_s,
            row.same ? "yes" : "NO", row.prof.digits_ms, row.prof.sort_ms, row.prof.accumulate_ms, row.prof.reduce_ms);
        std::fflush(stdout);
        copy_rows.push_back(row);
      }
    }
    {  // 0/1 path, ~50% of bits set
      std::vector<std::uint64_t> bm(nmax / 64);
      std::uint64_t x = 0x1234567;
      for (auto& w : bm) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        w = x;
      }
      gpu::DeviceBuffer dbm(bm.size() * 8);
      dbm.upload(bm.data(), bm.size() * 8);
      sel_ms = time_ms([&] { ctx.sum_selected(dbm.get(), nmax, nullptr, base_msm); }, 3);
      std::printf("sum_selected 2^%d (50%%): %.1f ms\n", max_msm, sel_ms);
      {  // ~25% set: each word ANDed with the next random one
        std::vector<std::uint64_t> q(bm);
        for (auto& w : q) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          w &= x;
        }
        gpu::DeviceBuffer dq(q.size() * 8);
        dq.upload(q.data(), q.size() * 8);
        sel25_ms = time_ms([&] { ctx.sum_selected(dq.get(), nmax, nullptr, base_msm); }, 3);
        std::printf("sum_selected 2^%d (25%%): %.1f ms\n", max_msm, sel25_ms);
      }
      for (const char* per : {"256", "1024"}) {
        gpu::MsmTuning t = base_msm;
        t.sel_per = std::atoi(per);
        float v = time_ms([&] { ctx.sum_selected(dbm.get(), nmax, nullptr, t); }, 2);
        std::printf("variant sum_selected per=%s: %.1f ms\n", per, v);
      }
      for (const char* occ : {"2", "3", "4"}) {  // register budget of the kernel (blocks of 128 per SM)
        for (const char* per : {"64", "256"}) {
          gpu::MsmTuning t = base_msm;
          t.sel_occ = std::atoi(occ);
          t.sel_per = std::atoi(per);
          float v = time_ms([&] { ctx.sum_selected(dbm.get(), nmax, nullptr, t); }, 2);
          std::printf("variant sum_selected occ=%s per=%s: %.1f ms\n", occ, per, v);
        }
      }
    }
  }

  // --- MSM G2 ---
  std::map<int, double> anchors_g2 = {{20, 47.5}, {21, 80.2}, {22, 137.1}, {23, 238.9}, {24, 445.7}};
  std::vector<MsmRow> g2_rows;
  float g2_sel_ms = 0;
  bool g2_ok = true;
  if (max_g2 >= 20) {
    const std::size_t nmax = std::size_t(1) << max_g2;
    gpu::MsmG2 ctx(nmax);
    double t0 = now_s();
    gpu::gen_g2_bases_sequential(ctx.device_bases(), nmax);
    std::printf("generated 2^%d G2 bases (i+1)G2 on the GPU in %.2f s\n", max_g2, now_s() - t0);
    gpu::DeviceBuffer sc(nmax * sizeof(Fr));
    gpu::gen_random_scalars(sc.get(), nmax, 9);
    {  // exact check at 2^16: sum k_i (i+1) G2
      const std::size_t n = std::size_t(1) << 16;
      std::vector<math::Fr> k(n);
      sc.download(k.data(), n * sizeof(Fr));
      math::Fr s = math::Fr::zero();
      for (std::size_t i = 0; i < n; ++i) s += k[i] * math::Fr::from_u64(i + 1);
      g2_ok = ctx.msm_device(sc.get(), n, base_cfg) == math::G2Jacobian::from_affine(math::g2_generator()).mul(s);
      std::printf("g2 msm 2^16 exact check: %s\n", g2_ok ? "ok" : "MISMATCH");
    }
    for (int l = 20; l <= max_g2; ++l) {
      gpu::MsmConfig cfg = base_cfg;
      float ms = time_ms([&] { ctx.msm_device(sc.get(), std::size_t(1) << l, cfg); }, l >= 24 ? 2 : 3);
      g2_rows.push_back({l, ms, ctx.last_profile().window_bits});
      std::printf("g2 msm 2^%d: %.1f ms\n", l, ms);
      std::fflush(stdout);
    }
    for (std::size_t n :
         {std::size_t(1) << 21, std::size_t(3300000), std::size_t(1) << 22}) {  // window cap (B2 tail ~3.3M)
      if (n > nmax) continue;
      for (const char* cmax : {"15", "16", "17"}) {
        gpu::MsmConfig cfg = base_cfg;
        cfg.tuning.g2_cmax = std::atoi(cmax);
        float ms = time_ms([&] { ctx.msm_device(sc.get(), n, cfg); }, 3);
        std::printf("variant g2 msm n=%zu cmax=%s: %.1f ms (c=%d)\n", n, cmax, ms, ctx.last_profile().window_bits);
        std::fflush(stdout);
      }
    }
    {
      gpu::MsmConfig cfg = base_cfg;
      cfg.profile = true;
      ctx.msm_device(sc.get(), nmax, cfg);
      auto p = ctx.last_profile();
      std::printf("g2 2^%d profile: digits %.1f  sort %.1f  accumulate %.1f  reduce %.1f  total %.1f ms (c=%d)\n",
                  max_g2, p.digits_ms, p.sort_ms, p.accumulate_ms, p.reduce_ms, p.total_ms, p.window_bits);
    }
    {
      std::vector<std::uint64_t> bm(nmax / 64);
      std::uint64_t x = 0x7654321;
      for (auto& w : bm) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        w = x;
      }
      gpu::DeviceBuffer dbm(bm.size() * 8);
      dbm.upload(bm.data(), bm.size() * 8);
      g2_sel_ms = time_ms([&] { ctx.sum_selected(dbm.get(), nmax, nullptr, base_msm); }, 3);
    }
  }

  // --- table ---
  std::printf("\n==== cuzk GPU results (%s) vs sppark@17278d74 on H200 (gpu-anchors.md) ====\n", prop.name);
  std::printf("field mul rate: Fp %.3g/s (sppark 2.75e10), Fr %.3g/s (sppark 5.94e10)\n", fp_rate, fr_rate);
  std::printf("%-8s | %9s | %9s | %9s %9s | %9s %9s | %12s %9s\n", "NTT", "fwd NN", "fwd NR", "iNTT NR", "sppark",
              "cosetRN", "sppark", "coset iNN", "sppark");
  for (auto& r : ntt_rows) {
    auto it = anchors_ntt.find(r.logn);
    auto a = [&](int i) {
      return it == anchors_ntt.end() ? std::string("-") : std::to_string(it->second[i]).substr(0, 6);
    };
    std::printf("2^%-6d | %9.2f | %9.2f | %9.2f %9s | %9.2f %9s | %12.2f %9s\n", r.logn, r.fwd_nn, r.fwd_nr, r.inv_nr,
                a(0).c_str(), r.coset_rn, a(1).c_str(), r.coset_inv_nn, a(2).c_str());
  }
  std::printf("%-8s | %10s | %4s | %12s | %s\n", "G1 MSM", "cuzk ms", "c", "sppark ms", "ratio");
  for (auto& r : msm_rows) {
    auto it = anchors_msm.find(r.logn);
    double an = it == anchors_msm.end() ? 0 : it->second;
    std::printf("2^%-6d | %10.1f | %4d | %12.1f | %.2fx\n", r.logn, r.ms, r.c, an, an > 0 ? an / r.ms : 0);
  }
  if (!copy_rows.empty()) {
    std::printf("%-8s | %6s | %5s | %7s | %10s | %10s | %6s | %11s | %s\n", "G1 MSM", "copies", "shift", "windows",
                "cuzk ms", "plain ms", "ratio", "precompute", "same result");
    for (auto& r : copy_rows)
      std::printf("2^%-6d | %6d | %5d | %7d | %10.1f | %10.1f | %5.3fx | %9.2f s | %s\n", r.logn, r.copies, r.shift,
                  r.prof.windows, r.ms, r.plain_ms, r.plain_ms > 0 ? r.plain_ms / r.ms : 0, r.precompute_s,
                  r.same ? "yes" : "NO");
  }
  if (!sweep_rows.empty()) {
    std::printf("window sweep at 2^%d:", std::min(max_msm, 26));
    for (auto& [c, ms] : sweep_rows) std::printf("  c=%d %.1f", c, ms);
    std::printf(" ms (sppark best 542.8 at c=19)\n");
  }
  if (sel_ms > 0)
    std::printf(
        "0/1 path sum_selected 2^%d, 50%% set: %.1f ms (sppark/supraseal batch_addition 2^27 50%%: 34.0 ms); "
        "25%% set: %.1f ms\n",
        max_msm, sel_ms, sel25_ms);
  std::printf("%-8s | %10s | %4s | %12s | %s\n", "G2 MSM", "cuzk ms", "c", "sppark ms", "ratio");
  for (auto& r : g2_rows) {
    auto it = anchors_g2.find(r.logn);
    double an = it == anchors_g2.end() ? 0 : it->second;
    std::printf("2^%-6d | %10.1f | %4d | %12.1f | %.2fx\n", r.logn, r.ms, r.c, an, an > 0 ? an / r.ms : 0);
  }
  if (g2_sel_ms > 0)
    std::printf("G2 0/1 path sum_selected 2^%d, 50%% set: %.1f ms (supraseal G2 batch_addition 2^25 50%%: 24.4 ms)\n",
                max_g2, g2_sel_ms);
  std::printf("checks: bases %s, msm 2^20 exact %s, g2 msm 2^16 exact %s, shifted copies = plain %s\n",
              bases_ok ? "ok" : "FAIL", msm_ok ? "ok" : "FAIL", g2_ok ? "ok" : "FAIL", copies_ok ? "ok" : "FAIL");
  return (bases_ok && msm_ok && g2_ok && copies_ok) ? 0 : 1;
}
