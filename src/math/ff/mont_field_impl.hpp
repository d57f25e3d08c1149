// Out-of-line members of MontField: text conversion and square roots (not on hot paths).
#pragma once

#include <algorithm>

namespace cuzk::math {

template <class P>
std::optional<MontField<P>> MontField<P>::from_decimal(std::string_view s) {
  if (s.empty() || s.size() > 200) return std::nullopt;
  Limbs<kLimbs + 1> acc{};
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    u64 carry = u64(c - '0');
    for (auto& limb : acc) {
      u128 t = u128(limb) * 10 + carry;
      limb = u64(t);
      carry = u64(t >> 64);
    }
    if (carry || acc[kLimbs]) return std::nullopt;
  }
  Repr x;
  std::copy_n(acc.begin(), kLimbs, x.begin());
  return from_canonical(x);
}

template <class P>
std::optional<MontField<P>> MontField<P>::from_hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > kBytes * 2) return std::nullopt;
  Repr x{};
  std::size_t nibble = 0;
  for (std::size_t i = s.size(); i-- > 0; ++nibble) {
    char c = s[i];
    u64 v;
    if (c >= '0' && c <= '9') v = u64(c - '0');
    else if (c >= 'a' && c <= 'f') v = u64(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v = u64(c - 'A' + 10);
    else return std::nullopt;
    x[nibble / 16] |= v << (4 * (nibble % 16));
  }
  return from_canonical(x);
}

template <class P>
std::string MontField<P>::to_decimal() const {
  Repr x = to_canonical();
  std::string out;
  while (!limbs::is_zero(x)) {
    u64 rem = 0;
    for (std::size_t i = kLimbs; i-- > 0;) {
      u128 cur = (u128(rem) << 64) | x[i];
      x[i] = u64(cur / 10);
      rem = u64(cur % 10);
    }
    out.push_back(char('0' + rem));
  }
  if (out.empty()) out = "0";
  std::reverse(out.begin(), out.end());
  return out;
}

template <class P>
std::string MontField<P>::to_hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  Repr x = to_canonical();
  std::string out(kBytes * 2, '0');
  for (std::size_t i = 0; i < kBytes * 2; ++i) {
    out[kBytes * 2 - 1 - i] = kDigits[(x[i / 16] >> (4 * (i % 16))) & 0xf];
  }
  return out;
}

// Tonelli-Shanks. For p = 3 mod 4 (S = 1) it reduces to a^((p+1)/4).
template <class P>
std::optional<MontField<P>> MontField<P>::sqrt() const {
  if (is_zero()) return zero();
  Repr q = P::kModulus;
  q[0] -= 1;
  std::size_t s = 0;
  while (!limbs::bit(q, 0)) {
    for (std::size_t i = 0; i < kLimbs; ++i) q[i] = (q[i] >> 1) | (i + 1 < kLimbs ? q[i + 1] << 63 : 0);
    ++s;
  }
  // Euler's criterion exponent (p-1)/2.
  Repr half = P::kModulus;
  half[0] -= 1;
  for (std::size_t i = 0; i < kLimbs; ++i) half[i] = (half[i] >> 1) | (i + 1 < kLimbs ? half[i + 1] << 63 : 0);
  if (pow(half) != one()) return std::nullopt;

  // A quadratic non-residue: -1 works when p = 3 mod 4, otherwise search small integers once.
  static const MontField z_base = [&] {
    for (u64 c = 2;; ++c) {
      MontField cand = from_u64(c);
      if (cand.pow(half) != one()) return cand;
    }
  }();
  MontField z = z_base.pow(q);
  Repr q1 = q;  // (q+1)/2
  limbs::add(q1, q1, Repr{1});
  for (std::size_t i = 0; i < kLimbs; ++i) q1[i] = (q1[i] >> 1) | (i + 1 < kLimbs ? q1[i + 1] << 63 : 0);
  MontField x = pow(q1);
  MontField b = pow(q);
  std::size_t m = s;
  while (b != one()) {
    std::size_t k = 0;
    MontField t = b;
    while (t != one()) {
      t = t.square();
      ++k;
    }
    MontField w = z;
    for (std::size_t i = 0; i + k + 1 < m; ++i) w = w.square();
    z = w.square();
    b *= z;
    x *= w;
    m = k;
  }
  return x;
}

}  // namespace cuzk::math
