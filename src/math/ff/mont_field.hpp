// Prime fields in Montgomery form on 64-bit limbs.
//
// One template serves every prime (the sppark model): a Params struct supplies the modulus, R mod p,
// R^2 mod p and -p^-1 mod 2^64. Elements are always kept fully reduced (< p), so equality is limb
// equality and conversion to canonical form is one Montgomery multiplication by 1.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#if __has_include(<x86gprintrin.h>) && !defined(__clang__)  // clang's declares them in <x86intrin.h> only
#include <x86gprintrin.h>                                   // _addcarry_u64 / _subborrow_u64 (plain ADC/SBB)
#else
#include <x86intrin.h>
#endif
#endif

#ifndef CUZK_X86_ASM
#if defined(__x86_64__)
#define CUZK_X86_ASM 1
#else
#define CUZK_X86_ASM 0
#endif
#endif
#if CUZK_X86_ASM
#include <cpuid.h>

#include <cstdio>
#include <cstdlib>

#include "math/ff/mont_mul_x86.hpp"

namespace cuzk::math::x86 {
// The assembly needs BMI2 and ADX; fail at start-up with a clear message rather than with SIGILL.
// CPUID leaf 7 EBX: bit 8 BMI2, bit 19 ADX (clang before 16 has no "adx" for __builtin_cpu_supports).
inline const bool kCpuChecked = [] {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(ebx & (1u << 8)) || !(ebx & (1u << 19))) {
    std::fputs("cuzk: this CPU lacks BMI2/ADX; rebuild with -DCUZK_X86_ASM=OFF\n", stderr);
    std::abort();
  }
  return true;
}();
}  // namespace cuzk::math::x86
#endif

// The field operators are small and sit in the innermost loops; GCC otherwise leaves some of them
// out of line in large functions (perf showed operator- and operator* as separate symbols, ~12%).
#if defined(__GNUC__)
#define CUZK_FF_INLINE __attribute__((always_inline)) inline
#else
#define CUZK_FF_INLINE inline
#endif

namespace cuzk::math {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

template <std::size_t N>
using Limbs = std::array<u64, N>;

namespace limbs {

template <std::size_t N>
constexpr bool less_than(const Limbs<N>& a, const Limbs<N>& b) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

template <std::size_t N>
constexpr bool is_zero(const Limbs<N>& a) {
  u64 acc = 0;
  for (u64 x : a) acc |= x;
  return acc == 0;
}

// r = a + b, returns the carry out. On x86-64 the carry chain goes through the add-with-carry
// intrinsics (plain ADC/SBB, no ISA extension): GCC turns the u128 form into much longer code.
template <std::size_t N>
constexpr u64 add(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
  if (!std::is_constant_evaluated()) {
    unsigned char c = 0;
#pragma GCC unroll 16
    for (std::size_t i = 0; i < N; ++i) {
      unsigned long long o;
      c = _addcarry_u64(c, a[i], b[i], &o);
      r[i] = o;
    }
    return c;
  }
#endif
  u64 carry = 0;
#pragma GCC unroll 16
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) + b[i] + carry;
    r[i] = u64(t);
    carry = u64(t >> 64);
  }
  return carry;
}

// r = a - b, returns the borrow out (1 when a < b).
template <std::size_t N>
constexpr u64 sub(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
  if (!std::is_constant_evaluated()) {
    unsigned char c = 0;
#pragma GCC unroll 16
    for (std::size_t i = 0; i < N; ++i) {
      unsigned long long o;
      c = _subborrow_u64(c, a[i], b[i], &o);
      r[i] = o;
    }
    return c;
  }
#endif
  u64 borrow = 0;
#pragma GCC unroll 16
  for (std::size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) - b[i] - borrow;
    r[i] = u64(t);
    borrow = u64(t >> 64) & 1;
  }
  return borrow;
}

template <std::size_t N>
constexpr bool bit(const Limbs<N>& a, std::size_t i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

template <std::size_t N>
constexpr std::size_t bit_length(const Limbs<N>& a) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i]) return i * 64 + 64 - std::size_t(__builtin_clzll(a[i]));
  }
  return 0;
}

}  // namespace limbs

template <class P>
class MontField {
 public:
  static constexpr std::size_t kLimbs = P::kLimbs;
  static constexpr std::size_t kBytes = kLimbs * 8;
  using Repr = Limbs<kLimbs>;

  constexpr MontField() : v_{} {}

  static constexpr MontField zero() { return MontField(); }
  static constexpr MontField one() { return from_mont_raw(P::kR); }
  static constexpr const Repr& modulus() { return P::kModulus; }
  static constexpr std::size_t modulus_bits() { return limbs::bit_length(P::kModulus); }

  // A value already in Montgomery form (as stored by snarkjs .zkey points). Caller guarantees < p.
  static constexpr MontField from_mont_raw(const Repr& m) {
    MontField f;
    f.v_ = m;
    return f;
  }
  const Repr& mont_raw() const { return v_; }

