// Device prime-field arithmetic for BLS12-381: Montgomery form on 32-bit limbs.
//
// One template (FieldT) over a params struct, like the host MontField. Fp has 12 limbs, Fr 8; the
// Montgomery radix is 2^384 / 2^256 as on the host, so a device element is bit-identical to the host
// element (6 / 4 little-endian 64-bit limbs) and arrays can be memcpy'd both ways.
//
// Multiplication is CIOS with "even/odd" accumulators (Emmart-Weems): products of even-indexed limbs
// go to one accumulator, odd-indexed ones to another offset by one word, so every lo/hi pair of a
// 32x32->64 product lands on adjacent words of one carry chain and compiles to IMAD.WIDE(.X). The same
// row scan gives 2N-word products (mul_wide, sqr_wide) for lazy reduction (redc after combining), and
// the squaring makes each cross product once.
// The carry chains are PTX (add.cc / madc.hi.cc ...). Every primitive also has an exact host
// emulation (a thread-local carry flag), so this header compiles with g++ and the very same
// algorithm is unit-tested on the CPU against math::MontField (tests/gpu/field_host_test.cpp).
// Why one file of ~900 lines: every PTX primitive sits beside its host emulation and the one FieldT
// template that uses both, so that the CPU tests check exactly the code the device runs.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_HD_NOINLINE __host__ __device__ __noinline__
#else
#define CUZK_HD inline
#define CUZK_HD_NOINLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif

namespace cuzk::gpu {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ---------------------------------------------------------------------------------------------
// PTX carry-chain primitives. Names follow the PTX mnemonics: *_cc writes the carry flag, c* reads it.
namespace ptx {

#if !defined(__CUDA_ARCH__)
inline thread_local u32 host_cf = 0;  // host emulation of the condition-code carry flag
#endif

CUZK_HD u32 add_cc(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  u64 t = u64(a) + b;
  host_cf = u32(t >> 32);
  return u32(t);
#endif
}
CUZK_HD u32 addc_cc(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  u64 t = u64(a) + b + host_cf;
  host_cf = u32(t >> 32);
  return u32(t);
#endif
}
CUZK_HD u32 addc(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return u32(u64(a) + b + host_cf);
#endif
}
CUZK_HD u32 sub_cc(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  u64 t = u64(a) - b;
  host_cf = u32(t >> 32) & 1;
  return u32(t);
#endif
}
CUZK_HD u32 subc_cc(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  u64 t = u64(a) - b - host_cf;
  host_cf = u32(t >> 32) & 1;
  return u32(t);
#endif
}
CUZK_HD u32 subc(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return u32(u64(a) - b - host_cf);
#endif
}
// (hi, lo) = a * b in one wide multiply (IMAD.WIDE.U32, where a lo/hi pair costs IMAD + IMAD.HI)
CUZK_HD void mul_wide(u32 a, u32 b, u32& lo, u32& hi) {
#if defined(__CUDA_ARCH__)
  u64 r;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
#else
  const u64 r = u64(a) * b;
#endif
  lo = u32(r);
  hi = u32(r >> 32);
}
// lo(a*b) + c, carry out
CUZK_HD u32 mad_lo_cc(u32 a, u32 b, u32 c) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  u64 t = u64(a * b) + c;
  host_cf = u32(t >> 32);
  return u32(t);
#endif
}
// lo(a*b) + c + carry in, carry out
CUZK_HD u32 madc_lo_cc(u32 a, u32 b, u32 c) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  u64 t = u64(a * b) + c + host_cf;
  host_cf = u32(t >> 32);
  return u32(t);
#endif
}
// hi(a*b) + c + carry in, carry out
CUZK_HD u32 madc_hi_cc(u32 a, u32 b, u32 c) {
#if defined(__CUDA_ARCH__)
  u32 r;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  u64 t = ((u64(a) * b) >> 32) + c + host_cf;
  host_cf = u32(t >> 32);
  return u32(t);
#endif
}

}  // namespace ptx

// ---------------------------------------------------------------------------------------------
// Field parameters. Constants are returned by constexpr functions holding local arrays: after full
// unrolling every index is a compile-time constant and the loads fold into immediates, in device
// and host code alike (a constexpr member array could not be indexed from device code).

// Which fields multiply by one level of Karatsuba (detail::mul_wide_karatsuba) and a separate
// reduction instead of interleaved CIOS: bit 0 Fp, bit 1 Fr. Off by default: on the H200 it saves 12%
// of the limb products but measured slower (Fp mul rate +1%, G1 MSM 2^26 364.6 -> 400.1 ms with 248
// instead of 204 registers in the accumulation, NTT 2^27 34.5 -> 38.8 ms with Fr; bench/RESULTS_gpu.md,
// "Measured and not kept"). Kept as a build option for other GPUs; the host tests check both products.
#ifndef CUZK_FIELD_KARATSUBA
#define CUZK_FIELD_KARATSUBA 0
#endif

