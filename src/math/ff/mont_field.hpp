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

// r = a + b, returns the carry out.
template <std::size_t N>
constexpr u64 add(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  u64 carry = 0;
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
  u64 borrow = 0;
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

  friend MontField operator+(const MontField& a, const MontField& b) {
    static_assert(P::kModulus[kLimbs - 1] < (u64(1) << 63), "a + b must not carry out");
    MontField r;
    limbs::add(r.v_, a.v_, b.v_);
    Repr t;
    if (!limbs::sub(t, r.v_, P::kModulus)) r.v_ = t;
    return r;
  }
  friend MontField operator-(const MontField& a, const MontField& b) {
    MontField r;
    if (limbs::sub(r.v_, a.v_, b.v_)) limbs::add(r.v_, r.v_, P::kModulus);
    return r;
  }
  MontField operator-() const { return zero() - *this; }
  MontField dbl() const { return *this + *this; }

  // Coarsely-integrated operand scanning (CIOS) Montgomery multiplication.
  friend MontField operator*(const MontField& a, const MontField& b) {
    constexpr std::size_t n = kLimbs;
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
    MontField r;
    for (std::size_t i = 0; i < n; ++i) r.v_[i] = t[i];
    // t < 2p here; subtract p once when t >= p (t[n] set means t >= 2^(64n) > p).
    Repr d;
    u64 borrow = limbs::sub(d, r.v_, P::kModulus);
    if (t[n] || !borrow) r.v_ = d;
    return r;
  }
  MontField& operator+=(const MontField& b) { return *this = *this + b; }
  MontField& operator-=(const MontField& b) { return *this = *this - b; }
  MontField& operator*=(const MontField& b) { return *this = *this * b; }
  MontField square() const { return *this * *this; }

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
