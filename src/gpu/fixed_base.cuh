// Device logic of the fixed-base batch multiplication (gpu/fixed_base.hpp), __host__ __device__ so
// that tests/gpu/fixed_base_host_test.cpp runs the very same code on the CPU (with field.cuh's PTX
// emulation) against math/.
//
// Table: c-bit windows, W = ceil(255 / c) of them (scalars are < r < 2^255); entry (w, d) for
// d in [1, 2^c) is d * 2^(c w) * G in device affine layout at index w (2^c - 1) + d - 1. Built on the
// host with math/ (build_table below) and uploaded: ~W 2^c points, built once per generator.
// Product: k * G = sum over windows of table(w, digit_w(k)), W mixed XYZZ additions, no doubling.
// The partial sums are integers below 2^(c w) and the next term is at least 2^(c w); their sum is
// k < r, so no addition ever meets equal or opposite points (the formulas handle those anyway).
// Affine conversion: each thread computes K products i = t, t + T, t + 2T, ... (T threads, so a warp
// touches consecutive indices for every j), keeping ZZ, ZZZ and the running product of the ZZZ in
// scratch arrays, and inverts the product once (Montgomery's trick: 3 multiplications a point plus
// one Fermat inversion per K points, instead of one inversion per point).
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "gpu/ec.cuh"
#include "gpu/field.cuh"
#include "math/ec/batch_affine.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::gpu::fixed_base {

constexpr int kScalarBits = 255;
constexpr int kMinWindowBits = 4, kMaxWindowBits = 20;

CUZK_HD int num_windows(int c) { return (kScalarBits + c - 1) / c; }
CUZK_HD std::size_t table_points(int c) { return std::size_t(num_windows(c)) * ((std::size_t(1) << c) - 1); }

// Digit w (c bits, c <= 32) of a canonical scalar given as 8 little-endian 32-bit words.
CUZK_HD u32 digit(const u32* k, int w, int c) {
  const int bit = w * c, limb = bit >> 5, sh = bit & 31;
  if (limb >= 8) return 0;
  u64 two = k[limb];
  if (limb + 1 < 8) two |= u64(k[limb + 1]) << 32;
  return u32(two >> sh) & u32((u64(1) << c) - 1);
}

// Memory access policy: the kernel passes vectorized/read-only-cache loads, the host test plain
// dereferences. Io::ld(p) loads a field element, Io::st(p, v) stores one, Io::ld_table(p) loads a
// table point.
template <class F, class Io>
CUZK_HD XyzzT<F> mul_by_table(const u32* canon, const AffineT<F>* table, int c) {
  XyzzT<F> acc = XyzzT<F>::infinity();
  const std::size_t per_window = (std::size_t(1) << c) - 1;
  const int windows = num_windows(c);
  for (int w = 0; w < windows; ++w) {
    const u32 d = digit(canon, w, c);
    if (d) acc.add_affine(Io::ld_table(table + w * per_window + (d - 1)));
  }
  return acc;
}

// Work of thread t of T over scalars [0, n): products i = t + j T for j < K, written as device
// affine points (x = y = 0 for the point at infinity) to out. zz, zzz, pref: scratch of n elements.
template <class F, class Io>
CUZK_HD void fixed_base_thread(std::size_t t, std::size_t T, std::size_t n, int K, const Fr* ks,
                               const AffineT<F>* table, int c, AffineT<F>* out, F* zz, F* zzz, F* pref) {
  F acc = F::one();
  for (int j = 0; j < K; ++j) {
    const std::size_t i = t + std::size_t(j) * T;
    if (i >= n) break;
    const Fr k = Io::ld(ks + i).from_mont();
    const XyzzT<F> p = mul_by_table<F, Io>(k.v, table, c);
    Io::st(pref + i, acc);  // product of the ZZZ of this thread's earlier finite points
    if (p.is_inf()) {
      Io::st(&out[i].x, F::zero());
      Io::st(&out[i].y, F::zero());
      Io::st(zz + i, F::zero());  // marks infinity for the backward pass
      continue;
    }
    Io::st(&out[i].x, p.x);
    Io::st(&out[i].y, p.y);
    Io::st(zz + i, p.zz);
    Io::st(zzz + i, p.zzz);
    acc = acc * p.zzz;
  }
  F inv = acc.inverse();  // 1 / (product of all ZZZ); one() when every point is infinity
  for (int j = K - 1; j >= 0; --j) {
    const std::size_t i = t + std::size_t(j) * T;
    if (i >= n) continue;
    const F pzz = Io::ld(zz + i);
    if (pzz.is_zero()) continue;
    const F pzzz = Io::ld(zzz + i);
    const F zzz_inv = inv * Io::ld(pref + i);
    inv = inv * pzzz;
    const F zz_inv = (zzz_inv * pzz).sqr();  // ZZ / ZZZ = 1 / Z, squared
    Io::st(&out[i].x, Io::ld(&out[i].x) * zz_inv);
    Io::st(&out[i].y, Io::ld(&out[i].y) * zzz_inv);
  }
}

