// UInt32 (bellperson gadgets/uint32.rs): 32 Booleans, least significant first, with the value.
//
// Representation: the logical value plus two masks — which bits are constants and which are
// Not(allocated bit) — and, in the modes that build linear combinations, the variable of every
// non-constant bit. Bit i is the Boolean Constant(v_i), Is(x_i) or Not(x_i) exactly as in
// bellperson. The masks let the witness and counting systems run xor, ch, maj and addmany a word
// at a time (SHA-256 is the bulk of PoRep witness generation) while allocating exactly the same
// variables in the same order as the per-bit code the recording/checking systems run.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <span>

#include "circuit/gadgets/boolean.hpp"
#include "circuit/gadgets/multieq.hpp"

namespace cuzk::circuit {

struct UInt32 {
  std::uint32_t value = 0;
  std::uint32_t const_mask = 0xffffffffu;
  std::uint32_t neg_mask = 0;
  std::array<Var, 32> vars{};  // meaningful for non-constant bits in LC-building modes

  static UInt32 constant(std::uint32_t v) {
    UInt32 r;
    r.value = v;
    return r;
  }
  Boolean bit(std::size_t i) const {
    const bool v = (value >> i) & 1;
    if ((const_mask >> i) & 1) return Boolean::constant(v);
    const bool neg = (neg_mask >> i) & 1;
    AllocatedBit ab{vars[i], v != neg};
    return neg ? Boolean::not_of(ab) : Boolean::is(ab);
  }
  void set_bit(std::size_t i, const Boolean& b) {
    const std::uint32_t m = std::uint32_t(1) << i;
    value = (value & ~m) | (b.value() ? m : 0);
    const_mask = (const_mask & ~m) | (b.is_constant() ? m : 0);
    neg_mask = (neg_mask & ~m) | (b.kind() == Boolean::Kind::kNot ? m : 0);
    vars[i] = b.var();
  }
  bool is_all_constant() const { return const_mask == 0xffffffffu; }

  // 32 big-endian bits (MSB first).
  static UInt32 from_bits_be(std::span<const Boolean> be) {
    UInt32 r;
    for (std::size_t i = 0; i < 32; ++i) r.set_bit(i, be[31 - i]);
    return r;
  }
  static UInt32 from_bits_le(std::span<const Boolean> le) {
    UInt32 r;
    for (std::size_t i = 0; i < 32; ++i) r.set_bit(i, le[i]);
    return r;
  }
  void into_bits_be(std::span<Boolean> out) const {
    for (std::size_t i = 0; i < 32; ++i) out[i] = bit(31 - i);
  }

  // with_vars = false skips moving the variable handles (fast modes never read them).
  UInt32 rotr(unsigned by, bool with_vars = true) const {
    by %= 32;
    UInt32 r;
    r.value = std::rotr(value, int(by));
    r.const_mask = std::rotr(const_mask, int(by));
    r.neg_mask = std::rotr(neg_mask, int(by));
    if (with_vars) {
      for (unsigned i = 0; i < 32; ++i) r.vars[i] = vars[(i + by) % 32];
    }
    return r;
  }
  UInt32 shr(unsigned by, bool with_vars = true) const {
    by %= 32;
    UInt32 r;
    const std::uint32_t fill = by ? ~(0xffffffffu >> by) : 0;  // the top `by` bits: constant false
    r.value = value >> by;
    r.const_mask = (const_mask >> by) | fill;
    r.neg_mask = neg_mask >> by;
    if (with_vars) {
      for (unsigned i = 0; i + by < 32; ++i) r.vars[i] = vars[i + by];
    }
    return r;
  }
};

namespace uint32_detail {

// The bits of x selected by mask, packed towards bit 0 in ascending order (a portable PEXT).
inline std::uint64_t compress_bits(std::uint32_t x, std::uint32_t mask) {
  if (mask == 0xffffffffu) return x;
  std::uint64_t r = 0;
  unsigned k = 0;
  for (std::uint32_t m = mask; m; m &= m - 1) r |= std::uint64_t((x >> std::countr_zero(m)) & 1) << k++;
  return r;
}

// Bit i of a goes to bit 2i, bit i of b to bit 2i+1.
inline std::uint64_t interleave(std::uint32_t a, std::uint32_t b) {
  auto spread = [](std::uint64_t x) {
    x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
    x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
  };
  return spread(a) | (spread(b) << 1);
}

}  // namespace uint32_detail

// The word-level path runs in the systems without linear combinations (witness, counting), which
// offer alloc_binary_bits(values, count) and add_rows(n).
template <class CS>
inline constexpr bool kWordLevel = !CS::LC::kActive;

template <class CS>
UInt32 uint32_alloc(CS& cs, std::uint32_t value) {
  UInt32 r;
  r.value = value;
  r.const_mask = 0;
  if constexpr (kWordLevel<CS>) {
    cs.alloc_binary_bits(value, 32);  // 32 AllocatedBit::alloc: one aux and one row each
    cs.add_rows(32);
  } else {
    for (int i = 0; i < 32; ++i) {
      auto g = cs.ns(Name("allocated bit", i));
      r.set_bit(std::size_t(i), Boolean::is(alloc_bit(cs, (value >> i) & 1)));
    }
  }
  return r;
}

template <class CS>
UInt32 uint32_xor(CS& cs, const UInt32& a, const UInt32& b) {
  if constexpr (kWordLevel<CS>) {
    // Per bit (boolean_xor): a constant operand makes the result the other operand, negated when
    // the constant is true; two allocated operands allocate x = u_a ^ u_b (underlying values), the
    // result being Not(x) when exactly one operand is a Not.
    const std::uint32_t ca = a.const_mask, cb = b.const_mask, na = a.neg_mask, nb = b.neg_mask;
    const std::uint32_t both = ~ca & ~cb;
    const std::uint32_t under = (a.value ^ na) ^ (b.value ^ nb);
    const unsigned n = unsigned(std::popcount(both));
    cs.alloc_binary_bits(uint32_detail::compress_bits(under, both), n);
    cs.add_rows(n);
    UInt32 r;
    r.value = a.value ^ b.value;
    r.const_mask = ca & cb;
    r.neg_mask = (both & (na ^ nb)) | (ca & ~cb & (nb ^ a.value)) | (cb & ~ca & (na ^ b.value));
    return r;
  } else {
    UInt32 r;
    for (int i = 0; i < 32; ++i) {
      auto g = cs.ns(Name("xor of bit", i));
      std::size_t k = std::size_t(i);
      r.set_bit(k, boolean_xor(cs, a.bit(k), b.bit(k)));
    }
    return r;
  }
}

template <class CS>
UInt32 uint32_sha256_ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  const std::uint32_t ch = (a.value & b.value) ^ (~a.value & c.value);
  if constexpr (kWordLevel<CS>) {
    if ((a.const_mask | b.const_mask | c.const_mask) == 0) {  // no constants: one alloc + row per bit
      cs.alloc_binary_bits(ch, 32);
      cs.add_rows(32);
      UInt32 r;
      r.value = ch;
      r.const_mask = 0;
      return r;
    }
  }
  UInt32 r;
  for (int i = 0; i < 32; ++i) {
    auto g = cs.ns(Name("ch", i));
    std::size_t k = std::size_t(i);
    r.set_bit(k, sha256_ch(cs, a.bit(k), b.bit(k), c.bit(k)));
  }
  assert(r.value == ch);
  return r;
}