#if defined(__CUDACC__)
// The Montgomery factors -p^-1 mod 2^32, read from constant memory so that ptxas cannot see them as
// constants. Fr's is 2^32 - 1: seen as a constant, it made ptxas split most limb products of the
// reduction into IMAD + IMAD.HI pairs instead of IMAD.WIDE (SASS of the Fr multiplication on the H200:
// 71 of 128 products split). The same observation and workaround are documented in sppark's
// ff/mont_t.cuh.
static __constant__ u32 kFpM0Opaque = 0xfffcfffdu;
static __constant__ u32 kFrM0Opaque = 0xffffffffu;
#endif

struct FpParams32 {
  static constexpr int kLimbs = 12;
  static constexpr int kBits = 381;
  CUZK_HD static constexpr u32 mod(int i) {
    constexpr u64 m[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                          0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
    return u32(m[i >> 1] >> (32 * (i & 1)));
  }
  CUZK_HD static constexpr u32 one(int i) {  // R mod p
    constexpr u64 m[6] = {0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                          0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL};
    return u32(m[i >> 1] >> (32 * (i & 1)));
  }
  CUZK_HD static constexpr u32 rr(int i) {  // R^2 mod p
    constexpr u64 m[6] = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                          0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
    return u32(m[i >> 1] >> (32 * (i & 1)));
  }
  static constexpr u32 kM0 = 0xfffcfffdu;  // -p^-1 mod 2^32
  static constexpr bool kKaratsuba = (CUZK_FIELD_KARATSUBA & 1) != 0;
  CUZK_HD static u32 m0() {
#if defined(__CUDA_ARCH__)
    return kFpM0Opaque;
#else
    return kM0;
#endif
  }
};

struct FrParams32 {
  static constexpr int kLimbs = 8;
  static constexpr int kBits = 255;
  CUZK_HD static constexpr u32 mod(int i) {
    constexpr u64 m[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
    return u32(m[i >> 1] >> (32 * (i & 1)));
  }
  CUZK_HD static constexpr u32 one(int i) {
    constexpr u64 m[4] = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL};
    return u32(m[i >> 1] >> (32 * (i & 1)));
  }
  CUZK_HD static constexpr u32 rr(int i) {
    constexpr u64 m[4] = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};
    return u32(m[i >> 1] >> (32 * (i & 1)));
  }
  static constexpr u32 kM0 = 0xffffffffu;
  static constexpr bool kKaratsuba = (CUZK_FIELD_KARATSUBA & 2) != 0;
  CUZK_HD static u32 m0() {
#if defined(__CUDA_ARCH__)
    return kFrM0Opaque;
#else
    return kM0;
#endif
  }
};

