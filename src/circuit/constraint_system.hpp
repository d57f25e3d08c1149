// The constraint systems a circuit is synthesized into. Circuits and gadgets are templates over the CS
// type (no virtual calls); every CS offers the same members:
//
//   using LC;                          LinearCombination or NullLC
//   Var  alloc(Name, const Fr&)        new aux variable
//   Var  alloc_binary(Name, bool)      new aux variable known to be 0 or 1 (adds NO constraint; the
//                                      witness builder keeps it in a bitset)
//   Var  alloc_input(Name, const Fr&)  new input variable
//   void enforce(Name, a, b, c)        the row a·b = c
//   auto ns(Name)                      namespace guard (free except in the checking CS)
//
// The systems without linear combinations (LC = NullLC) also offer a word-level interface that
// gadgets may use under `if constexpr (!CS::LC::kActive)` to skip per-bit bookkeeping:
//   void alloc_binary_bits(u64 values, unsigned count)   count (≤ 64) binary aux, LSB first
//   void add_rows(size_t n)                               n rows (counted, never stored)
//
// Values are always computed (a blank circuit is synthesized with dummy inputs: the shape of every
// gadget here is independent of the values), so one code path serves all modes:
//
//   ShapeRecorder   CSR A, B, C in final variable order + bellperson's input rows (+ optionally the
//                   assignment and densities); SliceRecorder records repeated sub-circuits of it in
//                   parallel (slice_recorder.hpp)
//   WitnessBuilder  the assignment only (booleans in a bitset), no LCs, no rows
//   CheckingCS      evaluates every row as it is enforced; names the first unsatisfied one; can
//                   substitute a given assignment for the computed values (to test tampering)
//   CountingCS      counts rows, inputs, aux, binary aux; stores nothing
//
// Variable and row order follow bellperson exactly: ONE is input 0, every alloc/alloc_input/enforce
// appends in call order, and after synthesis one row x_i·0 = 0 per input (ONE included) is appended.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "circuit/lc.hpp"
#include "circuit/slice_recorder.hpp"
#include "circuit/witness.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::circuit {

template <class CS>
concept ConstraintSystem = requires(CS& cs, Name n, const Fr& v, const typename CS::LC& lc) {
  { cs.alloc(n, v) } -> std::same_as<Var>;
  { cs.alloc_binary(n, true) } -> std::same_as<Var>;
  { cs.alloc_input(n, v) } -> std::same_as<Var>;
  cs.enforce(n, lc, lc, lc);
  cs.ns(n);
};

// Which variables each query needs (bellperson's density trackers), over the final variable order.
struct Densities {
  std::vector<bool> a;  // variable has a non-zero coefficient in some A row (all inputs do, via input rows)
  std::vector<bool> b;  // ... in some B row
  std::size_t a_aux_count = 0, b_input_count = 0, b_aux_count = 0;
};
Densities compute_densities(const groth16::R1csShape& shape);

// What the shape recorder produces.
struct RecordedCircuit {
  groth16::R1csShape shape;    // input rows appended, variables in final order
  std::vector<Fr> assignment;  // the values seen while recording (ONE, inputs, aux); empty
                               // unless RecordOptions::values
  Densities densities;         // only with RecordOptions::densities
};

// What the recorder keeps besides the shape. Tests want the values and densities; the PoRep shape
// (130M rows at 32 GiB) wants neither: 4 GB of aux values nobody reads.
struct RecordOptions {
  bool values = true;
  bool densities = true;
};

// ---------------------------------------------------------------------------------------------
class ShapeRecorder {
 public:
  using LC = LinearCombination;

  explicit ShapeRecorder(RecordOptions options = {}) : options_(options) { input_values_.push_back(Fr::one()); }

  Var alloc(Name, const Fr& v) {
    if (options_.values) aux_values_.push_back(v);
    return Var::aux(num_aux_++);
  }
  Var alloc_binary(Name n, bool b) { return alloc(n, b ? Fr::one() : Fr::zero()); }
  Var alloc_input(Name, const Fr& v) {
    if (options_.values) input_values_.push_back(v);
    return Var::input(num_inputs_++);
  }
  void enforce(Name, const LC& a, const LC& b, const LC& c) {
    shape_.a.add_row(a.terms());
    shape_.b.add_row(b.terms());
    shape_.c.add_row(c.terms());
  }
  NoNamespace ns(Name) { return {}; }

  std::size_t num_constraints() const { return shape_.a.rows(); }
  std::uint32_t num_inputs() const { return num_inputs_; }
  std::uint32_t num_aux() const { return num_aux_; }
  // Rows, entries and variables recorded so far (SliceSize of everything).
  SliceSize recorded_size() const;

  // Pre-sizes the CSR arrays for `rows` more rows with the given entries per matrix (A, B, C).
  void reserve(std::uint64_t rows, const std::uint64_t (&nnz)[3]);

