#include "circuit/constraint_system.hpp"

#include <limits>
#include <stdexcept>

#include "base/parallel.hpp"
#include "circuit/huge_pages.hpp"

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

SliceSize ShapeRecorder::recorded_size() const {
  SliceSize s;
  s.rows = shape_.a.rows();
  s.nnz[0] = shape_.a.nnz();
  s.nnz[1] = shape_.b.nnz();
  s.nnz[2] = shape_.c.nnz();
  s.inputs = num_inputs_;
  s.aux = num_aux_;
  return s;
}

void ShapeRecorder::reserve(std::uint64_t rows, const std::uint64_t (&nnz)[3]) {
  groth16::CsrMatrix* mats[3] = {&shape_.a, &shape_.b, &shape_.c};
  for (int m = 0; m < 3; ++m) {
    mats[m]->row_ptr.reserve(mats[m]->row_ptr.size() + rows);
    mats[m]->cols.reserve(mats[m]->nnz() + nnz[m]);
    mats[m]->coeff_ids.reserve(mats[m]->nnz() + nnz[m]);
  }
}

std::vector<SliceRecorder> ShapeRecorder::append_slices(const SliceSize& size, std::size_t count) {
  if (options_.values) throw std::logic_error("ShapeRecorder::append_slices: slices do not keep values");
  constexpr std::uint64_t kMaxVar = Var::kAuxBit - 1;
  if (std::uint64_t(num_inputs_) + count * size.inputs > kMaxVar ||
      std::uint64_t(num_aux_) + count * size.aux > kMaxVar) {
    throw std::length_error("ShapeRecorder::append_slices: too many variables");
  }
  groth16::CsrMatrix* mats[3] = {&shape_.a, &shape_.b, &shape_.c};
  const std::uint64_t rows0 = shape_.a.rows();
  std::uint64_t nnz0[3];
  // Room for the input rows finish() appends (one row per input, one A entry each), assuming the
  // slices are the end of the circuit; otherwise later rows simply reallocate.
  const std::size_t input_rows = num_inputs_ + count * size.inputs;
  for (int m = 0; m < 3; ++m) {
    nnz0[m] = mats[m]->nnz();
    // The windows point into these arrays, so they are sized once, here, for all slices.
    const std::size_t spare_entries = m == 0 ? input_rows : 0;
    resize_with_huge_pages(mats[m]->row_ptr, rows0 + 1 + count * size.rows, input_rows);
    resize_with_huge_pages(mats[m]->cols, nnz0[m] + count * size.nnz[m], spare_entries);
    resize_with_huge_pages(mats[m]->coeff_ids, nnz0[m] + count * size.nnz[m], spare_entries);
  }
  std::vector<SliceRecorder> out;
  out.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    MatrixWindow w[3];
    for (int m = 0; m < 3; ++m) {
      const std::uint64_t e0 = nnz0[m] + k * size.nnz[m];
      w[m] = MatrixWindow{mats[m]->cols.data() + e0,
                          mats[m]->coeff_ids.data() + e0,
                          mats[m]->row_ptr.data() + rows0 + 1 + k * size.rows,
                          e0,
                          size.nnz[m],
                          size.rows};
    }
    out.emplace_back(w, std::uint32_t(num_inputs_ + k * size.inputs), std::uint32_t(num_aux_ + k * size.aux));
  }
  num_inputs_ += std::uint32_t(count * size.inputs);
  num_aux_ += std::uint32_t(count * size.aux);
  return out;
}

void ShapeRecorder::merge_slices(const std::vector<SliceRecorder>& slices) {
  groth16::CsrMatrix* mats[3] = {&shape_.a, &shape_.b, &shape_.c};
  // Dictionaries first (a few entries per slice, sequential), then the entries (in parallel).
  std::vector<std::vector<std::uint32_t>> maps(slices.size() * 3);
  for (std::size_t k = 0; k < slices.size(); ++k) {
    for (int m = 0; m < 3; ++m) {
      for (const Fr& v : slices[k].coefficients(m)) maps[3 * k + m].push_back(mats[m]->coeff_id(v));
    }
  }
  parallel_chunks(maps.size(), default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t j = b; j < e; ++j) {
      const MatrixWindow& w = slices[j / 3].window(int(j % 3));
      const auto& map = maps[j];
      for (std::uint64_t i = 0; i < w.capacity; ++i) w.coeff_ids[i] = map[w.coeff_ids[i]];
    }
  });
}

RecordedCircuit ShapeRecorder::finish() && {
  RecordedCircuit out;
  shape_.num_inputs = num_inputs_;
  shape_.num_aux = num_aux_;
  const std::uint32_t ni = num_inputs_;
  for (auto* m : {&shape_.a, &shape_.b, &shape_.c}) {
    auto& cols = m->cols;
    parallel_chunks(cols.size(), cols.size() < (1u << 20) ? 1 : default_threads(),
                    [&](std::size_t b, std::size_t e, std::size_t) {
                      for (std::size_t k = b; k < e; ++k) {
                        const Var v{cols[k]};
                        cols[k] = v.is_aux() ? ni + v.index() : v.index();
                      }
                    });
  }
  shape_.append_input_rows();
  if (options_.values) {
    out.assignment = std::move(input_values_);
    out.assignment.insert(out.assignment.end(), aux_values_.begin(), aux_values_.end());
  }
  if (options_.densities) out.densities = compute_densities(shape_);
  out.shape = std::move(shape_);
  return out;
}

}  // namespace cuzk::circuit
