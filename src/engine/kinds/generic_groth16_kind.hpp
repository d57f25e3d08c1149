// generic-groth16: any snarkjs Groth16/BLS12-381 circuit. The client registers a .zkey under a
// circuit id (RegisterCircuit) and sends a .wtns (bytes, or a path on the daemon's host where the
// operator allows it); one partition, whose synthesis is parsing the witness, proved with the key's
// shape (A and B; c = a∘b) and self-verified against the witness's public inputs.
#pragma once

#include <memory>

#include "engine/job_kind.hpp"

namespace cuzk::engine::kinds {

std::shared_ptr<JobKind> make_generic_groth16_kind();

}  // namespace cuzk::engine::kinds
