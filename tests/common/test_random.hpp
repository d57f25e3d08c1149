// Deterministic randomness for tests: every failure reproduces with the same seed.
#pragma once

#include <cstdint>

#include "math/ec/bls12_381.hpp"

namespace cuzk::test {

struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed = 0x5eed) : state(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  template <class F>
  F field() {
    typename F::Repr x;
    for (auto& l : x) l = next();
    return F::from_reduced(x);  // reduction bias is irrelevant for tests
  }
  math::Fr fr() { return field<math::Fr>(); }
  math::Fp fp() { return field<math::Fp>(); }
  math::Fp2 fp2() { return {fp(), fp()}; }
  math::G1Affine g1() { return math::G1Jacobian::from_affine(math::g1_generator()).mul(fr()).to_affine(); }
  math::G2Affine g2() { return math::G2Jacobian::from_affine(math::g2_generator()).mul(fr()).to_affine(); }
};

}  // namespace cuzk::test
