// MultiEq (bellperson gadgets/multieq.rs): batches equalities lhs_k = rhs_k of small bit widths into
// one row Σ 2^{off_k} lhs_k · 1 = Σ 2^{off_k} rhs_k, emitting the row just before the packed width
// would reach Fr::CAPACITY (254) and, for the remainder, when flush() runs (bellperson: on drop).
#pragma once

#include <array>

#include "circuit/constraint_system.hpp"

namespace cuzk::circuit {

template <class CS>
class MultiEq {
 public:
  using LC = typename CS::LC;

  explicit MultiEq(CS& cs) : cs_(cs) {}
  ~MultiEq() { flush(); }
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;

  CS& cs() { return cs_; }

  void enforce_equal(std::size_t num_bits, const LC& lhs, const LC& rhs) {
    if (254 <= bits_used_ + num_bits) accumulate();
    if constexpr (LC::kActive) {
      Fr coeff = pow2(bits_used_);
      lhs_.add(lhs, coeff);
      rhs_.add(rhs, coeff);
    }
    bits_used_ += num_bits;
  }

  void flush() {
    if (bits_used_ > 0) accumulate();
  }

 private:
  static Fr pow2(std::size_t k) {
    static const auto table = [] {
      std::array<Fr, 254> t;
      t[0] = Fr::one();
      for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1].dbl();
      return t;
    }();
    return table[k];
  }
  void accumulate() {
    cs_.enforce(Name("multieq", std::int64_t(ops_)), lhs_, LC(Var::one()), rhs_);
    lhs_.clear();
    rhs_.clear();
    bits_used_ = 0;
    ++ops_;
  }

  CS& cs_;
  std::size_t ops_ = 0, bits_used_ = 0;
  LC lhs_, rhs_;
};

}  // namespace cuzk::circuit