template <class CS>
UInt32 uint32_sha256_maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  const std::uint32_t maj = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
  if constexpr (kWordLevel<CS>) {
    if ((a.const_mask | b.const_mask | c.const_mask) == 0) {
      // Per bit: maj, then (b and c) — whose allocated value is the logical b & c for every
      // Is/Not combination (and, and_not, nor) — two rows.
      cs.alloc_binary_bits(uint32_detail::interleave(maj, b.value & c.value), 64);
      cs.add_rows(64);
      UInt32 r;
      r.value = maj;
      r.const_mask = 0;
      return r;
    }
  }
  UInt32 r;
  for (int i = 0; i < 32; ++i) {
    auto g = cs.ns(Name("maj", i));
    std::size_t k = std::size_t(i);
    r.set_bit(k, sha256_maj(cs, a.bit(k), b.bit(k), c.bit(k)));
  }
  assert(r.value == maj);
  return r;
}

// Sum of 2..10 operands mod 2^32: allocates bit_length(n·(2^32-1)) result bits and enforces
// Σ operands = Σ 2^i result_i through the MultiEq; constant when every operand bit is constant.
// Operands are passed by pointer so deferred additions (SHA-256) need not copy them.
template <class CS>
UInt32 uint32_addmany(MultiEq<CS>& meq, const UInt32* const* operands, std::size_t n) {
  using LC = typename CS::LC;
  CS& cs = meq.cs();
  assert(n >= 2 && n <= 10);
  const std::uint64_t max_value = std::uint64_t(n) * 0xffffffffULL;
  const unsigned result_bits = unsigned(std::bit_width(max_value));
  std::uint64_t sum = 0;
  bool all_constants = true;
  LC lc;
  for (std::size_t k = 0; k < n; ++k) {
    const UInt32& op = *operands[k];
    sum += op.value;
    all_constants &= op.is_all_constant();
    if constexpr (LC::kActive) {
      Fr coeff = Fr::one();
      for (std::size_t i = 0; i < 32; ++i) {
        op.bit(i).add_to(lc, coeff);
        coeff = coeff.dbl();
      }
    }
  }
  if (all_constants) return UInt32::constant(std::uint32_t(sum));
  UInt32 r;
  r.value = std::uint32_t(sum);
  r.const_mask = 0;
  LC result_lc;
  if constexpr (kWordLevel<CS>) {
    cs.alloc_binary_bits(sum, result_bits);  // AllocatedBit per result bit: one aux + one row
    cs.add_rows(result_bits);
  } else {
    Fr coeff = Fr::one();
    for (unsigned i = 0; i < result_bits; ++i) {
      AllocatedBit b;
      {
        auto g = cs.ns(Name("result bit", i));
        b = alloc_bit(cs, (sum >> i) & 1);
      }
      result_lc.add(b.var, coeff);
      coeff = coeff.dbl();
      if (i < 32) r.set_bit(i, Boolean::is(b));
    }
  }
  meq.enforce_equal(result_bits, lc, result_lc);
  return r;
}

template <class CS>
UInt32 uint32_addmany(MultiEq<CS>& meq, std::span<const UInt32> operands) {
  const UInt32* ptrs[10];
  assert(operands.size() <= 10);
  for (std::size_t k = 0; k < operands.size(); ++k) ptrs[k] = &operands[k];
  return uint32_addmany(meq, ptrs, operands.size());
}

}  // namespace cuzk::circuit
