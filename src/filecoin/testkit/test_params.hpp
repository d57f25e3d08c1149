// TEST-ONLY parameters under the official names (`cuzk setup --registered-proof`): keys from `toxic`
// for the partition circuit of a registered proof (PoRep, WindowPoSt, WinningPoSt), written as
// .params/.vk/.meta section by section (formats/bellperson/test_params_writer.hpp), never holding the
// whole key. The shape is cached beside the .params ("<params>.shape"), where the daemon and the
// prove commands look for it when they load these keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "base/result.hpp"
#include "filecoin/common/shape_cache.hpp"
#include "filecoin/params/cache_names.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/params.hpp"
#include "filecoin/post/config.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::filecoin::testkit {

struct SetupReport {
  std::size_t rows = 0, inputs = 0, aux = 0;
  std::uint32_t domain_log2 = 0;
  double shape_s = 0, keygen_s = 0, write_s = 0;  // keygen and write overlap; write_s = waits for the disk
  std::string shape_source;                       // filecoin::to_string(ShapeLoad::Source): cached, recorded, ...
  std::size_t shape_bytes = 0;                    // host bytes of the three matrices
  formats::bellperson::TestParamsReport detail;   // per stage and section
};
struct TestSetupOptions {
  std::size_t threads = 0;                                    // 0: cuzk::default_threads()
  groth16::FixedBaseMultiplier* multiplier = nullptr;         // nullptr: CPU (the app passes the GPU's when present)
  std::size_t chunk = 0;                                      // points per slice; 0: the writer's default
  ShapeCachePolicy shape_cache = ShapeCachePolicy::kEnabled;  // "<params>.shape" beside the keys
  // Optional progress (the app prints it): "circuit shape" (0, 0) before the shape is loaded or
  // recorded, then the key writer's stages and points (formats::bellperson::TestParamsOptions).
  std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
  std::size_t progress_points = 0;  // points per multiplier call while progress is shown; 0: a slice
};

// The shape of the circuit, loaded from or recorded into the cache file given (filecoin::ShapeLoad).
using ShapeSource = std::function<ShapeLoad(const std::string& cache_path, ShapeCachePolicy policy)>;

// Any family: the files params::param_paths(param_config, dir), keys for the shape `shape_source`
// returns, the .meta of param_config's sector size. `name` prefixes errors.
Result<params::ParamPaths> write_test_params(const params::ParamConfig& param_config, const std::string& name,
                                             const ShapeSource& shape_source, const std::string& dir,
                                             const groth16::ToxicWaste& toxic, SetupReport* report = nullptr,
                                             const TestSetupOptions& options = {});

// A PoRep partition (all variants of one sector size share the files).
Result<porep::PorepParamPaths> write_porep_test_params(const porep::PorepConfig& config, const std::string& dir,
                                                       const groth16::ToxicWaste& toxic, SetupReport* report = nullptr,
                                                       const TestSetupOptions& options = {});

// A PoSt partition: the WindowPoSt V1 and V1_1 codes of one size share the files (same circuit),
// WinningPoSt has its own.
Result<params::ParamPaths> write_post_test_params(const post::PostConfig& config, const std::string& dir,
                                                  const groth16::ToxicWaste& toxic, SetupReport* report = nullptr,
                                                  const TestSetupOptions& options = {});

}  // namespace cuzk::filecoin::testkit
