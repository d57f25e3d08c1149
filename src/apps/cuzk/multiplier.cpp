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

Result<groth16::ProvingKey> command_proving_key(const char* tool, const std::optional<filecoin::params::ParamPaths>& paths,
                                                const groth16::R1csShape& shape,
                                                std::optional<std::uint64_t> test_key_seed) {
  if (paths) return filecoin::params::load_proving_key(*paths, shape);
  if (!test_key_seed) return Error{"no parameter directory and no --test-key-seed"};
  std::fprintf(stderr, "cuzk %s: TEST-ONLY key from --test-key-seed %llu, made in memory\n", tool,
               static_cast<unsigned long long>(*test_key_seed));
  auto mul = make_multiplier("auto");
  if (!mul) return Error{mul.error()};
  groth16::SetupOptions so;
  so.multiplier = mul->get();
  return groth16::generate_test_key(shape, groth16::HBasis::kMonomialOverZ, groth16::ToxicWaste::from_seed(*test_key_seed),
                                    so);
}

}  // namespace cuzk::cli
