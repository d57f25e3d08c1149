// The R1CS shape of one PoRep partition (StackedCircuit), recorded once per registered proof from
// values of the right shape: the gadgets never branch on values, so every partition of every sector
// of that configuration has exactly this shape (filecoin-formats.md §4.3). Input rows appended, as
// bellperson does before it builds the QAP.
#pragma once

#include "filecoin/porep/config.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::c2 {

groth16::R1csShape record_porep_shape(const porep::PorepConfig& config);

}  // namespace cuzk::filecoin::c2
