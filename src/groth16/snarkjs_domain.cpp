#include "groth16/snarkjs_domain.hpp"

#include "base/parallel.hpp"

namespace cuzk::groth16 {
namespace {
using math::Fr;

math::Limbs<4> odd_part_of_r_minus_1() {
  math::Limbs<4> t = math::FrParams::kModulus;
  t[0] -= 1;
  for (std::size_t k = 0; k < math::kFrTwoAdicity; ++k)
    for (std::size_t i = 0; i < 4; ++i) t[i] = (t[i] >> 1) | (i + 1 < 4 ? t[i + 1] << 63 : 0);
  return t;
}
}  // namespace

const Fr& snarkjs_root_of_unity() {
  static const Fr w = Fr::from_u64(5).pow(odd_part_of_r_minus_1());
  return w;
}

std::uint64_t snarkjs_root_exponent() {
  static const std::uint64_t e = [] {
    // Pohlig-Hellman in the cyclic group of order 2^32: fix e bit by bit so that
    // (target * w^-e)^(2^(31-k)) == 1 after step k.
    const Fr w = math::fr_root_of_unity(), w_inv = w.inverse();
    const Fr target = snarkjs_root_of_unity();
    std::uint64_t acc = 0;
    Fr w_inv_pow = w_inv;  // w^-(2^k)
    Fr residual = target;  // target * w^-acc
    for (std::size_t k = 0; k < math::kFrTwoAdicity; ++k) {
      Fr x = residual;
      for (std::size_t i = 0; i + k + 1 < math::kFrTwoAdicity; ++i) x = x.square();
      if (x != Fr::one()) {
        acc |= std::uint64_t(1) << k;
        residual *= w_inv_pow;
      }
      w_inv_pow = w_inv_pow.square();
    }
    return acc;
  }();
  return e;
}

Fr root_of_unity(std::uint32_t log_n, bool snarkjs) {
  Fr w = snarkjs ? snarkjs_root_of_unity() : math::fr_root_of_unity();
  for (std::uint32_t i = log_n; i < math::kFrTwoAdicity; ++i) w = w.square();
  return w;
}

std::vector<Fr> snarkjs_to_our_order(std::span<const Fr> in) {
  const std::uint64_t mask = in.size() - 1, e = snarkjs_root_exponent();
  std::vector<Fr> out(in.size());
  parallel_for(
      in.size(), [&](std::size_t k) { out[(e * k) & mask] = in[k]; }, 1 << 14);
  return out;
}

std::vector<Fr> our_to_snarkjs_order(std::span<const Fr> in) {
  const std::uint64_t mask = in.size() - 1, e = snarkjs_root_exponent();
  std::vector<Fr> out(in.size());
  parallel_for(
      in.size(), [&](std::size_t k) { out[k] = in[(e * k) & mask]; }, 1 << 14);
  return out;
}

}  // namespace cuzk::groth16
