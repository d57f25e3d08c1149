// A parameter set's files in a directory and their loading against a recorded shape, for every proof
// family (PoRep, the PoSts, SnapDeals): DIR/<official stem>.{params,vk,meta} (cache_names.hpp).
#pragma once

#include <string>

#include "base/result.hpp"
#include "filecoin/params/cache_names.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::params {

struct ParamPaths {
  std::string params, vk, meta;
};
ParamPaths param_paths(const ParamConfig& config, const std::string& dir);
// The family's config at sector_size, or an error naming both.
Result<ParamPaths> param_paths(ProofFamily family, std::uint64_t sector_size, const std::string& dir);

// The proving key for `shape` from the .params file (formats/bellperson/params.hpp).
Result<groth16::ProvingKey> load_proving_key(const ParamPaths& paths, const groth16::R1csShape& shape);
// The verifying key from the .vk file (points validated, subgroup checks on).
Result<groth16::VerifyingKey> load_verifying_key(const ParamPaths& paths);

}  // namespace cuzk::filecoin::params