// ---------------------------------------------------------------------------------------------
namespace detail {

// acc[j], acc[j+1] = a[j] * b for even j < n (a is read with stride 2 from its start).
template <int n>
CUZK_HD void mul_even(u32* acc, const u32* a, u32 b) {
  CUZK_UNROLL
  for (int j = 0; j < n; j += 2) ptx::mul_wide(a[j], b, acc[j], acc[j + 1]);
}

// acc += sum_{even j < n} a[j] * b * 2^(32 j); starts a fresh carry chain, leaves the carry out in CC.
template <int n>
CUZK_HD void cmad_even(u32* acc, const u32* a, u32 b) {
  acc[0] = ptx::mad_lo_cc(a[0], b, acc[0]);
  acc[1] = ptx::madc_hi_cc(a[0], b, acc[1]);
  CUZK_UNROLL
  for (int j = 2; j < n; j += 2) {
    acc[j] = ptx::madc_lo_cc(a[j], b, acc[j]);
    acc[j + 1] = ptx::madc_hi_cc(a[j], b, acc[j + 1]);
  }
}

// odd = (odd >> 64 bits) + sum_{even j < n} a[j] * b * 2^(32 j) + CC (consumes the incoming carry).
template <int n>
CUZK_HD void madc_even_shift2(u32* odd, const u32* a, u32 b) {
  CUZK_UNROLL
  for (int j = 0; j < n - 2; j += 2) {
    odd[j] = ptx::madc_lo_cc(a[j], b, odd[j + 2]);
    odd[j + 1] = ptx::madc_hi_cc(a[j], b, odd[j + 3]);
  }
  // the top word cannot carry out; its .cc form lets the pair compile to one IMAD.WIDE.U32.X (every
  // caller starts a fresh chain next)
  odd[n - 2] = ptx::madc_lo_cc(a[n - 2], b, 0);
  odd[n - 1] = ptx::madc_hi_cc(a[n - 2], b, 0);
}

// One row of the even/odd product scan (the CIOS loop without its reduction; roles as in
// FieldT::mad_redc). On entry `off` holds the previous row's words at offset 0, its finished word at
// [0], and `main` the rest at offset 1. row_next folds off[1] into main[0] (its carry runs into the
// shifted chain of off), adds a * b, and leaves the next finished word in main[0].
template <int n>
CUZK_HD void row_next(u32* main, u32* off, const u32* a, u32 b) {
  main[0] = ptx::add_cc(main[0], off[1]);
  madc_even_shift2<n>(off, a + 1, b);
  cmad_even<n>(main, a, b);
  off[n - 1] = ptx::addc(off[n - 1], 0);
}

// Row I of the row scan for a squaring: adds a[I] * v[j] for j >= I, where v[I] = a[I] and above it v
// is the doubled rest of a (a[I + 1] << 1 at I + 1, then a2 = (a << 1) word by word). Summed over the
// rows: sum a_I^2 2^(64 I) + 2 sum_{I<j} a_I a_j 2^(32 (I + j)) = a^2, with no doubling pass and no
// separate diagonal chain (78 of 144 limb products for Fp). Needs the top bit of a clear, so that 2a has
// no carry word. Products with j < I are skipped at compile time: their words are only shifted and
// carried (two loops with constant bounds: a condition inside one loop kept it from unrolling).
template <int n, int I>
CUZK_HD void sqr_row(u32* main, u32* off, const u32* a, const u32* a2) {
  const u32 b = a[I];
  u32 v[n];
  CUZK_UNROLL
  for (int j = 0; j < n; ++j) v[j] = j == I ? b : (j == I + 1 ? a[j] << 1 : a2[j]);
  if constexpr (I == 0) {
    mul_even<n>(off, v + 1, b);
    mul_even<n>(main, v, b);
  } else {
    main[0] = ptx::add_cc(main[0], off[1]);
    // off = (off >> 64 bits) + sum over odd j >= I of v[j] * b, consuming the fold's carry
    constexpr int k0 = I & ~1;  // first slot k whose product v[k + 1] * b is kept
    CUZK_UNROLL
    for (int k = 0; k < k0; k += 2) {
      off[k] = ptx::addc_cc(off[k + 2], 0);
      off[k + 1] = ptx::addc_cc(off[k + 3], 0);
    }
    CUZK_UNROLL
    for (int k = k0; k < n - 2; k += 2) {
      off[k] = ptx::madc_lo_cc(v[k + 1], b, off[k + 2]);
      off[k + 1] = ptx::madc_hi_cc(v[k + 1], b, off[k + 3]);
    }
    off[n - 2] = ptx::madc_lo_cc(v[n - 1], b, 0);
    off[n - 1] = ptx::madc_hi_cc(v[n - 1], b, 0);  // no carry out (.cc: one wide multiply-add)
    // main += sum over even j >= I of v[j] * b, a fresh chain; its carry goes to word n (off[n - 1])
    constexpr int j0 = (I + 1) & ~1;  // first even j >= I
    if constexpr (j0 < n) {
      main[j0] = ptx::mad_lo_cc(v[j0], b, main[j0]);
      main[j0 + 1] = ptx::madc_hi_cc(v[j0], b, main[j0 + 1]);
      CUZK_UNROLL
      for (int j = j0 + 2; j < n; j += 2) {
        main[j] = ptx::madc_lo_cc(v[j], b, main[j]);
        main[j + 1] = ptx::madc_hi_cc(v[j], b, main[j + 1]);
      }
      off[n - 1] = ptx::addc(off[n - 1], 0);
    }
  }
}

template <int n, int I>
CUZK_HD void sqr_rows(u32* main, u32* off, const u32* a, const u32* a2, u32* t) {
  sqr_row<n, I>(main, off, a, a2);
  t[I] = main[0];
  if constexpr (I + 1 < n) sqr_rows<n, I + 1>(off, main, a, a2, t);
}

// t[n .. 2n) = main / 2^32 + off after the last row (main holds the finished word n - 1 at [0]).
template <int n>
CUZK_HD void row_tail(const u32* main, const u32* off, u32* t) {
  t[n] = ptx::add_cc(off[0], main[1]);
  CUZK_UNROLL
  for (int i = 1; i < n - 1; ++i) t[n + i] = ptx::addc_cc(off[i], main[i + 1]);
  t[2 * n - 1] = ptx::addc(off[n - 1], 0);
}

// t[0 .. 2n) = a * b for n-word a, b: the even/odd row scan without reduction (n even).
template <int n>
CUZK_HD void mul_wide_rows(const u32* a, const u32* b, u32* t) {
  u32 even[n], odd[n];
  mul_even<n>(odd, a + 1, b[0]);
  mul_even<n>(even, a, b[0]);
  t[0] = even[0];
  CUZK_UNROLL
  for (int i = 1; i < n; i += 2) {
    row_next<n>(odd, even, a, b[i]);
    t[i] = odd[0];
    if (i + 1 < n) {
      row_next<n>(even, odd, a, b[i + 1]);
      t[i + 1] = even[0];
    }
  }
  row_tail<n>(odd, even, t);  // n even: the last row left its word in odd
}

// d = |x - y| for h-word x, y; returns all ones when x < y, else 0.
template <int h>
CUZK_HD u32 abs_diff(const u32* x, const u32* y, u32* d) {
  d[0] = ptx::sub_cc(x[0], y[0]);
  CUZK_UNROLL
  for (int i = 1; i < h; ++i) d[i] = ptx::subc_cc(x[i], y[i]);
  const u32 neg = ptx::subc(0, 0);
  // two's complement negation when negative: (d ^ neg) + (neg & 1)
  d[0] = ptx::add_cc(d[0] ^ neg, neg & 1);
  CUZK_UNROLL
  for (int i = 1; i < h - 1; ++i) d[i] = ptx::addc_cc(d[i] ^ neg, 0);
  d[h - 1] = ptx::addc(d[h - 1] ^ neg, 0);
  return neg;
}

// t[0 .. 2n) = a * b by one level of subtractive Karatsuba on halves of h = n / 2 words (h even, so
// that each half product is an even/odd row scan): with z0 = a0 b0, z2 = a1 b1 and
// z1 = |a0 - a1| |b0 - b1|, the middle term a0 b1 + a1 b0 = z0 + z2 -/+ z1 (minus when the two
// differences have the same sign). 3 h^2 limb products instead of 4 h^2 (108 instead of 144 for Fp),
// for about 5n extra additions, which run on the integer ALU beside the multiply pipe. Exact for any
// n-word inputs (the middle term is below 2^(32 (n + 1)) and the product below 2^(64 n)).
template <int n>
CUZK_HD void mul_wide_karatsuba(const u32* a, const u32* b, u32* t) {
  constexpr int h = n / 2;
  static_assert(h % 2 == 0, "halves of an even number of words");
  u32 da[h], db[h], z1[n], mid[n + 1];
  const u32 na = abs_diff<h>(a, a + h, da);
  const u32 nb = abs_diff<h>(b, b + h, db);
  mul_wide_rows<h>(da, db, z1);
  mul_wide_rows<h>(a, b, t);              // z0 in t[0 .. n)
  mul_wide_rows<h>(a + h, b + h, t + n);  // z2 in t[n .. 2n)
  // mid = z0 + z2
  mid[0] = ptx::add_cc(t[0], t[n]);
  CUZK_UNROLL
  for (int i = 1; i < n; ++i) mid[i] = ptx::addc_cc(t[i], t[n + i]);
  mid[n] = ptx::addc(0, 0);
  // mid -= z1 (same signs) or mid += z1: add (z1 ^ keep) + (keep & 1) over n + 1 words, keep = ~0 to
  // subtract; the carry flag is set to keep & 1 by adding it to all ones.
  const u32 keep = ~(na ^ nb);
  (void)ptx::add_cc(keep & 1, 0xffffffffu);
  CUZK_UNROLL
  for (int i = 0; i < n; ++i) mid[i] = ptx::addc_cc(mid[i], z1[i] ^ keep);
  mid[n] = ptx::addc(mid[n], keep);
  // t += mid * 2^(32 h)
  t[h] = ptx::add_cc(t[h], mid[0]);
  CUZK_UNROLL
  for (int i = 1; i <= n; ++i) t[h + i] = ptx::addc_cc(t[h + i], mid[i]);
  CUZK_UNROLL
  for (int i = h + n + 1; i < 2 * n - 1; ++i) t[i] = ptx::addc_cc(t[i], 0);
  t[2 * n - 1] = ptx::addc(t[2 * n - 1], 0);
}

}  // namespace detail