  static MontField from_u64(u64 x) {
    Repr r{};
    r[0] = x;
    return from_canonical_unchecked(r);
  }
  // Canonical integer -> field; nullopt when x >= p.
  static std::optional<MontField> from_canonical(const Repr& x) {
    if (!limbs::less_than(x, P::kModulus)) return std::nullopt;
    return from_canonical_unchecked(x);
  }
  // Caller guarantees x < p.
  static MontField from_canonical_unchecked(const Repr& x) {
    MontField f = from_mont_raw(x);
    return f * from_mont_raw(P::kR2);
  }
  // Any integer, reduced mod p (used for hashing-to-field style inputs and random sampling).
  static MontField from_reduced(Repr x) {
    while (!limbs::less_than(x, P::kModulus)) limbs::sub(x, x, P::kModulus);
    return from_canonical_unchecked(x);
  }
  Repr to_canonical() const {
    Repr one{};
    one[0] = 1;
    return (*this * from_mont_raw(one)).v_;
  }

  // Byte encodings of the canonical value. The *_bytes readers reject values >= p.
  static std::optional<MontField> from_bytes_le(std::span<const std::uint8_t> b) {
    if (b.size() != kBytes) return std::nullopt;
    Repr x{};
    for (std::size_t i = 0; i < kBytes; ++i) x[i / 8] |= u64(b[i]) << (8 * (i % 8));
    return from_canonical(x);
  }
  static std::optional<MontField> from_bytes_be(std::span<const std::uint8_t> b) {
    if (b.size() != kBytes) return std::nullopt;
    Repr x{};
    for (std::size_t i = 0; i < kBytes; ++i) x[(kBytes - 1 - i) / 8] |= u64(b[i]) << (8 * ((kBytes - 1 - i) % 8));
    return from_canonical(x);
  }
  void to_bytes_le(std::span<std::uint8_t> out) const {
    Repr x = to_canonical();
    for (std::size_t i = 0; i < kBytes; ++i) out[i] = std::uint8_t(x[i / 8] >> (8 * (i % 8)));
  }
  void to_bytes_be(std::span<std::uint8_t> out) const {
    Repr x = to_canonical();
    for (std::size_t i = 0; i < kBytes; ++i) out[kBytes - 1 - i] = std::uint8_t(x[i / 8] >> (8 * (i % 8)));
  }

  // Decimal and hex text (JSON formats). Parsing rejects non-digits, empty text and values >= p.
  static std::optional<MontField> from_decimal(std::string_view s);
  static std::optional<MontField> from_hex(std::string_view s);  // big-endian, optional 0x
  std::string to_decimal() const;
  std::string to_hex() const;  // canonical, big-endian, lowercase, full width, no 0x

  bool is_zero() const { return limbs::is_zero(v_); }
  bool is_one() const { return v_ == P::kR; }
  friend bool operator==(const MontField& a, const MontField& b) { return a.v_ == b.v_; }
  friend bool operator!=(const MontField& a, const MontField& b) { return a.v_ != b.v_; }

