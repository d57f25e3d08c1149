// Boolean gadgets (bellpepper-core boolean.rs): AllocatedBit and Boolean = Is | Not | Constant.
// Allocation names, allocation order and rows follow bellpepper exactly; operations on constants are
// free. Every function is a template over the constraint system (constraint_system.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "circuit/constraint_system.hpp"

namespace cuzk::circuit {

struct AllocatedBit {
  Var var;
  bool value = false;
};

class Boolean {
 public:
  enum class Kind : std::uint8_t { kConstant, kIs, kNot };

  constexpr Boolean() = default;
  static constexpr Boolean constant(bool b) { return Boolean(Kind::kConstant, b, Var{}); }
  static constexpr Boolean is(AllocatedBit a) { return Boolean(Kind::kIs, a.value, a.var); }
  static constexpr Boolean not_of(AllocatedBit a) { return Boolean(Kind::kNot, a.value, a.var); }

  constexpr Kind kind() const { return kind_; }
  constexpr bool is_constant() const { return kind_ == Kind::kConstant; }
  constexpr bool value() const { return kind_ == Kind::kNot ? !bit_ : bit_; }
  // The underlying allocated bit (Is / Not only).
  constexpr AllocatedBit bit() const { return AllocatedBit{var_, bit_}; }
  constexpr Var var() const { return var_; }

  constexpr Boolean negate() const {  // bellpepper Boolean::not
    switch (kind_) {
      case Kind::kConstant: return constant(!bit_);
      case Kind::kIs: return Boolean(Kind::kNot, bit_, var_);
      default: return Boolean(Kind::kIs, bit_, var_);
    }
  }

  // lc += coeff · self (ONE for a true constant, 1 - var for Not).
  template <class LC>
  void add_to(LC& lc, const Fr& coeff) const {
    if constexpr (LC::kActive) {
      switch (kind_) {
        case Kind::kConstant:
          if (bit_) lc.add(Var::one(), coeff);
          break;
        case Kind::kIs: lc.add(var_, coeff); break;
        case Kind::kNot:
          lc.add(Var::one(), coeff);
          lc.sub(var_, coeff);
          break;
      }
    }
  }
  template <class LC>
  LC lc(const Fr& coeff) const {
    LC out;
    add_to(out, coeff);
    return out;
  }
  template <class LC>
  LC lc() const {
    return lc<LC>(fr_one());
  }

