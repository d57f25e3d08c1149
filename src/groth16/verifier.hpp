// Groth16 verification with one multi-pairing:
//   e(A, B) * e(-alpha, beta) * e(-acc, gamma) * e(-C, delta) == 1,  acc = ic[0] + sum x_i ic[i+1]
#pragma once

#include <span>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"

namespace cuzk::groth16 {

// public_inputs excludes the constant ONE. Returns an error (not false) when the input count does not
// match the key or the key is malformed; false when the proof simply does not verify.
Result<bool> verify(const VerifyingKey& vk, std::span<const math::Fr> public_inputs, const Proof& proof);

// Checks the structural sanity of a verifying key read from an untrusted file.
Status check_verifying_key(const VerifyingKey& vk);

}  // namespace cuzk::groth16
