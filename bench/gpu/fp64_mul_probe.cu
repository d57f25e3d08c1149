// Probe: Fp (BLS12-381 base field) Montgomery multiplication on the FP64 pipe, alone and beside the
// IMAD multiplication (gpu::Fp, field.cuh) — does the second pipe raise the multiplication rate?
//
// Why: the MSM and NTT kernels are bound by the IMAD pipe (gpu::Fp mul at 96% of it; RESULTS_gpu.md,
// "The multiplier pipes"), while the FP64 pipe, as fast and separate (bench/gpu/pipe_rates.cu: IMAD 63.5, DFMA
// 61.6 per clock per SM, 85-95% overlap when interleaved), sits idle.
//
// Representation: 16 limbs of 24 bits, each an exact integer in a double; the same Montgomery radix
// R = 2^384 as gpu::Fp, so both compute a b R^-1 mod p and their results can be compared directly.
// Multiplication is CIOS by rows on 17 double accumulators: a_i b_j and m_i p_j are < 2^48 and
// exact in one DFMA; every accumulator slot lives through at most 16 rows (2 products each), so it
// stays below 32 (2^24 - 1)^2 + 2^29 < 2^53 and every sum is exact. m_i = (t_0 mod 2^24) p' mod 2^24
// takes t_0 mod 2^24 by a round-toward-zero add of 2^76 (whose ulp is 2^24), one IMAD and a mask; the
// shift carries t_0 / 2^24 into t_1 with one exact DFMA. Inputs below 2p give outputs below 2p
// (4p < R); the output limbs are normalized (carries) so that they can feed the next product.
//
// Checks (exit 1 on any mismatch): random inputs and edge values (0, 1, p - 1, 2p - 1, all-max limbs
// below 2p) against gpu::Fp on the device. Then rates: each product alone, and gpu::Fp or the
// IMAD + IMAD.HI product beside the FP64 one (independent chains, so that the pipes can overlap).
// Also the same CIOS on IMAD + IMAD.HI (separate carry chains for the low and high halves), which can
// run beside DFMA where gpu::Fp's IMAD.WIDE cannot.
// Measured on the H200 (RESULTS_gpu.md, "The multiplier pipes"): both exact; FP64 2.42e10 /s alone against 2.78e10
// for gpu::Fp and 1.02x beside it; IMAD + IMAD.HI 1.80e10 alone, 0.76x gpu::Fp beside FP64.
// Standalone: nvcc -O3 -std=c++20 -arch=sm_90a -Isrc bench/gpu/fp64_mul_probe.cu (CMake: fp64_mul_probe).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "gpu/field.cuh"
#include "probe_util.cuh"

