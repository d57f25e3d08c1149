// TEST-ONLY PoRep parameters under the official names (`cuzk setup --registered-proof`): keys from
// `toxic` for the partition circuit of a registered proof, written as .params/.vk/.meta section by
// section (formats/bellperson/test_params_writer.hpp), never holding the whole key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/params.hpp"
#include "filecoin/porep/shape.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::filecoin::testkit {

struct SetupReport {
  std::size_t rows = 0, inputs = 0, aux = 0;
  std::uint32_t domain_log2 = 0;
  double shape_s = 0, keygen_s = 0, write_s = 0;  // keygen and write overlap; write_s = waits for the disk
  std::string shape_source;                       // porep::to_string(PorepShapeLoad::Source): cached, recorded, ...
  std::size_t shape_bytes = 0;                    // host bytes of the three matrices
  formats::bellperson::TestParamsReport detail;   // per stage and section
};
struct PorepSetupOptions {
  std::size_t threads = 0;                              // 0: cuzk::default_threads()
  groth16::FixedBaseMultiplier* multiplier = nullptr;  // nullptr: CPU (the app passes the GPU's when present)
  std::size_t chunk = 0;                                // points per slice; 0: the writer's default
  porep::ShapeCachePolicy shape_cache = porep::ShapeCachePolicy::kEnabled;  // "<params>.shape" beside the keys
};
// TEST-ONLY: keys from `toxic` for the partition circuit of `config`, written as .params/.vk/.meta
// section by section (formats/bellperson/test_params_writer.hpp), never holding the whole key.
Result<porep::PorepParamPaths> write_porep_test_params(const porep::PorepConfig& config, const std::string& dir,
                                                const groth16::ToxicWaste& toxic, SetupReport* report = nullptr,
                                                const PorepSetupOptions& options = {});

}  // namespace cuzk::filecoin::testkit
