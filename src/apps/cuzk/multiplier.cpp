#include "apps/cuzk/multiplier.hpp"

#include <cstdio>

#include "groth16/test_setup.hpp"

#ifdef CUZK_HAVE_CUDA
#include "gpu/fixed_base.hpp"
#include "gpu/gpu.hpp"
#endif

namespace cuzk::cli {

Result<std::unique_ptr<groth16::FixedBaseMultiplier>> make_multiplier(const std::string& mode) {
  if (mode != "auto" && mode != "on" && mode != "off") return Error{"--gpu must be auto, on or off, not " + mode};
#ifdef CUZK_HAVE_CUDA
  if (mode != "off") {
    try {
      if (gpu::device_available()) return gpu::make_cuda_fixed_base_multiplier();
    } catch (const std::exception& e) {
      if (mode == "on") return Error{std::string("--gpu on: ") + e.what()};
    }
    if (mode == "on") return Error{"--gpu on: no CUDA device is available"};
  }
#else
  if (mode == "on") return Error{"--gpu on: this build has no CUDA backend"};
#endif
  return groth16::make_cpu_fixed_base_multiplier();
}

}  // namespace cuzk::cli