template <class P>
struct alignas(16) FieldT {
  static constexpr int N = P::kLimbs;
  static_assert(N % 2 == 0 && N >= 4, "even limb count");
  u32 v[N];

  CUZK_HD static FieldT zero() {
    FieldT r;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  CUZK_HD static FieldT one() {
    FieldT r;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = P::one(i);
    return r;
  }
  CUZK_HD static FieldT modulus() {
    FieldT r;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = P::mod(i);
    return r;
  }
  CUZK_HD static FieldT r2() {
    FieldT r;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = P::rr(i);
    return r;
  }

  CUZK_HD bool is_zero() const {
    u32 acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  CUZK_HD bool is_one() const {
    u32 acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= v[i] ^ P::one(i);
    return acc == 0;
  }
  CUZK_HD friend bool operator==(const FieldT& a, const FieldT& b) {
    u32 acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }
  CUZK_HD friend bool operator!=(const FieldT& a, const FieldT& b) { return !(a == b); }

  // r -= p when r >= p (r < 2p < 2^(32N) on entry).
  CUZK_HD void final_sub() {
    u32 t[N];
    t[0] = ptx::sub_cc(v[0], P::mod(0));
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) t[i] = ptx::subc_cc(v[i], P::mod(i));
    u32 borrow = ptx::subc(0, 0);  // 0xffffffff when v < p
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) v[i] = borrow ? v[i] : t[i];
  }