  // Parallel recording (slice_recorder.hpp): grows the matrices by `count` slices of `size` and
  // advances the variable counters past them; recorder k of the result records slice k (values are
  // not kept: only for RecordOptions::values = false). Call merge_slices() once all have run.
  std::vector<SliceRecorder> append_slices(const SliceSize& size, std::size_t count);
  // Renumbers the slices' coefficient ids into this recorder's tables (in parallel).
  void merge_slices(const std::vector<SliceRecorder>& slices);

  // Remaps variables to final order, appends the input rows, computes densities.
  RecordedCircuit finish() &&;

 private:
  RecordOptions options_;
  groth16::R1csShape shape_;
  std::uint32_t num_inputs_ = 1, num_aux_ = 0;
  std::vector<Fr> input_values_, aux_values_;
};

// ---------------------------------------------------------------------------------------------
class WitnessBuilder {
 public:
  using LC = NullLC;

  WitnessBuilder() { w_.inputs.push_back(Fr::one()); }
  // Optional: pre-size the storage (e.g. from a recorded shape or a CountingCS run) so synthesis
  // never reallocates.
  void reserve(std::size_t inputs, std::size_t aux, std::size_t non_binary_aux) {
    w_.reserve(inputs, aux, non_binary_aux);
  }

  // The hot path: the current 64-variable word of both bitsets lives in members and is appended to
  // the Witness only when full, so a binary allocation is a few register operations.
  [[gnu::always_inline]] Var alloc(Name, const Fr& v) {
    w_.values.push_back(v);
    return Var::aux(advance());
  }
  [[gnu::always_inline]] Var alloc_binary(Name, bool b) {
    const std::uint64_t bit = std::uint64_t(1) << (n_ & 63);
    word_binary_ |= bit;
    word_bits_ |= b ? bit : 0;
    return Var::aux(advance());
  }
  Var alloc_input(Name, const Fr& v) {
    w_.inputs.push_back(v);
    return Var::input(std::uint32_t(w_.inputs.size() - 1));
  }
  void enforce(Name, const LC&, const LC&, const LC&) {}
  NoNamespace ns(Name) { return {}; }

  // Word-level interface of the LC-free systems (used by the UInt32 fast paths): `count` (≤ 64)
  // binary aux with the values of the low bits of `values`, LSB first; `n` rows not stored.
  void alloc_binary_bits(std::uint64_t values, unsigned count) {
    if (count == 0) return;
    const std::uint64_t mask = count >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << count) - 1;
    values &= mask;
    const unsigned off = unsigned(n_ & 63);
    word_binary_ |= mask << off;
    word_bits_ |= values << off;
    n_ += count;
    if (off + count >= 64) {
      flush_word();
      const unsigned used = 64 - off;  // bits that went into the flushed word
      if (used < count) {
        word_binary_ = mask >> used;
        word_bits_ = values >> used;
      }
    }
  }
  void add_rows(std::size_t) {}

  std::uint64_t num_aux() const { return n_; }
  std::size_t num_inputs() const { return w_.inputs.size(); }
  Witness finish() && {
    if (n_ & 63) flush_word();
    w_.num_aux = n_;
    return std::move(w_);
  }

 private:
  [[gnu::always_inline]] std::uint32_t advance() {
    std::uint64_t j = n_++;
    if ((n_ & 63) == 0) flush_word();
    return std::uint32_t(j);
  }
  [[gnu::noinline]] void flush_word() {  // once per 64 variables: keep it out of the inlined path
    w_.is_binary.push_back(word_binary_);
    w_.bits.push_back(word_bits_);
    word_binary_ = word_bits_ = 0;
  }

  Witness w_;
  std::uint64_t n_ = 0, word_binary_ = 0, word_bits_ = 0;
};

// ---------------------------------------------------------------------------------------------
class CountingCS {
 public:
  using LC = NullLC;

  Var alloc(Name, const Fr&) { return Var::aux(std::uint32_t(num_aux_++)); }
  Var alloc_binary(Name, bool) {
    ++num_binary_;
    return Var::aux(std::uint32_t(num_aux_++));
  }
  Var alloc_input(Name, const Fr&) { return Var::input(std::uint32_t(num_inputs_++)); }
  void enforce(Name, const LC&, const LC&, const LC&) { ++num_constraints_; }
  NoNamespace ns(Name) { return {}; }
  void alloc_binary_bits(std::uint64_t, unsigned count) {
    num_aux_ += count;
    num_binary_ += count;
  }
  void add_rows(std::size_t n) { num_constraints_ += n; }

