// What every family does with a partition's witness after synthesis: refuse one that is not the
// key's circuit or whose public inputs differ from the ones derived from the request (they are equal
// unless the vanilla checks were bypassed or the circuit code has a bug — refuse rather than prove),
// and join witnesses that blocks of one circuit built on separate threads (PoSt sectors, SnapDeals
// challenges).
#pragma once

#include <span>

#include "base/result.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin {

// Variable and input counts equal the shape's, the witness is well formed, and its inputs after ONE
// equal `derived_inputs`. The error names the first difference.
Status check_partition_witness(const groth16::CompactAssignment& w, const groth16::R1csShape& shape,
                               std::span<const math::Fr> derived_inputs);

// Appends `part` (a witness built by its own builder: its ONE is dropped) to `dst`.
void append_witness(groth16::CompactAssignment& dst, groth16::CompactAssignment&& part);

}  // namespace cuzk::filecoin
