// Parallel shape recording of repeated sub-circuits. A circuit such as the PoRep StackedCircuit is a
// prefix followed by N sub-circuits of identical shape (one per challenge); once the prefix and the
// first sub-circuit have been recorded sequentially, the size of every later one is known, so each
// can be recorded by its own thread straight into its window of the final, pre-sized CSR arrays,
// with variable counters started where the sequential order would have them. The result is
// bit-identical to the sequential recording (tests compare the serialized bytes).
//
// A SliceRecorder is a constraint system (LC = LinearCombination) that writes rows into such a
// window. Coefficients are coded with its own small dictionary; ShapeRecorder::merge_slices()
// renumbers them into the final matrices' tables. A slice that turns out larger or smaller than its
// window stops writing and reports it (the caller then records sequentially instead).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "circuit/lc.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::circuit {

// Rows, entries per matrix, and variables one slice adds.
struct SliceSize {
  std::uint64_t rows = 0;
  std::uint64_t nnz[3] = {0, 0, 0};  // A, B, C
  std::uint32_t inputs = 0, aux = 0;
  friend bool operator==(const SliceSize&, const SliceSize&) = default;
};

// A window of one CSR matrix: entries [entry_begin, entry_begin + nnz) and row ends
// row_ptr[row_begin + 1 ..].
struct MatrixWindow {
  std::uint32_t* cols = nullptr;
  std::uint32_t* coeff_ids = nullptr;
  std::uint64_t* row_ends = nullptr;  // &row_ptr[row_begin + 1]
  std::uint64_t entry_begin = 0, capacity = 0, row_capacity = 0;
};

class SliceRecorder {
 public:
  using LC = LinearCombination;

  SliceRecorder(const MatrixWindow (&windows)[3], std::uint32_t first_input, std::uint32_t first_aux)
      : next_input_(first_input), next_aux_(first_aux), first_input_(first_input), first_aux_(first_aux) {
    for (int m = 0; m < 3; ++m) out_[m].win = windows[m];
  }

  Var alloc(Name, const Fr&) { return Var::aux(next_aux_++); }
  Var alloc_binary(Name, bool) { return Var::aux(next_aux_++); }
  Var alloc_input(Name, const Fr&) { return Var::input(next_input_++); }
  void enforce(Name, const LC& a, const LC& b, const LC& c) {
    out_[0].add_row(a.terms());
    out_[1].add_row(b.terms());
    out_[2].add_row(c.terms());
  }
  NoNamespace ns(Name) { return {}; }

  // What was recorded (counted even past the window).
  SliceSize size() const {
    SliceSize s;
    s.rows = out_[0].rows;
    for (int m = 0; m < 3; ++m) s.nnz[m] = out_[m].entries;
    s.inputs = next_input_ - first_input_;
    s.aux = next_aux_ - first_aux_;
    return s;
  }
  // This slice's dictionary of matrix m (ids written into the window index it).
  const std::vector<Fr>& coefficients(int m) const { return out_[m].coeffs; }
  const MatrixWindow& window(int m) const { return out_[m].win; }

 private:
  struct MatrixOut {
    MatrixWindow win;
    std::uint64_t entries = 0, rows = 0;
    std::vector<Fr> coeffs;
    std::unordered_map<math::Limbs<4>, std::uint32_t, groth16::FrLimbsHash> index;
    std::uint32_t last_id = 0;

    std::uint32_t id_of(const Fr& v) {
      if (last_id < coeffs.size() && coeffs[last_id] == v) return last_id;
      auto [it, inserted] = index.try_emplace(v.mont_raw(), std::uint32_t(coeffs.size()));
      if (inserted) coeffs.push_back(v);
      return last_id = it->second;
    }
    void add_row(const std::vector<LinearCombination::Term>& terms) {
      for (const auto& [var, coeff] : terms) {
        if (coeff.is_zero()) continue;
        if (entries < win.capacity) {
          win.cols[entries] = var;
          win.coeff_ids[entries] = id_of(coeff);
        }
        ++entries;
      }
      if (rows < win.row_capacity) win.row_ends[rows] = win.entry_begin + std::min(entries, win.capacity);
      ++rows;
    }
  };

  MatrixOut out_[3];
  std::uint32_t next_input_, next_aux_;
  const std::uint32_t first_input_, first_aux_;
};

}  // namespace cuzk::circuit
