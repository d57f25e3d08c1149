#include "groth16/keys.hpp"

#include <string>

namespace cuzk::groth16 {
namespace {
Status mismatch(const char* what, std::size_t got, std::size_t want) {
  return Error{std::string("proving key: ") + what + " has " + std::to_string(got) + " entries, expected " +
               std::to_string(want)};
}
}  // namespace

Status ProvingKey::check_consistency() const {
  if (num_inputs == 0) return Error{"proving key: no inputs (ONE is missing)"};
  if (vk.ic.size() != num_inputs) return mismatch("ic", vk.ic.size(), num_inputs);
  if (l.size() != num_aux) return mismatch("l", l.size(), num_aux);
  if (a_aux_density.bits.size() != num_aux) return mismatch("a aux density", a_aux_density.bits.size(), num_aux);
  if (b_input_density.bits.size() != num_inputs) {
    return mismatch("b input density", b_input_density.bits.size(), num_inputs);
  }
  if (b_aux_density.bits.size() != num_aux) return mismatch("b aux density", b_aux_density.bits.size(), num_aux);
  if (a.size() != num_inputs + a_aux_density.popcount) {
    return mismatch("a", a.size(), num_inputs + a_aux_density.popcount);
  }
  std::size_t nb = b_input_density.popcount + b_aux_density.popcount;
  if (b_g1.size() != nb) return mismatch("b_g1", b_g1.size(), nb);
  if (b_g2.size() != nb) return mismatch("b_g2", b_g2.size(), nb);
  std::size_t want_h = h_basis == HBasis::kMonomialOverZ ? domain_size() - 1 : domain_size();
  if (h.size() != want_h) return mismatch("h", h.size(), want_h);
  if (vk.delta_g1.is_identity() || vk.delta_g2.is_identity()) return Error{"proving key: delta is the identity"};
  return ok_status();
}

}  // namespace cuzk::groth16
