#include "filecoin/c2/porep_shape.hpp"

#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::filecoin::c2 {

groth16::R1csShape record_porep_shape(const porep::PorepConfig& config) {
  const auto params = porep::StackedCircuitParams::from_config(config);
  const auto values = porep::dummy_partition_values(params);
  auto rec = circuit::record_shape([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, values); });
  return std::move(rec.shape);
}

}  // namespace cuzk::filecoin::c2
