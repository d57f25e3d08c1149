#include "filecoin/c2/porep_shape.hpp"

#include <map>
#include <mutex>
#include <string>

#include "circuit/constraint_system.hpp"
#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::filecoin::c2 {

groth16::R1csShape record_porep_shape(const porep::PorepConfig& config) {
  const auto params = porep::StackedCircuitParams::from_config(config);
  const auto values = porep::dummy_partition_values(params);
  auto rec = circuit::record_shape([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, values); });
  return std::move(rec.shape);
}

PorepWitnessCounts count_porep_witness(const porep::PorepConfig& config) {
  static std::mutex mu;
  static std::map<std::string, PorepWitnessCounts> memo;
  {
    std::lock_guard<std::mutex> g(mu);
    if (auto it = memo.find(config.name); it != memo.end()) return it->second;
  }
  const auto params = porep::StackedCircuitParams::from_config(config);
  const auto values = porep::dummy_partition_values(params);
  circuit::CountingCS cs;
  porep::synthesize_stacked_circuit(cs, params, values);
  const PorepWitnessCounts c{cs.num_inputs(), cs.num_aux(), cs.num_binary_aux()};
  std::lock_guard<std::mutex> g(mu);
  memo.emplace(config.name, c);
  return c;
}

}  // namespace cuzk::filecoin::c2
