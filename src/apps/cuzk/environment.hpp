// The environment variables `cuzk` honours, read and checked once at start (main.cpp) and handed to
// the libraries as plain values (they read no environment themselves):
//   FIL_PROOFS_PARAMETER_CACHE  default parameter directory (params::parameter_cache_dir)
//   CUZK_SHAPE_CACHE            0: do not read or write "<params>.shape" caches; 1 or unset: do
//   CUZK_MSM_*, CUZK_NTT_*, CUZK_GPU_*  the CUDA backend's tuning (apps/common/gpu_tuning.hpp)
// A bad value is a one-line error at start; a non-default value is logged once on stderr.
#pragma once

#include <string>

#include "apps/common/gpu_tuning.hpp"
#include "base/result.hpp"
#include "filecoin/porep/shape.hpp"

namespace cuzk::cli {

struct CliEnvironment {
  std::string param_cache;  // FIL_PROOFS_PARAMETER_CACHE as given ("" when unset)
  filecoin::ShapeCachePolicy shape_cache = filecoin::ShapeCachePolicy::kEnabled;
  apps::GpuEnvTuning gpu;  // for DeviceBackends::create
};

// Reads and checks the variables; main() calls it once, before any subcommand runs.
Result<CliEnvironment> read_environment();
// What main() read (defaults until it has).
const CliEnvironment& environment();
void set_environment(CliEnvironment env);

// Shorthands for the subcommands.
std::string default_param_dir();  // params::parameter_cache_dir(environment().param_cache)
inline filecoin::ShapeCachePolicy shape_cache_policy() { return environment().shape_cache; }

}  // namespace cuzk::cli