namespace {

using cuzk::gpu::Fp;
using cuzk::gpu::u32;
using u64 = unsigned long long;

constexpr int kL = 16;                                // limbs
constexpr double kBeta = 16777216.0;                  // 2^24
constexpr double kInvBeta = 1.0 / kBeta;              // 2^-24, exact
constexpr double kTwo76 = 75557863725914323419136.0;  // 2^76: ulp 2^24 for values below 2^77
constexpr double kTwo52 = 4503599627370496.0;

struct Fp64 {
  double l[kL];
};

__constant__ double c_p[kL];  // p in 24-bit limbs
__constant__ u32 c_pinv;      // -p^-1 mod 2^24

// 12 x 32-bit words <-> 16 x 24-bit limbs (host and device)
__host__ __device__ inline Fp64 to_fp64(const u32* w) {
  Fp64 r;
  CUZK_UNROLL
  for (int i = 0; i < kL; ++i) {
    const int bit = 24 * i, word = bit >> 5, sh = bit & 31;
    u64 two = u64(w[word]) | (word + 1 < 12 ? u64(w[word + 1]) << 32 : 0);
    r.l[i] = double(u32(two >> sh) & 0xFFFFFFu);
  }
  return r;
}
__host__ __device__ inline void from_fp64(const Fp64& a, u32* w) {  // limbs normalized (< 2^24)
  CUZK_UNROLL
  for (int k = 0; k < 12; ++k) w[k] = 0;
  CUZK_UNROLL
  for (int i = 0; i < kL; ++i) {
    const u64 v = u64(a.l[i]);
    const int bit = 24 * i, word = bit >> 5, sh = bit & 31;
    w[word] |= u32(v << sh);
    if (sh > 8 && word + 1 < 12) w[word + 1] |= u32(v >> (32 - sh));
  }
}

// a b R^-1 mod p (R = 2^384), inputs < 2p with limbs < 2^24; output < 2p, limbs < 2^24.
__device__ __forceinline__ Fp64 mul64(const Fp64& a, const Fp64& b) {
  double t[kL + 1];
#pragma unroll
  for (int j = 0; j <= kL; ++j) t[j] = 0.0;
#pragma unroll
  for (int i = 0; i < kL; ++i) {
#pragma unroll
    for (int j = 0; j < kL; ++j) t[j] = __fma_rn(a.l[i], b.l[j], t[j]);
    // m = (t0 mod 2^24) * p' mod 2^24
    const double hi = __dadd_rz(t[0], kTwo76) - kTwo76;  // floor(t0 / 2^24) 2^24
    const double lo = t[0] - hi;                         // t0 mod 2^24, exact
    const u32 lo_i = u32(__double2loint(lo + kTwo52));
    const u32 m = (lo_i * c_pinv) & 0xFFFFFFu;
    const double md = __hiloint2double(0x43300000, int(m)) - kTwo52;
#pragma unroll
    for (int j = 0; j < kL; ++j) t[j] = __fma_rn(md, c_p[j], t[j]);
    t[1] = __fma_rn(t[0], kInvBeta, t[1]);  // t0 is now a multiple of 2^24
#pragma unroll
    for (int j = 0; j < kL; ++j) t[j] = t[j + 1];
    t[kL] = 0.0;
  }
  // carries: limb j = (t_j + carry) mod 2^24
  Fp64 r;
  double carry = 0.0;
#pragma unroll
  for (int j = 0; j < kL; ++j) {
    const double v = t[j] + carry;
    const double q = __dadd_rz(v, kTwo76) - kTwo76;
    r.l[j] = v - q;
    carry = q * kInvBeta;
  }
  return r;
}

// out64: the FP64 product of in_a, in_b (< 2p); out_ref: gpu::Fp's product of the same values reduced
// below p (ref_a, ref_b), which is the same residue.
// The same product as gpu::Fp (12 x 32-bit CIOS, R = 2^384) with the low and high halves of the limb
// products in separate carry chains, so that they compile to IMAD and IMAD.HI instead of gpu::Fp's
// IMAD.WIDE (which does not overlap DFMA). Output below 2p (no final subtraction).
__device__ __forceinline__ u32 mad_hi_cc(u32 a, u32 b, u32 c) {
  u32 r;
  asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ void mul_lohi(const u32* a, const u32* b, u32* out) {
  namespace ptx = cuzk::gpu::ptx;
  u32 t[14];
#pragma unroll
  for (int j = 0; j < 14; ++j) t[j] = 0;
#pragma unroll
  for (int i = 0; i < 12; ++i) {
    // t += a_i b: low halves into t[0..11], high halves into t[1..12], carries into t[12], t[13]
    t[0] = ptx::mad_lo_cc(a[i], b[0], t[0]);
#pragma unroll
    for (int j = 1; j < 12; ++j) t[j] = ptx::madc_lo_cc(a[i], b[j], t[j]);
    t[12] = ptx::addc_cc(t[12], 0);
    t[13] = ptx::addc(t[13], 0);
    t[1] = mad_hi_cc(a[i], b[0], t[1]);
#pragma unroll
    for (int j = 1; j < 12; ++j) t[j + 1] = ptx::madc_hi_cc(a[i], b[j], t[j + 1]);
    t[13] = ptx::addc(t[13], 0);
    // t += m p, with m making t[0] zero
    const u32 m = t[0] * cuzk::gpu::FpParams32::kM0;
    t[0] = ptx::mad_lo_cc(m, cuzk::gpu::FpParams32::mod(0), t[0]);
#pragma unroll
    for (int j = 1; j < 12; ++j) t[j] = ptx::madc_lo_cc(m, cuzk::gpu::FpParams32::mod(j), t[j]);
    t[12] = ptx::addc_cc(t[12], 0);
    t[13] = ptx::addc(t[13], 0);
    t[1] = mad_hi_cc(m, cuzk::gpu::FpParams32::mod(0), t[1]);
#pragma unroll
    for (int j = 1; j < 12; ++j) t[j + 1] = ptx::madc_hi_cc(m, cuzk::gpu::FpParams32::mod(j), t[j + 1]);
    t[13] = ptx::addc(t[13], 0);
#pragma unroll
    for (int j = 0; j < 13; ++j) t[j] = t[j + 1];
    t[13] = 0;
  }
#pragma unroll
  for (int j = 0; j < 12; ++j) out[j] = t[j];
}

__global__ void check_kernel(const u32* in_a, const u32* in_b, const u32* ref_a, const u32* ref_b, u32* out64,
                             u32* out_lohi, u32* out_ref, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fp64 r = mul64(to_fp64(in_a + 12 * i), to_fp64(in_b + 12 * i));
  from_fp64(r, out64 + 12 * i);
  mul_lohi(in_a + 12 * i, in_b + 12 * i, out_lohi + 12 * i);
  Fp a, b;
  for (int k = 0; k < 12; ++k) {
    a.v[k] = ref_a[12 * i + k];
    b.v[k] = ref_b[12 * i + k];
  }
  const Fp c = a * b;
  for (int k = 0; k < 12; ++k) out_ref[12 * i + k] = c.v[k];
}

// KIND 1: gpu::Fp (IMAD.WIDE) only; 2: FP64 only; 3: gpu::Fp and FP64, one of each per iteration;
// 4: the IMAD + IMAD.HI product only; 5: it and FP64, one of each. Two products per iteration.
template <int KIND>
__global__ void rate_kernel(int iters, u32* out) {
  Fp x = Fp::one(), y = Fp::one(), z = Fp::one();
  x.v[0] ^= threadIdx.x;
  y.v[1] ^= blockIdx.x;
  z.v[2] ^= threadIdx.x * 7;
  Fp64 fx = to_fp64(x.v), fy = to_fp64(y.v), fz = to_fp64(z.v);
  for (int i = 0; i < iters; ++i) {
    if constexpr (KIND == 1) {
      x = x * y;
      z = z * y;
    } else if constexpr (KIND == 2) {
      fx = mul64(fx, fy);
      fz = mul64(fz, fy);
    } else if constexpr (KIND == 3) {
      x = x * y;
      fx = mul64(fx, fy);
    } else if constexpr (KIND == 4) {
      mul_lohi(x.v, y.v, x.v);
      mul_lohi(z.v, y.v, z.v);
    } else {
      mul_lohi(x.v, y.v, x.v);
      fx = mul64(fx, fy);
    }
  }
  if ((x.v[0] ^ z.v[0] ^ u32(fx.l[0]) ^ u32(fz.l[3])) == 0x12345678u) out[0] = 1;  // keeps the chains
}

// Host: 384-bit little-endian word arithmetic for the test values.
bool geq(const u32* a, const u32* b) {
  for (int k = 11; k >= 0; --k)
    if (a[k] != b[k]) return a[k] > b[k];
  return true;
}
void sub(u32* a, const u32* b) {
  u64 borrow = 0;
  for (int k = 0; k < 12; ++k) {
    const u64 d = u64(a[k]) - b[k] - borrow;
    a[k] = u32(d);
    borrow = (d >> 32) & 1;
  }
}
void add(u32* a, const u32* b) {
  u64 c = 0;
  for (int k = 0; k < 12; ++k) {
    const u64 s = u64(a[k]) + b[k] + c;
    a[k] = u32(s);
    c = s >> 32;
  }
}

template <int KIND>
float time_rate(int blocks, int threads, int iters, u32* out) {
  return probe_best_ms(iters, [&](int it) { rate_kernel<KIND><<<blocks, threads>>>(it, out); });
}

}  // namespace

int main(int argc, char** argv) {
  int iters = 1024, blocks_per_sm = 8;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--blocks-per-sm") && i + 1 < argc) blocks_per_sm = std::atoi(argv[++i]);
  }
  // constants: p in 24-bit limbs, -p^-1 mod 2^24 (from the 32-bit one)
  u32 p[12], p2[12], one[12] = {1};
  for (int k = 0; k < 12; ++k) p[k] = cuzk::gpu::FpParams32::mod(k);
  std::memcpy(p2, p, sizeof p);
  add(p2, p);  // 2p < 2^384
  const Fp64 p64 = to_fp64(p);
  const u32 pinv = cuzk::gpu::FpParams32::kM0 & 0xFFFFFFu;
  PROBE_CHECK(cudaMemcpyToSymbol(c_p, p64.l, sizeof p64.l));
  PROBE_CHECK(cudaMemcpyToSymbol(c_pinv, &pinv, sizeof pinv));