  CUZK_HD friend FieldT operator+(const FieldT& a, const FieldT& b) {
    FieldT r;
    r.v[0] = ptx::add_cc(a.v[0], b.v[0]);
    CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
    r.v[N - 1] = ptx::addc(a.v[N - 1], b.v[N - 1]);  // p < 2^(32N-1): no carry out
    r.final_sub();
    return r;
  }
  CUZK_HD friend FieldT operator-(const FieldT& a, const FieldT& b) {
    FieldT r;
    r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
    u32 mask = ptx::subc(0, 0);  // all ones on borrow
    r.v[0] = ptx::add_cc(r.v[0], P::mod(0) & mask);
    CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], P::mod(i) & mask);
    r.v[N - 1] = ptx::addc(r.v[N - 1], P::mod(N - 1) & mask);
    return r;
  }
  CUZK_HD FieldT dbl() const { return *this + *this; }
  CUZK_HD FieldT operator-() const {
    FieldT r = modulus() - *this;  // p - 0 = p: fix up below
    return is_zero() ? *this : r;
  }
  // Conditional negation (flag true: -this).
  CUZK_HD FieldT cneg(bool flag) const { return flag ? -*this : *this; }

  CUZK_HD friend FieldT operator*(const FieldT& a, const FieldT& b) {
    if constexpr (P::kKaratsuba) return mul_karatsuba(a, b);
    else return mul_cios(a, b);
  }
  // The two multiplications behind operator* (both tested on the host whichever is selected).
  // Karatsuba product (3/4 of the limb products) + one Montgomery reduction (redc).
  CUZK_HD static FieldT mul_karatsuba(const FieldT& a, const FieldT& b) {
    u32 t[2 * N];
    detail::mul_wide_karatsuba<N>(a.v, b.v, t);
    return redc(t);
  }
  // CIOS: product rows and reduction interleaved, 2 N^2 limb products.
  CUZK_HD static FieldT mul_cios(const FieldT& a, const FieldT& b) {
    u32 even[N], odd[N], M[N];
    modulus_words(M);
    CUZK_UNROLL
    for (int i = 0; i < N; i += 2) {
      mad_redc(even, odd, a.v, b.v[i], M, i == 0);
      mad_redc(odd, even, a.v, b.v[i + 1], M, false);
    }
    FieldT r = merge_rows(even, odd);
    r.final_sub();
    return r;
  }
  // Squaring: each cross product once (doubled operand) and the diagonal in the same row scan
  // (detail::sqr_row), then one Montgomery reduction. ~22% fewer IMAD slots than a multiplication.
  CUZK_HD FieldT sqr() const {
    u32 t[2 * N];
    sqr_wide(*this, t);
    return redc(t);
  }

  // --- Lazy reduction: full 2N-word products, combined, then one Montgomery reduction. ---
  // t = a * b as a 2N-word integer (any N-word a, b, reduced or not).
  CUZK_HD static void mul_wide(const FieldT& a, const FieldT& b, u32* t) {
    if constexpr (P::kKaratsuba) detail::mul_wide_karatsuba<N>(a.v, b.v, t);
    else detail::mul_wide_rows<N>(a.v, b.v, t);
  }
  // t = a^2, for a below 2^(32N - 1) (every reduced element: Fp and Fr leave the top bit clear).
  CUZK_HD static void sqr_wide(const FieldT& a, u32* t) {
    u32 even[N], odd[N], a2[N];
    a2[0] = a.v[0] << 1;
    CUZK_UNROLL
    for (int j = 1; j < N; ++j) a2[j] = (a.v[j] << 1) | (a.v[j - 1] >> 31);
    detail::sqr_rows<N, 0>(even, odd, a.v, a2, t);
    detail::row_tail<N>(odd, even, t);
  }
  // t -= u over 2N words; when that borrows, t += p * 2^(32N) (so t stays congruent and in [0, pR)
  // for t, u in [0, pR)).
  CUZK_HD static void sub_wide(u32* t, const u32* u) {
    t[0] = ptx::sub_cc(t[0], u[0]);
    CUZK_UNROLL
    for (int i = 1; i < 2 * N; ++i) t[i] = ptx::subc_cc(t[i], u[i]);
    const u32 mask = ptx::subc(0, 0);
    t[N] = ptx::add_cc(t[N], P::mod(0) & mask);
    CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) t[N + i] = ptx::addc_cc(t[N + i], P::mod(i) & mask);
    t[2 * N - 1] = ptx::addc(t[2 * N - 1], P::mod(N - 1) & mask);
  }
  // t -= u over 2N words, for callers that know t >= u.
  CUZK_HD static void sub_wide_nonneg(u32* t, const u32* u) {
    t[0] = ptx::sub_cc(t[0], u[0]);
    CUZK_UNROLL
    for (int i = 1; i < 2 * N - 1; ++i) t[i] = ptx::subc_cc(t[i], u[i]);
    t[2 * N - 1] = ptx::subc(t[2 * N - 1], u[2 * N - 1]);
  }
  // t * R^-1 mod p, canonical, for t < p * R (R = 2^(32N)).
  CUZK_HD static FieldT redc(const u32* t) {
    u32 even[N], odd[N], M[N];
    modulus_words(M);
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) even[i] = t[i];
    u32 m = even[0] * P::m0();
    detail::mul_even<N>(odd, M + 1, m);
    detail::cmad_even<N>(even, M, m);
    odd[N - 1] = ptx::addc(odd[N - 1], 0);
    CUZK_UNROLL
    for (int i = 1; i < N; i += 2) {
      m = (odd[0] + even[1]) * P::m0();
      detail::row_next<N>(odd, even, M, m);
      if (i + 1 < N) {
        m = (even[0] + odd[1]) * P::m0();
        detail::row_next<N>(even, odd, M, m);
      }
    }
    // the reduced low half is below p + 1; add the high half of t (below p)
    FieldT r = merge_rows(even, odd);
    r.v[0] = ptx::add_cc(r.v[0], t[N]);
    CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], t[N + i]);
    r.v[N - 1] = ptx::addc(r.v[N - 1], t[2 * N - 1]);
    r.final_sub();
    return r;
  }
  // a * b - c * d with one reduction instead of two (canonical inputs). With two spare bits in the top
  // limb (Fp): a * b + (p - c) * d, either as two Karatsuba products added and reduced once, or (CIOS
  // fields) in one interleaved CIOS pass, whose accumulator stays below 3p < 2^(32N) and takes N + 1
  // words. Otherwise (Fr): the two 2N-word products, subtracted, then one reduction.
  CUZK_HD static FieldT mul_sub(const FieldT& a, const FieldT& b, const FieldT& c, const FieldT& d) {
    if constexpr (P::kKaratsuba && P::kBits <= 32 * N - 2) {
      // a * b + (p - c) * d < 2p^2 < pR: two Karatsuba products, added, one reduction
      u32 t[2 * N], u[2 * N];
      mul_wide(a, b, t);
      mul_wide(modulus() - c, d, u);
      t[0] = ptx::add_cc(t[0], u[0]);
      CUZK_UNROLL
      for (int i = 1; i < 2 * N - 1; ++i) t[i] = ptx::addc_cc(t[i], u[i]);
      t[2 * N - 1] = ptx::addc(t[2 * N - 1], u[2 * N - 1]);
      return redc(t);
    } else if constexpr (P::kBits > 32 * N - 2) {
      u32 t[2 * N], u[2 * N];
      mul_wide(a, b, t);
      mul_wide(c, d, u);
      sub_wide(t, u);
      return redc(t);
    } else {
      const FieldT nc = modulus() - c;  // p - c in [1, p]: no reduction needed for a CIOS operand
      u32 even[N], odd[N], M[N];
      modulus_words(M);
      CUZK_UNROLL
      for (int i = 0; i < N; i += 2) {
        dot_redc(even, odd, a.v, b.v[i], nc.v, d.v[i], M, i == 0);
        dot_redc(odd, even, a.v, b.v[i + 1], nc.v, d.v[i + 1], M, false);
      }
      FieldT r = merge_rows(even, odd);
      r.final_sub();  // (ab + (p - c)d + mp) / R < 2p^2 / R + p < 2p
      return r;
    }
  }
  // Sum without the final subtraction (below 2p for reduced inputs), for mul_wide: redc needs its
  // input below pR, so both factors may be unreduced for Fp (4p < R = 2^384), only one for Fr.
  CUZK_HD static FieldT add_unreduced(const FieldT& a, const FieldT& b) {
    FieldT r;
    r.v[0] = ptx::add_cc(a.v[0], b.v[0]);
    CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
    r.v[N - 1] = ptx::addc(a.v[N - 1], b.v[N - 1]);
    return r;
  }
  CUZK_HD FieldT& operator+=(const FieldT& b) { return *this = *this + b; }
  CUZK_HD FieldT& operator-=(const FieldT& b) { return *this = *this - b; }
  CUZK_HD FieldT& operator*=(const FieldT& b) { return *this = *this * b; }

  // this / 2^k for 1 <= k <= 31 (Montgomery form or not: the division commutes with R), in fields with
  // p = 1 mod 2^32 (Fr). There -p^-1 = -1 mod 2^32, so the quotient digit that makes v + m p divisible
  // by 2^k is m = -v mod 2^k, and (v + m p) / 2^k < p + p / 2^k needs one conditional subtraction:
  // 2N limb products instead of a multiplication's 2N^2 (the 1/n of an inverse NTT of size 2^k).
  CUZK_HD FieldT div_pow2(int k) const {
    static_assert(P::kM0 == 0xffffffffu, "div_pow2 needs p = 1 mod 2^32");
    const u32 m = (0u - v[0]) & ((1u << k) - 1);
    u32 t[N + 1], odd[N], M[N];
    modulus_words(M);
    // t = v + m p with wide products: the even limbs' products added in place, the odd limbs' ones
    // (a word apart) added after
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) t[i] = v[i];
    detail::cmad_even<N>(t, M, m);
    t[N] = ptx::addc(0, 0);
    detail::mul_even<N>(odd, M + 1, m);
    t[1] = ptx::add_cc(t[1], odd[0]);
    CUZK_UNROLL
    for (int i = 2; i < N; ++i) t[i] = ptx::addc_cc(t[i], odd[i - 1]);
    t[N] = ptx::addc(t[N], odd[N - 1]);
    FieldT r;
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = u32(((u64(t[i + 1]) << 32) | t[i]) >> k);
    r.final_sub();
    return r;
  }

  // Montgomery <-> canonical.
  CUZK_HD FieldT to_mont() const { return *this * r2(); }
  CUZK_HD FieldT from_mont() const {  // v R^-1: the reduction alone (half the limb products of v * 1)
    u32 t[2 * N];
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) {
      t[i] = v[i];
      t[N + i] = 0;
    }
    return redc(t);
  }

  // this^e for an exponent of `nbits` bits given as little-endian 32-bit words (variable time).
  CUZK_HD FieldT pow(const u32* e, int nbits) const {
    FieldT r = one();
    for (int i = nbits - 1; i >= 0; --i) {
      r = r.sqr();
      if ((e[i >> 5] >> (i & 31)) & 1) r = r * *this;
    }
    return r;
  }
  // Inverse (0 -> 0) by the binary extended Euclidean algorithm: about 2 * bits halvings and bits
  // subtractions of N-word integers, where Fermat's exponentiation takes bits squarings. One thread
  // often runs it alone (the top of a batched inversion, once per batch-affine round), so its latency
  // is what counts. Variable time: for public values (bases, points, test keys), not secrets.
  // For x = aR (Montgomery form) the loop gives x^-1 = 1 / (aR); one Montgomery product by R^3 turns
  // that into a^-1 R.
  CUZK_HD_NOINLINE FieldT inverse() const {
    if (is_zero()) return *this;
    FieldT u = *this, w = modulus(), x1 = from_words_one(), x2 = zero();  // this x1 = u, this x2 = w (mod p)
    while (!u.is_plain_one() && !w.is_plain_one()) {
      while (!(u.v[0] & 1)) {
        u.shr1();
        x1.half_mod();
      }
      while (!(w.v[0] & 1)) {
        w.shr1();
        x2.half_mod();
      }
      if (u.sub_if_not_below(w)) x1 = x1 - x2;
      else {
        w.sub_if_not_below(u);
        x2 = x2 - x1;
      }
    }
    const FieldT plain = u.is_plain_one() ? x1 : x2;
    return plain * (r2() * r2());
  }
  // Fermat inverse (0 -> 0): this^(p - 2). The reference for inverse() in the host tests.
  CUZK_HD_NOINLINE FieldT inverse_fermat() const {
    u32 e[N];
    u32 borrow = 2;
    for (int i = 0; i < N; ++i) {  // e = p - 2
      u32 m = P::mod(i);
      e[i] = m - borrow;
      borrow = m < borrow ? 1 : 0;
    }
    return pow(e, P::kBits);
  }

 private:
  // Helpers of inverse(), on the limbs as plain integers below 2^(32N).
  CUZK_HD static FieldT from_words_one() {
    FieldT r = zero();
    r.v[0] = 1;
    return r;
  }
  CUZK_HD bool is_plain_one() const {
    u32 acc = v[0] ^ 1u;
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  CUZK_HD void shr1() {
    CUZK_UNROLL
    for (int i = 0; i < N - 1; ++i) v[i] = (v[i] >> 1) | (v[i + 1] << 31);
    v[N - 1] >>= 1;
  }
  // this / 2 mod p for this < p: (this + p) / 2 when odd; this + p < 2p fits N words (p < 2^(32N-1)).
  CUZK_HD void half_mod() {
    if (v[0] & 1) *this = add_unreduced(*this, modulus());
    shr1();
  }
  // this -= b when this >= b (returns true), else unchanged (returns false).
  CUZK_HD bool sub_if_not_below(const FieldT& b) {
    FieldT d;
    d.v[0] = ptx::sub_cc(v[0], b.v[0]);
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) d.v[i] = ptx::subc_cc(v[i], b.v[i]);
    const u32 borrow = ptx::subc(0, 0);
    if (borrow) return false;
    *this = d;
    return true;
  }
  CUZK_HD static void modulus_words(u32* M) {
    CUZK_UNROLL
    for (int i = 0; i < N; ++i) M[i] = P::mod(i);
  }
  // After the last CIOS step (N even: it left odd at offset 0 with a zero low word): odd / 2^32 + even.
  CUZK_HD static FieldT merge_rows(const u32* even, const u32* odd) {
    FieldT r;
    r.v[0] = ptx::add_cc(even[0], odd[1]);
    CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(even[i], odd[i + 1]);
    r.v[N - 1] = ptx::addc(even[N - 1], 0);
    return r;
  }

  // The reduction half of one CIOS step, shared by mad_redc and dot_redc: adds mi * p with
  // mi = even[0] * M0, which clears even[0].
  CUZK_HD static void reduce_word(u32* even, u32* odd, const u32* M) {
    u32 mi = even[0] * P::m0();
    detail::cmad_even<N>(odd, M + 1, mi);
    detail::cmad_even<N>(even, M, mi);
    odd[N - 1] = ptx::addc(odd[N - 1], 0);
  }
  // One CIOS step on the even/odd accumulator pair (see the header comment). On entry the value is
  // even + odd * 2^32 + (previous step's reduced word, folded here); adds a * bi, then reduces one
  // word with mi = even[0] * M0. On exit even[0] == 0 and the roles swap for the next step.
  CUZK_HD static void mad_redc(u32* even, u32* odd, const u32* a, u32 bi, const u32* M, bool first) {
    if (first) {
      detail::mul_even<N>(odd, a + 1, bi);
      detail::mul_even<N>(even, a, bi);
    } else {
      even[0] = ptx::add_cc(even[0], odd[1]);
      detail::madc_even_shift2<N>(odd, a + 1, bi);
      detail::cmad_even<N>(even, a, bi);
      odd[N - 1] = ptx::addc(odd[N - 1], 0);
    }
    reduce_word(even, odd, M);
  }
  // mad_redc for a * bi + c * di (mul_sub). The chains that end in the offset accumulator drop their
  // carry: it is zero while the accumulator stays below 3p < 2^(32N) (see mul_sub).
  CUZK_HD static void dot_redc(u32* even, u32* odd, const u32* a, u32 bi, const u32* c, u32 di, const u32* M,
                               bool first) {
    if (first) {
      detail::mul_even<N>(odd, a + 1, bi);
      detail::cmad_even<N>(odd, c + 1, di);
      detail::mul_even<N>(even, a, bi);
      detail::cmad_even<N>(even, c, di);
      odd[N - 1] = ptx::addc(odd[N - 1], 0);
    } else {
      even[0] = ptx::add_cc(even[0], odd[1]);
      detail::madc_even_shift2<N>(odd, a + 1, bi);
      detail::cmad_even<N>(odd, c + 1, di);
      detail::cmad_even<N>(even, a, bi);
      odd[N - 1] = ptx::addc(odd[N - 1], 0);
      detail::cmad_even<N>(even, c, di);
      odd[N - 1] = ptx::addc(odd[N - 1], 0);
    }
    reduce_word(even, odd, M);
  }
};

