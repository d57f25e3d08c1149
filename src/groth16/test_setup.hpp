// TEST-ONLY Groth16 parameter generation from locally chosen toxic waste (tau, alpha, beta, gamma,
// delta). Anyone who knows the toxic waste can forge proofs, so keys made here are for tests and
// benchmarks only — never for production Filecoin proofs, which use the ceremony's parameters.
//
// Cost is dominated by fixed-base scalar multiplications (one per query entry), done by a
// FixedBaseMultiplier (window tables on the CPU threads, or the GPU: gpu/fixed_base.hpp). The scalars
// come from SetupScalars (setup_scalars.hpp). Keys too large to hold in memory are written section
// by section instead: formats/bellperson/test_params_writer.hpp.
#pragma once

#include <cstdint>

#include "base/result.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::groth16 {

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  static ToxicWaste from_seed(std::uint64_t seed);  // reproducible keys for tests
  static ToxicWaste random();
};

struct SetupOptions {
  std::size_t threads = 0;                    // QAP workers; 0: cuzk::default_threads()
  FixedBaseMultiplier* multiplier = nullptr;  // nullptr: a CPU multiplier on `threads` workers
};

// shape must already contain the input rows (R1csShape::append_input_rows) and its C matrix.
// kMonomialOverZ gives a bellperson-layout key; kOddCosetLagrange a snarkjs-layout key. The result
// does not depend on the options (every multiplier gives the same points).
Result<ProvingKey> generate_test_key(const R1csShape& shape, HBasis basis, const ToxicWaste& toxic,
                                     const SetupOptions& options = {});

// The verifying key's fixed elements (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2);
// ic is left empty.
VerifyingKey test_vk_elements(const ToxicWaste& toxic, FixedBaseMultiplier& mul);

}  // namespace cuzk::groth16
