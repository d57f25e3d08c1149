// AllocatedNum and Num (bellpepper-core num.rs), plus storage-proofs' constraint helpers.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "circuit/gadgets/boolean.hpp"

namespace cuzk::circuit {

struct AllocatedNum {
  Var var;
  Fr value;
};

// A value with the linear combination that computes it, not yet allocated (bellpepper Num).
template <class LC>
struct NumLC {
  Fr value = Fr::zero();
  LC lc;

  static NumLC zero() { return {}; }
  static NumLC from(const AllocatedNum& n) { return {n.value, LC(n.var)}; }
  // self + coeff·bit
  NumLC& add_bool_with_coeff(const Boolean& bit, const Fr& coeff) {
    if (bit.value()) value += coeff;
    bit.add_to(lc, coeff);
    return *this;
  }
  NumLC& add(const NumLC& o) {
    value += o.value;
    lc.add(o.lc);
    return *this;
  }
  NumLC& scale(const Fr& s) {
    value *= s;
    lc.scale(s);
    return *this;
  }
};

template <class CS>
AllocatedNum alloc_num(CS& cs, const Fr& value) {
  return {cs.alloc("num", value), value};
}
template <class CS>
AllocatedNum alloc_input_num(CS& cs, const Fr& value) {
  return {cs.alloc_input("input num", value), value};
}

// New input x and row x·1 = num.
template <class CS>
void inputize(CS& cs, const AllocatedNum& num) {
  using LC = typename CS::LC;
  Var x = cs.alloc_input("input variable", num.value);
  cs.enforce("enforce input is correct", LC(x), LC(Var::one()), LC(num.var));
}

// The 255 bits of value's canonical form, LSB first, each an AllocatedBit (no unpacking row).
template <class CS>
void field_into_allocated_bits_le(CS& cs, const Fr& value, std::span<AllocatedBit, 255> out) {
  auto repr = value.to_canonical();
  for (int i = 0; i < 255; ++i) {
    auto g = cs.ns(Name("bit", i));
    out[std::size_t(i)] = alloc_bit(cs, (repr[std::size_t(i) / 64] >> (i % 64)) & 1);
  }
}

// Non-strict decomposition: 255 bits then the row 0·0 = Σ 2^i b_i - num (256 rows).
template <class CS>
void to_bits_le(CS& cs, const AllocatedNum& num, std::span<Boolean, 255> out) {
  using LC = typename CS::LC;
  std::array<AllocatedBit, 255> bits;
  field_into_allocated_bits_le(cs, num.value, bits);
  LC lc;
  if constexpr (LC::kActive) {
    Fr coeff = Fr::one();
    for (const auto& b : bits) {
      lc.add(b.var, coeff);
      coeff = coeff.dbl();
    }
    lc.sub(num.var);
  }
  cs.enforce("unpacking constraint", LC(), LC(), lc);
  for (std::size_t i = 0; i < 255; ++i) out[i] = Boolean::is(bits[i]);
}
template <class CS>
std::vector<Boolean> to_bits_le(CS& cs, const AllocatedNum& num) {
  std::vector<Boolean> out(255);
  to_bits_le(cs, num, std::span<Boolean, 255>(out.data(), 255));
  return out;
}

template <class CS>
AllocatedNum num_add(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  using LC = typename CS::LC;
  Fr v = a.value + b.value;
  Var r = cs.alloc("sum num", v);
  cs.enforce("addition constraint", LC(a.var) + b.var, LC(Var::one()), LC(r));
  return {r, v};
}

template <class CS>
AllocatedNum num_mul(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  using LC = typename CS::LC;
  Fr v = a.value * b.value;
  Var r = cs.alloc("product num", v);
  cs.enforce("multiplication constraint", LC(a.var), LC(b.var), LC(r));
  return {r, v};
}

template <class CS>
AllocatedNum num_square(CS& cs, const AllocatedNum& a) {
  using LC = typename CS::LC;
  Fr v = a.value.square();
  Var r = cs.alloc("squared num", v);
  cs.enforce("squaring constraint", LC(a.var), LC(a.var), LC(r));
  return {r, v};
}

// Rows a·1 = b (storage-proofs constraint::equal).
template <class CS>
void enforce_equal(CS& cs, Name name, const AllocatedNum& a, const AllocatedNum& b) {
  using LC = typename CS::LC;
  cs.enforce(name, LC(a.var), LC(Var::one()), LC(b.var));
}

// (a + b)·1 = sum (storage-proofs constraint::sum) and the allocating form constraint::add.
template <class CS>
void enforce_sum(CS& cs, Name name, const AllocatedNum& a, const AllocatedNum& b, const AllocatedNum& sum) {
  using LC = typename CS::LC;
  cs.enforce(name, LC(a.var) + b.var, LC(Var::one()), LC(sum.var));
}
template <class CS>
AllocatedNum constraint_add(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  AllocatedNum res;
  {
    auto g = cs.ns("add_num");
    res = alloc_num(cs, a.value + b.value);
  }
  enforce_sum(cs, "sum constraint", a, b, res);
  return res;
}

// bellpepper AllocatedNum::conditionally_reverse: (c, d) = condition ? (b, a) : (a, b).
template <class CS>
std::pair<AllocatedNum, AllocatedNum> conditionally_reverse(CS& cs, const AllocatedNum& a, const AllocatedNum& b,
                                                            const Boolean& condition) {
  using LC = typename CS::LC;
  AllocatedNum c, d;
  {
    auto g = cs.ns("conditional reversal result 1");
    c = alloc_num(cs, condition.value() ? b.value : a.value);
  }
  cs.enforce("first conditional reversal", LC(a.var) - b.var, condition.template lc<LC>(), LC(a.var) - c.var);
  {
    auto g = cs.ns("conditional reversal result 2");
    d = alloc_num(cs, condition.value() ? a.value : b.value);
  }
  cs.enforce("second conditional reversal", LC(b.var) - a.var, condition.template lc<LC>(), LC(b.var) - d.var);
  return {c, d};
}

}  // namespace cuzk::circuit
