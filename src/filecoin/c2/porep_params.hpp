// PoRep Groth16 parameters under their official cache names (v28-stacked-proof-of-replication-…):
// where they live, TEST-ONLY generation for any registered proof, and loading them against the
// partition shape.
#pragma once

#include <string>

#include "base/result.hpp"
#include "filecoin/porep/config.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::filecoin::c2 {

struct PorepParamPaths {
  std::string params, vk, meta;
};
// DIR/<official stem>.{params,vk,meta} for the sector size of `config` (all variants of one size share
// the files, as in filecoin-proofs).
Result<PorepParamPaths> porep_param_paths(const porep::PorepConfig& config, const std::string& dir);

struct SetupReport {
  std::size_t rows = 0, inputs = 0, aux = 0;
  std::uint32_t domain_log2 = 0;
  double shape_s = 0, keygen_s = 0, write_s = 0;  // keygen and write overlap; write_s = waits for the disk
  std::string shape_source;                       // c2::to_string(PorepShapeLoad::Source): cached, recorded, ...
  std::size_t shape_bytes = 0;                    // host bytes of the three matrices
  formats::bellperson::TestParamsReport detail;   // per stage and section
};
struct PorepSetupOptions {
  std::size_t threads = 0;                              // 0: cuzk::default_threads()
  groth16::FixedBaseMultiplier* multiplier = nullptr;  // nullptr: CPU (the app passes the GPU's when present)
  std::size_t chunk = 0;                                // points per slice; 0: the writer's default
};
// TEST-ONLY: keys from `toxic` for the partition circuit of `config`, written as .params/.vk/.meta
// section by section (formats/bellperson/test_params_writer.hpp), never holding the whole key.
Result<PorepParamPaths> write_porep_test_params(const porep::PorepConfig& config, const std::string& dir,
                                                const groth16::ToxicWaste& toxic, SetupReport* report = nullptr,
                                                const PorepSetupOptions& options = {});

// The proving key for `shape` (= record_porep_shape(config)) from DIR's .params file.
Result<groth16::ProvingKey> load_porep_proving_key(const porep::PorepConfig& config, const std::string& dir,
                                                   const groth16::R1csShape& shape);
// The verifying key from DIR's .vk file (points validated, subgroup checks on).
Result<groth16::VerifyingKey> load_porep_vk(const porep::PorepConfig& config, const std::string& dir);

}  // namespace cuzk::filecoin::c2
