// The fixed-base multiplier of the TEST-ONLY key generators (`cuzk setup`, `prove-* --test-key-seed`):
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

}  // namespace cuzk::cli