using Fp = FieldT<FpParams32>;
using Fr = FieldT<FrParams32>;
static_assert(sizeof(Fp) == 48 && sizeof(Fr) == 32, "device field sizes");

// Fp2 = Fp[u] / (u^2 + 1), laid out (c0, c1) like the host math::Fp2. Same interface as FieldT so
// the curve templates in ec.cuh serve G2 as well.
struct alignas(16) Fp2 {
  Fp c0, c1;

  CUZK_HD static Fp2 zero() { return Fp2{Fp::zero(), Fp::zero()}; }
  CUZK_HD static Fp2 one() { return Fp2{Fp::one(), Fp::zero()}; }
  CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  CUZK_HD friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }
  CUZK_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { return Fp2{a.c0 + b.c0, a.c1 + b.c1}; }
  CUZK_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { return Fp2{a.c0 - b.c0, a.c1 - b.c1}; }
  CUZK_HD Fp2 operator-() const { return Fp2{-c0, -c1}; }
  CUZK_HD Fp2 dbl() const { return Fp2{c0.dbl(), c1.dbl()}; }
  CUZK_HD Fp2 cneg(bool flag) const { return flag ? -*this : *this; }
  // Multiplication and squaring are out of line: a G2 point addition makes a dozen or more of them,
  // and inlining them all made compile times explode. Measured on the H200 (2^24 G2 MSM): this is
  // also faster than inlining the Fp2 arithmetic into out-of-line point operations (356 vs 676 ms
  // of bucket accumulation).
  CUZK_HD friend Fp2 operator*(Fp2 a, Fp2 b) { return mul(a, b); }
  CUZK_HD Fp2 sqr() const { return sqr_of(*this); }
  // Karatsuba with lazy reduction: three full products, two Montgomery reductions (not three).
  // c0 = a0 b0 - a1 b1 (p R added when negative), c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0
  // < 2p^2 < pR; the sums stay unreduced (< 2p), so the last difference is exact and non-negative.
  CUZK_HD_NOINLINE static Fp2 mul(Fp2 a, Fp2 b) {
    constexpr int W = 2 * Fp::N;
    u32 v0[W], v1[W], v2[W];
    Fp::mul_wide(Fp::add_unreduced(a.c0, a.c1), Fp::add_unreduced(b.c0, b.c1), v2);
    Fp::mul_wide(a.c0, b.c0, v0);
    Fp::sub_wide_nonneg(v2, v0);
    Fp::mul_wide(a.c1, b.c1, v1);
    Fp::sub_wide_nonneg(v2, v1);
    Fp::sub_wide(v0, v1);
    return Fp2{Fp::redc(v0), Fp::redc(v2)};
  }
  // The FieldT interface for the curve formulas; not lazy here (Fp2 XYZZ sums are not on a hot path:
  // G2 buckets are summed in affine form, msm_affine.cuh).
  CUZK_HD static Fp2 mul_sub(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) { return a * b - c * d; }
  CUZK_HD_NOINLINE static Fp2 sqr_of(Fp2 a) { return Fp2{(a.c0 + a.c1) * (a.c0 - a.c1), (a.c0 * a.c1).dbl()}; }
  CUZK_HD Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  CUZK_HD Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  CUZK_HD Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  CUZK_HD_NOINLINE Fp2 inverse() const {
    Fp t = (c0.sqr() + c1.sqr()).inverse();
    return Fp2{c0 * t, -(c1 * t)};
  }
  CUZK_HD_NOINLINE Fp2 inverse_fermat() const {  // the same through Fp's Fermat inverse (benchmarks)
    Fp t = (c0.sqr() + c1.sqr()).inverse_fermat();
    return Fp2{c0 * t, -(c1 * t)};
  }
};
static_assert(sizeof(Fp2) == 96, "device Fp2 size");

}  // namespace cuzk::gpu
