#include "groth16/verifier.hpp"

#include <string>
#include <utility>

#include "math/pairing/pairing.hpp"

namespace cuzk::groth16 {

Status check_verifying_key(const VerifyingKey& vk) {
  if (vk.ic.empty()) return Error{"verifying key: ic is empty"};
  auto on_curve = vk.alpha_g1.is_on_curve() && vk.beta_g1.is_on_curve() && vk.beta_g2.is_on_curve() &&
                  vk.gamma_g2.is_on_curve() && vk.delta_g1.is_on_curve() && vk.delta_g2.is_on_curve();
  if (!on_curve) return Error{"verifying key: a point is not on the curve"};
  for (std::size_t i = 0; i < vk.ic.size(); ++i) {
    if (!vk.ic[i].is_on_curve()) return Error{"verifying key: ic[" + std::to_string(i) + "] is not on the curve"};
  }
  return ok_status();
}

Result<bool> verify(const VerifyingKey& vk, std::span<const math::Fr> public_inputs, const Proof& proof) {
  if (vk.ic.size() != public_inputs.size() + 1) {
    return Error{"verifying key expects " + std::to_string(vk.num_public_inputs()) + " public inputs, got " +
                 std::to_string(public_inputs.size())};
  }
  math::G1Jacobian acc = math::G1Jacobian::from_affine(vk.ic[0]);
  for (std::size_t i = 0; i < public_inputs.size(); ++i) {
    acc += math::G1Jacobian::from_affine(vk.ic[i + 1]).mul(public_inputs[i]);
  }
  const std::pair<math::G1Affine, math::G2Affine> terms[] = {
      {proof.a, proof.b},
      {-vk.alpha_g1, vk.beta_g2},
      {(-acc).to_affine(), vk.gamma_g2},
      {-proof.c, vk.delta_g2},
  };
  return math::pairing_product_is_one(terms);
}

}  // namespace cuzk::groth16