  std::uint64_t num_constraints() const { return num_constraints_; }  // circuit rows, before input rows
  std::uint64_t num_inputs() const { return num_inputs_; }            // ONE included
  std::uint64_t num_aux() const { return num_aux_; }
  std::uint64_t num_binary_aux() const { return num_binary_; }
  // Rows of the Groth16 R1CS (circuit rows + bellperson's input rows).
  std::uint64_t num_groth16_rows() const { return num_constraints_ + num_inputs_; }

 private:
  std::uint64_t num_constraints_ = 0, num_inputs_ = 1, num_aux_ = 0, num_binary_ = 0;
};

// ---------------------------------------------------------------------------------------------
class CheckingCS {
 public:
  using LC = LinearCombination;

  struct Failure {
    std::size_t row;   // index among the circuit rows (0-based, in enforce order)
    std::string name;  // namespace path and row annotation, "a/b/row"
  };

  class [[nodiscard]] Namespace {
   public:
    Namespace(CheckingCS* cs, Name n) : cs_(cs) { cs_->path_.push_back(n); }
    ~Namespace() { cs_->path_.pop_back(); }
    Namespace(const Namespace&) = delete;
    Namespace& operator=(const Namespace&) = delete;

   private:
    CheckingCS* cs_;
  };

  // Uses the values the gadgets compute.
  CheckingCS() { inputs_.push_back(Fr::one()); }
  // Uses the given assignment instead (inputs with ONE first, aux): checks a possibly tampered
  // witness against the rows the circuit enforces.
  CheckingCS(std::span<const Fr> inputs, std::span<const Fr> aux) : CheckingCS() {
    override_inputs_ = inputs;
    override_aux_ = aux;
    has_override_ = true;
    if (!inputs.empty()) inputs_[0] = inputs[0];
  }

  Var alloc(Name, const Fr& v) {
    std::size_t j = aux_.size();
    aux_.push_back(pick(override_aux_, j, v));
    return Var::aux(std::uint32_t(j));
  }
  Var alloc_binary(Name n, bool b) { return alloc(n, b ? Fr::one() : Fr::zero()); }
  Var alloc_input(Name, const Fr& v) {
    std::size_t i = inputs_.size();
    inputs_.push_back(pick(override_inputs_, i, v));
    return Var::input(std::uint32_t(i));
  }
  void enforce(Name n, const LC& a, const LC& b, const LC& c) {
    std::size_t row = num_constraints_++;
    if (first_failure_) return;
    Fr av = a.eval(inputs_, aux_), bv = b.eval(inputs_, aux_), cv = c.eval(inputs_, aux_);
    if (av * bv != cv) first_failure_ = Failure{row, path_string(n)};
  }
  Namespace ns(Name n) { return Namespace(this, n); }

  bool is_satisfied() const { return !first_failure_ && !size_mismatch_; }
  const std::optional<Failure>& first_failure() const { return first_failure_; }
  // True when an override assignment was shorter than the circuit's variable count.
  bool size_mismatch() const { return size_mismatch_; }
  std::size_t num_constraints() const { return num_constraints_; }
  std::size_t num_inputs() const { return inputs_.size(); }
  std::size_t num_aux() const { return aux_.size(); }
  const std::vector<Fr>& input_values() const { return inputs_; }
  const std::vector<Fr>& aux_values() const { return aux_; }

 private:
  // The value variable k takes: the override's when one was given (recording a mismatch when it is
  // too short), else the computed one.
  Fr pick(std::span<const Fr> over, std::size_t k, const Fr& computed) {
    if (!has_override_) return computed;
    if (k < over.size()) return over[k];
    size_mismatch_ = true;
    return computed;
  }
  std::string path_string(Name n) const {
    std::string out;
    for (const Name& p : path_) {
      out += p.str();
      out += '/';
    }
    return out + n.str();
  }

  std::vector<Fr> inputs_, aux_;
  std::span<const Fr> override_inputs_, override_aux_;
  bool has_override_ = false, size_mismatch_ = false;
  std::vector<Name> path_;
  std::size_t num_constraints_ = 0;
  std::optional<Failure> first_failure_;
};

static_assert(ConstraintSystem<ShapeRecorder>);
static_assert(ConstraintSystem<WitnessBuilder>);
static_assert(ConstraintSystem<CountingCS>);
static_assert(ConstraintSystem<CheckingCS>);

// Synthesizes `circuit(cs)` in each mode. The circuit is any callable taking the CS by reference.
template <class Circuit>
RecordedCircuit record_shape(Circuit&& circuit, RecordOptions options = {}) {
  ShapeRecorder cs(options);
  circuit(cs);
  return std::move(cs).finish();
}
template <class Circuit>
Witness build_witness(Circuit&& circuit) {
  WitnessBuilder cs;
  circuit(cs);
  return std::move(cs).finish();
}
template <class Circuit>
CountingCS count_constraints(Circuit&& circuit) {
  CountingCS cs;
  circuit(cs);
  return cs;
}

}  // namespace cuzk::circuit
