// PoRep Groth16 parameters under their official cache names (v28-stacked-proof-of-replication-…):
// where they live and loading them against the partition shape. (TEST-ONLY generation:
// filecoin/testkit/test_params.hpp.)
#pragma once

#include <string>

#include "base/result.hpp"
#include "filecoin/porep/config.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::porep {

struct PorepParamPaths {
  std::string params, vk, meta;
};
// DIR/<official stem>.{params,vk,meta} for the sector size of `config` (all variants of one size share
// the files, as in filecoin-proofs).
Result<PorepParamPaths> porep_param_paths(const porep::PorepConfig& config, const std::string& dir);

// The proving key for `shape` (= record_porep_shape(config)) from DIR's .params file.
Result<groth16::ProvingKey> load_porep_proving_key(const porep::PorepConfig& config, const std::string& dir,
                                                   const groth16::R1csShape& shape);
// The verifying key from DIR's .vk file (points validated, subgroup checks on).
Result<groth16::VerifyingKey> load_porep_vk(const porep::PorepConfig& config, const std::string& dir);

}  // namespace cuzk::filecoin::porep