// bellperson's uncompressed encoding (math::g1_to_uncompressed / g2_to_uncompressed): each Fp
// canonical big-endian in 48 bytes, Fp2 as c1 then c0; the point at infinity is 0x40 then zeros.
// Written as 32-bit words (big-endian byte order within each) so the device stores whole words:
// out must be 4-byte aligned.
CUZK_HD u32 bswap32(u32 x) { return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24); }

CUZK_HD void put_fp_be(u32* out, const Fp& v) {  // 12 words
  const Fp c = v.from_mont();
  for (int q = 0; q < 12; ++q) out[q] = bswap32(c.v[11 - q]);
}
CUZK_HD void put_coord(u32* out, const Fp& v) { put_fp_be(out, v); }
CUZK_HD void put_coord(u32* out, const Fp2& v) {
  put_fp_be(out, v.c1);
  put_fp_be(out + 12, v.c0);
}

template <class F>
CUZK_HD void encode_uncompressed(const AffineT<F>& p, u32* out) {
  constexpr int kWords = int(sizeof(F) / 4);  // words per coordinate: 12 (Fp) or 24 (Fp2)
  if (p.is_inf()) {
    for (int q = 0; q < 2 * kWords; ++q) out[q] = 0;
    out[0] = bswap32(0x40000000u);  // byte 0 = 0x40
    return;
  }
  put_coord(out, p.x);
  put_coord(out + kWords, p.y);
}

// Host: the window table of g in device layout (see the top of the file). Windows are independent
// once their base 2^(c w) g is known, so `parallel` may run fn(w) for the windows on several threads.
template <class F, class C, class Parallel>
std::vector<AffineT<F>> build_table(const math::Affine<C>& g, int c, Parallel&& parallel) {
  static_assert(sizeof(F) == sizeof(typename C::Field));
  const int windows = num_windows(c);
  const std::size_t per = (std::size_t(1) << c) - 1;
  std::vector<math::Jacobian<C>> bases(windows);
  math::Jacobian<C> b = math::Jacobian<C>::from_affine(g);
  for (int w = 0; w < windows; ++w) {
    bases[w] = b;
    for (int i = 0; i < c; ++i) b = b.dbl();
  }
  std::vector<AffineT<F>> table(windows * per);
  parallel(std::size_t(windows), [&](std::size_t w) {
    std::vector<math::Jacobian<C>> jac(per);
    jac[0] = bases[w];
    for (std::size_t d = 1; d < per; ++d) jac[d] = jac[d - 1] + bases[w];
    std::vector<math::Affine<C>> aff(per);
    math::batch_to_affine<C>(std::span<const math::Jacobian<C>>(jac), std::span<math::Affine<C>>(aff), 1);
    for (std::size_t d = 0; d < per; ++d) {  // never infinity: r is a prime above d and 2
      std::memcpy(static_cast<void*>(&table[w * per + d].x), &aff[d].x, sizeof(F));
      std::memcpy(static_cast<void*>(&table[w * per + d].y), &aff[d].y, sizeof(F));
    }
  });
  return table;
}

}  // namespace cuzk::gpu::fixed_base
