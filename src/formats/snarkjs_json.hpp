// snarkjs' JSON files for Groth16 on BLS12-381 (curve name "bls12381"):
//
//   proof.json              {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]],
//                            "pi_c": [x, y, "1"], "protocol": "groth16", "curve": "bls12381"}
//   public.json             ["out...", "in..."]  (w[1..nPublic]: outputs first, then public inputs)
//   verification_key.json   {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2",
//                            "vk_delta_2", "vk_alphabeta_12", "IC"}
//
// All numbers are decimal strings (nPublic is a JSON number); points are affine with the projective
// z appended ("1", or ["1", "0"] in G2), the point at infinity is ["0", "1", "0"]. The writers produce
// the bytes snarkjs writes (JSON.stringify(x, null, 1) layout, no trailing newline). The readers
// reject malformed JSON, a wrong protocol or curve, wrong array lengths, values >= the modulus and
// points off the curve or outside the prime-order subgroup, with a one-line message naming the file
// and the JSON path (e.g. "proof.json: pi_b[1][0]: not a decimal number below q").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "math/ff/fp12.hpp"

namespace cuzk::formats {

// ---- proof.json
std::string proof_to_json(const groth16::Proof& proof);
Status write_proof_json(const std::string& path, const groth16::Proof& proof);
// Proof components must be on the curve, in the subgroup, and not the identity (z = "1").
Result<groth16::Proof> parse_proof_json(std::string_view text, const std::string& name);
Result<groth16::Proof> read_proof_json(const std::string& path);

// ---- public.json
std::string public_to_json(std::span<const math::Fr> values);
Status write_public_json(const std::string& path, std::span<const math::Fr> values);
Result<std::vector<math::Fr>> parse_public_json(std::string_view text, const std::string& name);
Result<std::vector<math::Fr>> read_public_json(const std::string& path);

// ---- verification_key.json
struct VerificationKeyJson {
  groth16::VerifyingKey vk;  // beta_g1 and delta_g1 are not in the JSON: left as the identity
  std::uint32_t n_public = 0;
  std::optional<math::Fp12> alphabeta_12;  // when present it has been checked against e(alpha, beta)
};
// e(alpha_1, beta_2) as vk_alphabeta_12 holds it (equal to math::pairing; see snarkjs_json.cpp).
math::Fp12 snarkjs_alphabeta(const math::G1Affine& alpha, const math::G2Affine& beta);
std::string verification_key_to_json(const groth16::VerifyingKey& vk);
Status write_verification_key_json(const std::string& path, const groth16::VerifyingKey& vk);
Result<VerificationKeyJson> parse_verification_key_json(std::string_view text, const std::string& name);
Result<VerificationKeyJson> read_verification_key_json(const std::string& path);

}  // namespace cuzk::formats
