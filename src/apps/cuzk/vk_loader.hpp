// Verifying keys and public inputs for `cuzk verify`, from either snarkjs JSON or bellperson files.
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"

namespace cuzk::cli {

// verification_key.json (snarkjs) when the name ends in .json, otherwise a bellperson .vk/.params.
Result<groth16::VerifyingKey> load_verifying_key(const std::string& path);

// inputs.json: a JSON array with one array of decimal (or 0x-hex) strings per partition.
Result<std::vector<std::vector<math::Fr>>> read_partition_inputs_json(const std::string& path);

}  // namespace cuzk::cli
