// A circuit assignment as the witness builder produces it: inputs as Fr (ONE first), aux variables
// in allocation order with binary ones kept as bits (ARCHITECTURE.md seam 3). Most PoRep aux
// variables are SHA-256 bits, so this is ~1/256 the size of a dense Fr vector for them.
//
// The type itself is groth16::CompactAssignment (groth16/witness.hpp): the backends take it as it is
// (Backend::start's compact overload), so a synthesized witness reaches the prover without being
// expanded to dense Fr on the host.
#pragma once

#include "groth16/witness.hpp"

namespace cuzk::circuit {

using math::Fr;
using Witness = groth16::CompactAssignment;

}  // namespace cuzk::circuit