  // Addition and subtraction select the reduced value with a mask instead of a branch: the branch is
  // data dependent and mispredicts about half the time in curve arithmetic (1.5x on G1 mixed adds).
  CUZK_FF_INLINE friend MontField operator+(const MontField& a, const MontField& b) {
    static_assert(P::kModulus[kLimbs - 1] < (u64(1) << 63), "a + b must not carry out");
    MontField r;
    limbs::add(r.v_, a.v_, b.v_);
    Repr t;
    const u64 keep = 0 - limbs::sub(t, r.v_, P::kModulus);  // all ones when r < p
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kLimbs; ++i) r.v_[i] = (r.v_[i] & keep) | (t[i] & ~keep);
    return r;
  }
  CUZK_FF_INLINE friend MontField operator-(const MontField& a, const MontField& b) {
    MontField r;
    const u64 wrap = 0 - limbs::sub(r.v_, a.v_, b.v_);  // all ones when a < b
    Repr m;
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kLimbs; ++i) m[i] = P::kModulus[i] & wrap;
    limbs::add(r.v_, r.v_, m);
    return r;
  }
  MontField operator-() const { return zero() - *this; }
  MontField dbl() const { return *this + *this; }

  // Montgomery multiplication. Three implementations, chosen at compile time:
  //  - 6 limbs (Fp) on x86-64: MULX/ADCX/ADOX assembly (mont_mul_x86.hpp, ~1.4x the C++ below);
  //  - moduli whose top word is below 2^63 - 1 (both BLS12-381 primes): CIOS without the extra carry word
  //    (the "no-carry" bound: every intermediate fits in N+1 words);
  //  - any other modulus: textbook CIOS.
  CUZK_FF_INLINE friend MontField operator*(const MontField& a, const MontField& b) {
    constexpr std::size_t n = kLimbs;
    MontField r;
    bool overflow = false;  // only the textbook path can produce t >= 2^(64n)
#if CUZK_X86_ASM
    if constexpr (n == 6) {
      x86::mont_mul_6_x86(r.v_.data(), a.v_.data(), b.v_.data(), P::kModulus.data(), P::kInv);
    } else
#endif
        if constexpr (P::kModulus[n - 1] < 0x7fffffffffffffffULL) {
      u64 t[n] = {};
#pragma GCC unroll 8
      for (std::size_t i = 0; i < n; ++i) {
        u128 s = u128(a.v_[0]) * b.v_[i] + t[0];
        u64 hi_a = u64(s >> 64);
        t[0] = u64(s);
        u64 m = t[0] * P::kInv;
        u128 c = u128(m) * P::kModulus[0] + t[0];
        u64 hi_c = u64(c >> 64);
#pragma GCC unroll 8
        for (std::size_t j = 1; j < n; ++j) {
          s = u128(a.v_[j]) * b.v_[i] + t[j] + hi_a;
          hi_a = u64(s >> 64);
          c = u128(m) * P::kModulus[j] + u64(s) + hi_c;
          hi_c = u64(c >> 64);
          t[j - 1] = u64(c);
        }
        t[n - 1] = hi_c + hi_a;
      }
      for (std::size_t i = 0; i < n; ++i) r.v_[i] = t[i];
    } else {
      u64 t[n + 2] = {};
      for (std::size_t i = 0; i < n; ++i) {
        u64 carry = 0;
        for (std::size_t j = 0; j < n; ++j) {
          u128 s = u128(a.v_[j]) * b.v_[i] + t[j] + carry;
          t[j] = u64(s);
          carry = u64(s >> 64);
        }
        u128 s = u128(t[n]) + carry;
        t[n] = u64(s);
        t[n + 1] = u64(s >> 64);
        u64 m = t[0] * P::kInv;
        u128 s0 = u128(m) * P::kModulus[0] + t[0];
        carry = u64(s0 >> 64);
        for (std::size_t j = 1; j < n; ++j) {
          u128 s1 = u128(m) * P::kModulus[j] + t[j] + carry;
          t[j - 1] = u64(s1);
          carry = u64(s1 >> 64);
        }
        s = u128(t[n]) + carry;
        t[n - 1] = u64(s);
        t[n] = t[n + 1] + u64(s >> 64);
      }
      for (std::size_t i = 0; i < n; ++i) r.v_[i] = t[i];
      overflow = t[n] != 0;
    }
    // The result is < 2p; subtract p once when it is >= p.
    Repr d;
    u64 borrow = limbs::sub(d, r.v_, P::kModulus);
    if (overflow || !borrow) r.v_ = d;
    return r;
  }
  MontField& operator+=(const MontField& b) { return *this = *this + b; }
  MontField& operator-=(const MontField& b) { return *this = *this - b; }
  MontField& operator*=(const MontField& b) { return *this = *this * b; }
  // Squaring: on x86-64 with the assembly, Fp uses a dedicated Montgomery squaring (57 instead of 72
  // 64x64 multiplications: the off-diagonal products once, doubled); elsewhere a multiplication.
  CUZK_FF_INLINE MontField square() const {
#if CUZK_X86_ASM
    if constexpr (kLimbs == 6) {
      MontField r;
      x86::mont_sqr_6_x86(r.v_.data(), v_.data(), P::kModulus.data(), P::kInv);
      Repr d;  // the result is < 2p; subtract p once when it is >= p
      if (!limbs::sub(d, r.v_, P::kModulus)) r.v_ = d;
      return r;
    }
#endif
    return *this * *this;
  }

  // Exponent as canonical little-endian limbs of any width.
  template <std::size_t M>
  MontField pow(const Limbs<M>& e) const {
    MontField r = one();
    for (std::size_t i = limbs::bit_length(e); i-- > 0;) {
      r = r.square();
      if (limbs::bit(e, i)) r *= *this;
    }
    return r;
  }
  MontField pow(u64 e) const { return pow(Limbs<1>{e}); }

  // Fermat inverse; the inverse of zero is zero (callers that care check is_zero first).
  MontField inverse() const {
    Repr e = P::kModulus;
    e[0] -= 2;  // p is odd and > 2, no borrow
    return pow(e);
  }

  // Square root when p = 3 mod 4 (Fp of BLS12-381); Tonelli-Shanks otherwise (Fr). nullopt if none.
  std::optional<MontField> sqrt() const;

  // True when the canonical value is greater than (p-1)/2: zcash's "y is the larger root" flag.
  bool is_lexicographically_largest() const {
    Repr c = to_canonical();
    Repr half = P::kModulus;  // (p-1)/2 = p >> 1 because p is odd
    for (std::size_t i = 0; i < kLimbs; ++i) {
      half[i] = (half[i] >> 1) | (i + 1 < kLimbs ? half[i + 1] << 63 : 0);
    }
    return limbs::less_than(half, c);
  }

 private:
  Repr v_;
};

}  // namespace cuzk::math

#include "math/ff/mont_field_impl.hpp"
