// The fixed-base multiplier of the TEST-ONLY key generators (`cuzk setup`, `prove-post --test-key-seed`):
// --gpu auto|on|off gives the GPU's when asked for (on) or available (auto), else the CPU tables.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "filecoin/params/param_files.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::cli {

Result<std::unique_ptr<groth16::FixedBaseMultiplier>> make_multiplier(const std::string& mode);

// The key a prove-* command proves with: the .params at `paths`, or (no paths) a TEST-ONLY key made in
// memory from `test_key_seed` (for a host whose disk cannot hold the .params; the self-check uses its
// vk), announced on stderr as "cuzk TOOL: TEST-ONLY key ...".
Result<groth16::ProvingKey> command_proving_key(const char* tool, const std::optional<filecoin::params::ParamPaths>& paths,
                                                const groth16::R1csShape& shape,
                                                std::optional<std::uint64_t> test_key_seed);

}  // namespace cuzk::cli
