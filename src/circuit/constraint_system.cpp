#include "circuit/constraint_system.hpp"

namespace cuzk::circuit {

Densities compute_densities(const groth16::R1csShape& shape) {
  Densities d;
  std::size_t n = shape.num_variables();
  d.a = groth16::variable_density(shape.a, n);
  d.b = groth16::variable_density(shape.b, n);
  for (std::size_t v = shape.num_inputs; v < n; ++v) {
    d.a_aux_count += d.a[v];
    d.b_aux_count += d.b[v];
  }
  for (std::size_t v = 0; v < shape.num_inputs; ++v) d.b_input_count += d.b[v];
  return d;
}

RecordedCircuit ShapeRecorder::finish() && {
  RecordedCircuit out;
  shape_.num_inputs = num_inputs_;
  shape_.num_aux = num_aux_;
  const std::uint32_t ni = num_inputs_;
  for (auto* m : {&shape_.a, &shape_.b, &shape_.c}) {
    for (auto& col : m->cols) {
      Var v{col};
      col = v.is_aux() ? ni + v.index() : v.index();
    }
  }
  shape_.append_input_rows();
  out.assignment = std::move(input_values_);
  out.assignment.insert(out.assignment.end(), aux_values_.begin(), aux_values_.end());
  out.densities = compute_densities(shape_);
  out.shape = std::move(shape_);
  return out;
}

}  // namespace cuzk::circuit