 private:
  constexpr Boolean(Kind k, bool b, Var v) : kind_(k), bit_(b), var_(v) {}
  Kind kind_ = Kind::kConstant;
  bool bit_ = false;
  Var var_{};
};

// ---- AllocatedBit ------------------------------------------------------------------------------

// One aux + row (1 - a)·a = 0.
template <class CS>
AllocatedBit alloc_bit(CS& cs, bool value) {
  using LC = typename CS::LC;
  Var v = cs.alloc_binary("boolean", value);
  cs.enforce("boolean constraint", LC(Var::one()) - v, LC(v), LC());
  return {v, value};
}

// (1 - a - must_be_false)·a = 0: a can only be 1 when must_be_false is 0.
template <class CS>
AllocatedBit alloc_bit_conditionally(CS& cs, bool value, const AllocatedBit& must_be_false) {
  using LC = typename CS::LC;
  Var v = cs.alloc_binary("boolean", value);
  cs.enforce("boolean constraint", LC(Var::one()) - must_be_false.var - v, LC(v), LC());
  return {v, value};
}

template <class CS>
AllocatedBit bit_xor(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  using LC = typename CS::LC;
  bool r = a.value ^ b.value;
  Var v = cs.alloc_binary("xor result", r);
  // (a + a)·b = a + b - c
  cs.enforce("xor constraint", LC(a.var) + a.var, LC(b.var), LC(a.var) + b.var - v);
  return {v, r};
}

template <class CS>
AllocatedBit bit_and(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  using LC = typename CS::LC;
  bool r = a.value && b.value;
  Var v = cs.alloc_binary("and result", r);
  cs.enforce("and constraint", LC(a.var), LC(b.var), LC(v));
  return {v, r};
}

// a AND NOT b
template <class CS>
AllocatedBit bit_and_not(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  using LC = typename CS::LC;
  bool r = a.value && !b.value;
  Var v = cs.alloc_binary("and not result", r);
  cs.enforce("and not constraint", LC(a.var), LC(Var::one()) - b.var, LC(v));
  return {v, r};
}

template <class CS>
AllocatedBit bit_nor(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  using LC = typename CS::LC;
  bool r = !a.value && !b.value;
  Var v = cs.alloc_binary("nor result", r);
  cs.enforce("nor constraint", LC(Var::one()) - a.var, LC(Var::one()) - b.var, LC(v));
  return {v, r};
}

// ---- Boolean -----------------------------------------------------------------------------------

template <class CS>
Boolean boolean_xor(CS& cs, const Boolean& a, const Boolean& b) {
  using K = Boolean::Kind;
  if (a.kind() == K::kConstant && !a.value()) return b;
  if (b.kind() == K::kConstant && !b.value()) return a;
  if (a.kind() == K::kConstant) return b.negate();  // a is constant true
  if (b.kind() == K::kConstant) return a.negate();
  if (a.kind() != b.kind()) {
    // Is ^ Not = !(Is ^ Is)
    const Boolean& is = a.kind() == K::kIs ? a : b;
    const Boolean& nt = a.kind() == K::kIs ? b : a;
    return Boolean::is(bit_xor(cs, is.bit(), nt.bit())).negate();
  }
  return Boolean::is(bit_xor(cs, a.bit(), b.bit()));  // Is^Is, or Not^Not (= a^b)
}

template <class CS>
Boolean boolean_and(CS& cs, const Boolean& a, const Boolean& b) {
  using K = Boolean::Kind;
  if ((a.kind() == K::kConstant && !a.value()) || (b.kind() == K::kConstant && !b.value()))
    return Boolean::constant(false);
  if (a.kind() == K::kConstant) return b;  // constant true
  if (b.kind() == K::kConstant) return a;
  if (a.kind() == K::kIs && b.kind() == K::kNot) return Boolean::is(bit_and_not(cs, a.bit(), b.bit()));
  if (a.kind() == K::kNot && b.kind() == K::kIs) return Boolean::is(bit_and_not(cs, b.bit(), a.bit()));
  if (a.kind() == K::kNot) return Boolean::is(bit_nor(cs, a.bit(), b.bit()));
  return Boolean::is(bit_and(cs, a.bit(), b.bit()));
}

template <class CS>
Boolean boolean_or(CS& cs, const Boolean& a, const Boolean& b) {
  auto g = cs.ns("not and (not a) (not b)");
  return boolean_and(cs, a.negate(), b.negate()).negate();
}

// (a and b) xor ((not a) and c), one aux + one row in the general case.
template <class CS>
Boolean sha256_ch(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  using LC = typename CS::LC;
  using K = Boolean::Kind;
  const bool av = a.value(), bv = b.value(), cv = c.value();
  const bool ch = (av && bv) ^ (!av && cv);
  const bool ac = a.is_constant(), bc = b.is_constant(), cc = c.is_constant();
  if (ac && bc && cc) return Boolean::constant(ch);
  if (a.kind() == K::kConstant && !av) return c;
  if (b.kind() == K::kConstant && !bv) return boolean_and(cs, a.negate(), c);
  if (c.kind() == K::kConstant && !cv) return boolean_and(cs, a, b);
  if (c.kind() == K::kConstant && cv) return boolean_and(cs, a, b.negate()).negate();
  if (b.kind() == K::kConstant && bv) return boolean_and(cs, a.negate(), c.negate()).negate();
  // a constant true, or nothing constant: allocate.
  Var v = cs.alloc_binary("ch", ch);
  // (b - c)·a = ch - c
  if constexpr (LC::kActive) {
    LC la = b.template lc<LC>();
    c.add_to(la, fr_minus_one());
    LC lc = LC(v);
    c.add_to(lc, fr_minus_one());
    cs.enforce("ch computation", la, a.template lc<LC>(), lc);
  } else {
    cs.enforce("ch computation", LC(), LC(), LC());
  }
  return Boolean::is(AllocatedBit{v, ch});
}

// (a and b) xor (a and c) xor (b and c): allocates maj, then bc = b and c, then one row.
template <class CS>
Boolean sha256_maj(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  using LC = typename CS::LC;
  using K = Boolean::Kind;
  const bool av = a.value(), bv = b.value(), cv = c.value();
  const bool maj = (av && bv) ^ (av && cv) ^ (bv && cv);
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::constant(maj);
  if (a.kind() == K::kConstant && !av) return boolean_and(cs, b, c);
  if (b.kind() == K::kConstant && !bv) return boolean_and(cs, a, c);
  if (c.kind() == K::kConstant && !cv) return boolean_and(cs, a, b);
  if (c.kind() == K::kConstant && cv) return boolean_and(cs, a.negate(), b.negate()).negate();
  if (b.kind() == K::kConstant && bv) return boolean_and(cs, a.negate(), c.negate()).negate();
  if (a.kind() == K::kConstant && av) return boolean_and(cs, b.negate(), c.negate()).negate();
  Var v = cs.alloc_binary("maj", maj);
  Boolean bc;
  {
    auto g = cs.ns("b and c");
    bc = boolean_and(cs, b, c);
  }
  // (bc + bc - b - c)·a = bc - maj
  if constexpr (LC::kActive) {
    LC la;
    bc.add_to(la, fr_one());
    bc.add_to(la, fr_one());
    b.add_to(la, fr_minus_one());
    c.add_to(la, fr_minus_one());
    LC lc = bc.template lc<LC>();
    lc.sub(v);
    cs.enforce("maj computation", la, a.template lc<LC>(), lc);
  } else {
    cs.enforce("maj computation", LC(), LC(), LC());
  }
  return Boolean::is(AllocatedBit{v, maj});
}

// Enforces a == b (returns false when both are constants that differ: unsatisfiable).
template <class CS>
bool boolean_enforce_equal(CS& cs, const Boolean& a, const Boolean& b) {
  using LC = typename CS::LC;
  if (a.is_constant() && b.is_constant()) return a.value() == b.value();
  if ((a.is_constant() && a.value()) || (b.is_constant() && b.value())) {
    const Boolean& x = a.is_constant() ? b : a;
    LC lc(Var::one());
    x.add_to(lc, fr_minus_one());
    cs.enforce("enforce equal to one", LC(), LC(), lc);
  } else if (a.is_constant() || b.is_constant()) {
    const Boolean& x = a.is_constant() ? b : a;
    cs.enforce("enforce equal to zero", LC(), LC(), x.template lc<LC>());
  } else {
    LC lc = a.template lc<LC>();
    b.add_to(lc, fr_minus_one());
    cs.enforce("enforce equal", LC(), LC(), lc);
  }
  return true;
}

// ---- bit vectors -------------------------------------------------------------------------------

// 64 allocated bits, LSB first (bellpepper u64_into_boolean_vec_le).
template <class CS>
std::vector<Boolean> u64_into_boolean_vec_le(CS& cs, std::uint64_t value) {
  std::vector<Boolean> out;
  out.reserve(64);
  for (int i = 0; i < 64; ++i) {
    auto g = cs.ns(Name("bit", i));
    out.push_back(Boolean::is(alloc_bit(cs, (value >> i) & 1)));
  }
  return out;
}

// Bits of bytes, least significant bit of each byte first (storage-proofs bytes_into_boolean_vec).
template <class CS>
std::vector<Boolean> bytes_into_boolean_vec_le(CS& cs, std::span<const std::uint8_t> bytes) {
  std::vector<Boolean> out;
  out.reserve(bytes.size() * 8);
  for (std::size_t k = 0; k < bytes.size() * 8; ++k) {
    auto g = cs.ns(Name("bit", std::int64_t(k)));
    out.push_back(Boolean::is(alloc_bit(cs, (bytes[k / 8] >> (k % 8)) & 1)));
  }
  return out;
}

// storage-proofs reverse_bit_numbering: pad with constant false to whole bytes, reverse each byte.
inline std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
  while (bits.size() % 8) bits.push_back(Boolean::constant(false));
  for (std::size_t k = 0; k < bits.size(); k += 8) std::reverse(bits.begin() + k, bits.begin() + k + 8);
  return bits;
}

}  // namespace cuzk::circuit
