// multipack (bellperson gadgets/multipack.rs): bits packed 254 per field element (Fr::CAPACITY).
#pragma once

#include <span>
#include <vector>

#include "circuit/gadgets/num.hpp"

namespace cuzk::circuit {

inline constexpr std::size_t kFrCapacity = 254;

// Each chunk of 254 bits becomes a new input x with row (Σ 2^i bit_i)·1 = x.
template <class CS>
void pack_into_inputs(CS& cs, std::span<const Boolean> bits) {
  using LC = typename CS::LC;
  for (std::size_t start = 0, chunk = 0; start < bits.size(); start += kFrCapacity, ++chunk) {
    std::size_t end = std::min(bits.size(), start + kFrCapacity);
    NumLC<LC> num;
    Fr coeff = Fr::one();
    for (std::size_t k = start; k < end; ++k) {
      num.add_bool_with_coeff(bits[k], coeff);
      coeff = coeff.dbl();
    }
    Var x = cs.alloc_input(Name("input", std::int64_t(chunk)), num.value);
    cs.enforce(Name("packing constraint", std::int64_t(chunk)), num.lc, LC(Var::one()), LC(x));
  }
}

// The first 254 bits become one new aux variable with row (Σ 2^i bit_i)·1 = num.
template <class CS>
AllocatedNum pack_bits(CS& cs, std::span<const Boolean> bits) {
  using LC = typename CS::LC;
  NumLC<LC> num;
  Fr coeff = Fr::one();
  for (std::size_t k = 0; k < bits.size() && k < kFrCapacity; ++k) {
    num.add_bool_with_coeff(bits[k], coeff);
    coeff = coeff.dbl();
  }
  AllocatedNum out;
  {
    auto g = cs.ns("input");
    out = alloc_num(cs, num.value);
  }
  cs.enforce("packing constraint", num.lc, LC(Var::one()), LC(out.var));
  return out;
}

// The public inputs pack_into_inputs creates for these bits (native twin).
inline std::vector<Fr> compute_multipacking(const std::vector<bool>& bits) {
  std::vector<Fr> out;
  for (std::size_t start = 0; start < bits.size(); start += kFrCapacity) {
    Fr cur = Fr::zero(), coeff = Fr::one();
    for (std::size_t k = start; k < std::min(bits.size(), start + kFrCapacity); ++k) {
      if (bits[k]) cur += coeff;
      coeff = coeff.dbl();
    }
    out.push_back(cur);
  }
  return out;
}

}  // namespace cuzk::circuit
