// snarkjs/circom witness files (.wtns, binfile magic "wtns", version 2; version 1 has the same layout):
//
//   sec1: u32 n8, prime (n8 LE), u32 nWitness        sec2: nWitness x Fr, plain little-endian (< r)
//
// w[0] is the constant ONE and must be 1; then public outputs, public inputs, private signals.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::formats {

Result<std::vector<math::Fr>> read_wtns(const std::string& path);
Result<std::vector<math::Fr>> parse_wtns(std::span<const std::uint8_t> bytes, const std::string& name);

// Writes a version-2 .wtns that `snarkjs groth16 prove` / `wtns check` accept.
Status write_wtns(const std::string& path, std::span<const math::Fr> witness);

}  // namespace cuzk::formats