  // test inputs: random values below 2p, and edge values
  std::mt19937_64 rng(7);
  std::vector<std::vector<u32>> vals;
  auto push = [&](const u32* v) { vals.emplace_back(v, v + 12); };
  u32 zero[12] = {0}, pm1[12], p2m1[12], maxl[12];
  std::memcpy(pm1, p, sizeof p);
  sub(pm1, one);
  std::memcpy(p2m1, p2, sizeof p2);
  sub(p2m1, one);
  // the largest value below 2p whose top limbs are all-ones where 2p allows: 2p - 1 with its low
  // 12 words set to ones below the top word (still < 2p since the top word is unchanged and smaller)
  std::memcpy(maxl, p2m1, sizeof maxl);
  for (int k = 0; k < 11; ++k) maxl[k] = 0xFFFFFFFFu;
  maxl[11] -= 1;
  for (const u32* v : {zero, one, pm1, p2m1, maxl}) push(v);
  const int n_random = 1 << 16;
  for (int i = 0; i < n_random; ++i) {
    u32 v[12];
    do {
      for (int k = 0; k < 12; ++k) v[k] = u32(rng());
      v[11] &= 0x3FFFFFFFu;  // below 2^382; keep those below 2p
    } while (geq(v, p2));
    push(v);
  }
  const int nv = int(vals.size());
  std::vector<u32> ha, hb;
  for (int i = 0; i < nv; ++i) {  // every edge value against every edge value, then random pairs
    const auto& a = vals[i];
    const auto& b = i < 5 ? vals[(i * 3 + 1) % 5] : vals[(i * 7 + 3) % nv];
    ha.insert(ha.end(), a.begin(), a.end());
    hb.insert(hb.end(), b.begin(), b.end());
  }
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      ha.insert(ha.end(), vals[i].begin(), vals[i].end());
      hb.insert(hb.end(), vals[j].begin(), vals[j].end());
    }
  const int n = int(ha.size() / 12);
  std::vector<u32> ra = ha, rb = hb;  // below p
  for (int i = 0; i < n; ++i) {
    if (geq(ra.data() + 12 * i, p)) sub(ra.data() + 12 * i, p);
    if (geq(rb.data() + 12 * i, p)) sub(rb.data() + 12 * i, p);
  }
  u32 *da, *db, *dra, *drb, *d64, *dlohi, *dref;
  for (u32** d : {&da, &db, &dra, &drb, &d64, &dlohi, &dref}) PROBE_CHECK(cudaMalloc(d, ha.size() * 4));
  PROBE_CHECK(cudaMemcpy(da, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
  PROBE_CHECK(cudaMemcpy(db, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
  PROBE_CHECK(cudaMemcpy(dra, ra.data(), ra.size() * 4, cudaMemcpyHostToDevice));
  PROBE_CHECK(cudaMemcpy(drb, rb.data(), rb.size() * 4, cudaMemcpyHostToDevice));
  check_kernel<<<(n + 127) / 128, 128>>>(da, db, dra, drb, d64, dlohi, dref, n);
  PROBE_CHECK(cudaGetLastError());
  std::vector<u32> r64(ha.size()), rlohi(ha.size()), rref(ha.size());
  PROBE_CHECK(cudaMemcpy(r64.data(), d64, r64.size() * 4, cudaMemcpyDeviceToHost));
  PROBE_CHECK(cudaMemcpy(rlohi.data(), dlohi, rlohi.size() * 4, cudaMemcpyDeviceToHost));
  PROBE_CHECK(cudaMemcpy(rref.data(), dref, rref.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0, above_2p = 0;
  for (std::vector<u32>* out : {&r64, &rlohi}) {
    int b = 0, above_p = 0, over = 0;
    for (int i = 0; i < n; ++i) {
      u32* r = out->data() + 12 * i;
      if (geq(r, p2)) ++over;  // the lazy bound must hold
      if (geq(r, p)) {
        ++above_p;
        sub(r, p);
      }
      if (std::memcmp(r, rref.data() + 12 * i, 48) != 0) {
        if (b < 3) std::printf("MISMATCH at %d\n", i);
        ++b;
      }
    }
    std::printf(
        "check %s: %d products (random below 2p, and 0, 1, p-1, 2p-1, max limbs pairwise): %d mismatches, "
        "%d outputs in [p, 2p), %d at or above 2p\n",
        out == &r64 ? "FP64 limbs" : "IMAD + IMAD.HI", n, b, above_p, over);
    bad += b;
    above_2p += over;
  }

  int dev = 0, sms = 0;
  PROBE_CHECK(cudaGetDevice(&dev));
  PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  u32* out;
  PROBE_CHECK(cudaMalloc(&out, 4));
  const int blocks = sms * blocks_per_sm, threads = 256;
  const double per_run = double(blocks) * threads * iters * 2;  // two products per iteration
  const float t_imad = time_rate<1>(blocks, threads, iters, out);
  const float t_fp64 = time_rate<2>(blocks, threads, iters, out);
  const float t_mix = time_rate<3>(blocks, threads, iters, out);
  const float t_lohi = time_rate<4>(blocks, threads, iters, out);
  const float t_lohi_mix = time_rate<5>(blocks, threads, iters, out);
  auto rate = [&](float ms) { return per_run / (ms * 1e-3); };
  std::printf(
      "Fp mul rate | gpu::Fp (IMAD.WIDE) %.3e /s | FP64 limbs %.3e /s | gpu::Fp beside FP64 %.3e /s (%.2fx "
      "gpu::Fp) | IMAD + IMAD.HI %.3e /s | IMAD + IMAD.HI beside FP64 %.3e /s (%.2fx gpu::Fp)\n",
      rate(t_imad), rate(t_fp64), rate(t_mix), t_imad / t_mix, rate(t_lohi), rate(t_lohi_mix), t_imad / t_lohi_mix);
  return bad || above_2p ? 1 : 0;
}
