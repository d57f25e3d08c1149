// TEST-ONLY Groth16 parameter generation from locally chosen toxic waste (tau, alpha, beta, gamma,
// delta). Anyone who knows the toxic waste can forge proofs, so keys made here are for tests and
// benchmarks only — never for production Filecoin proofs, which use the ceremony's parameters.
//
// Cost is dominated by fixed-base scalar multiplications (one per query entry), done with
// precomputed window tables of the generators, in parallel.
#pragma once

#include <cstdint>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::groth16 {

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  static ToxicWaste from_seed(std::uint64_t seed);  // reproducible keys for tests
  static ToxicWaste random();
};

// shape must already contain the input rows (R1csShape::append_input_rows) and its C matrix.
// kMonomialOverZ gives a bellperson-layout key; kOddCosetLagrange a snarkjs-layout key.
Result<ProvingKey> generate_test_key(const R1csShape& shape, HBasis basis, const ToxicWaste& toxic);

}  // namespace cuzk::groth16
