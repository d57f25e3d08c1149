// The one place where the GPU backend's CUZK_* tuning variables are read (issue 23: tuning is data).
// gpu_tuning_from_env() maps each variable to its field of gpu::GpuTuning (gpu/tuning.hpp) or of the
// apps' own GPU settings (per-stage profile lines, H copies), checks its range, and lists the
// variables set to a non-default value so that the caller logs them once. The environment is read
// through the function passed in (std::getenv in the programs, a map in the tests); nothing below
// src/apps calls getenv.
//
// Plain C++20 with no library beyond the standard one (target cuzk_gpu_tuning), so the GPU-host
// build (CUZK_GPU_CORE_ONLY) and its check/bench programs use it too.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "gpu/tuning.hpp"

namespace cuzk::apps {

struct GpuEnvTuning {
  gpu::GpuTuning tuning;
  // CUZK_GPU_PROFILE=1: every proof runs its GPU stages one after the other (GpuProveOptions::profile)
  // and the apps print its per-stage times as one GPU_PROFILE line.
  bool profile = false;
  // CUZK_GPU_H_COPIES (0-4): resident keys' H copies when the config gives none; 0: the backend's default.
  std::uint32_t h_copies = 0;
  // "NAME=value" for every variable set to a value other than its default, in the table's order.
  std::vector<std::string> non_default;
};

using GetenvFn = std::function<const char*(const char*)>;

// Every known variable from getenv_fn (null or empty: the default). A value that is not accepted is
// a one-line error naming the variable and what it takes (e.g. CUZK_MSM_SEG="0": expected an
// integer from 1 to 65536).
Result<GpuEnvTuning> gpu_tuning_from_env(const GetenvFn& getenv_fn);

// One integer variable: null or empty -> nullopt; a whole decimal integer in [lo, hi] -> it; anything
// else -> NAME="value": expected an integer from lo to hi.
Result<std::optional<long>> parse_env_int(const char* name, const char* value, long lo, long hi);

// The variables gpu_tuning_from_env() reads, with what each accepts ("CUZK_MSM_SEG: 1-65536"), for
// help texts and docs.
std::vector<std::string> gpu_tuning_variables();

}  // namespace cuzk::apps
