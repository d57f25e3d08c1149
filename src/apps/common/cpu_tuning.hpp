// The CPU-side tuning knobs of the math layers, read and range-checked in one place: the executables
// call cpu_tuning_from_env once at start-up, log the non-default values, and apply() the result; the
// libraries only receive the values (no getenv below the apps).
//
//   CUZK_THREADS   1..4096   worker threads of every parallel loop (default: all cores)
//   CUZK_NO_IFMA   0 | 1     1 forces the scalar paths where AVX-512 IFMA would be used
//   CUZK_NTT_IFMA  0 | 1     0 keeps the NTT on the scalar path (IFMA elsewhere unchanged)
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "apps/common/gpu_tuning.hpp"  // GetenvFn, parse_env_int: the apps' one way to read a variable
#include "base/result.hpp"

namespace cuzk::apps {

struct CpuTuning {
  std::size_t threads = 0;  // 0: all cores
  bool ifma = true;
  bool ntt_ifma = true;
  std::vector<std::string> non_default;  // "NAME=value" for each variable that changed a default
};

// The environment through `getenv_fn` (std::getenv in the executables; a map in tests). A value out
// of range or not a number is a one-line error naming the variable and what it accepts.
Result<CpuTuning> cpu_tuning_from_env(const GetenvFn& getenv_fn);
// Hands the values to the libraries (cuzk::set_default_threads, math::ifma / ntt_ifma::set_enabled).
void apply(const CpuTuning& t);

}  // namespace cuzk::apps
