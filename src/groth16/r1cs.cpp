#include "groth16/r1cs.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "base/parallel.hpp"

namespace cuzk::groth16 {

void CsrMatrix::add_row(std::span<const std::pair<std::uint32_t, Fr>> terms) {
  for (const auto& [var, coeff] : terms) {
    if (coeff.is_zero()) continue;
    push_entry(var, coeff);
  }
  end_row();
}

std::uint32_t CsrMatrix::coeff_id(const Fr& v) {
  if (last_id_ < coeffs.size() && coeffs[last_id_] == v) return last_id_;
  for (; indexed_ < coeffs.size(); ++indexed_) index_.try_emplace(coeffs[indexed_].mont_raw(), std::uint32_t(indexed_));
  auto [it, inserted] = index_.try_emplace(v.mont_raw(), std::uint32_t(coeffs.size()));
  if (inserted) {
    coeffs.push_back(v);
    indexed_ = coeffs.size();
  }
  last_id_ = it->second;
  return last_id_;
}

std::vector<Fr> CsrMatrix::values() const {
  std::vector<Fr> out(nnz());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = val(k);
  return out;
}

namespace {
// Row `row` of m dotted with the assignment w (a span or an AssignmentView).
template <class W>
Fr dot(const CsrMatrix& m, std::size_t row, const W& w) {
  Fr acc = Fr::zero();
  for (std::uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) {
    const Fr& v = m.val(k);
    // Most coefficients are 1 (bits, copies); skip the multiplication for them.
    acc += v.is_one() ? w[m.cols[k]] : v * w[m.cols[k]];
  }
  return acc;
}
}  // namespace

Fr CsrMatrix::dot_row(std::size_t row, std::span<const Fr> w) const { return dot(*this, row, w); }

void R1csShape::append_input_rows() {
  for (std::uint32_t i = 0; i < num_inputs; ++i) {
    std::pair<std::uint32_t, Fr> term{i, Fr::one()};
    a.add_row(std::span(&term, 1));
    b.add_empty_row();
    c.add_empty_row();
  }
}

std::uint32_t R1csShape::domain_log2() const {
  std::uint32_t k = 0;
  while ((std::size_t(1) << k) < num_constraints()) ++k;
  return k;
}

RowEvaluations evaluate_rows(const R1csShape& shape, std::span<const Fr> w) {
  RowEvaluations ev;
  std::size_t n = shape.num_constraints();
  ev.a.resize(n);
  ev.b.resize(n);
  ev.c.resize(n);
  parallel_for(
      n,
      [&](std::size_t k) {
        ev.a[k] = shape.a.dot_row(k, w);
        ev.b[k] = shape.b.dot_row(k, w);
        ev.c[k] = shape.has_c ? shape.c.dot_row(k, w) : ev.a[k] * ev.b[k];
      },
      4096);
  return ev;
}

void evaluate_rows_into(const CsrMatrix& m, const AssignmentView& w, std::size_t begin, std::size_t end, Fr* out) {
  for (std::size_t row = begin; row < end; ++row) out[row - begin] = dot(m, row, w);
}

std::optional<std::size_t> first_unsatisfied_row(const R1csShape& shape, std::span<const Fr> w) {
  if (!shape.has_c) return std::nullopt;  // without C every assignment "satisfies" a*b = a*b
  std::size_t n = shape.num_constraints();
  std::atomic<std::size_t> first{n};
  parallel_chunks(n, default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t k = b; k < e && k < first.load(std::memory_order_relaxed); ++k) {
      if (shape.a.dot_row(k, w) * shape.b.dot_row(k, w) != shape.c.dot_row(k, w)) {
        std::size_t cur = first.load();
        while (k < cur && !first.compare_exchange_weak(cur, k)) {}
        return;
      }
    }
  });
  if (first.load() == n) return std::nullopt;
  return first.load();
}

std::vector<bool> variable_density(const CsrMatrix& m, std::size_t num_variables) {
  std::vector<char> nonzero(m.coeffs.size());  // per distinct coefficient, not per entry
  for (std::size_t i = 0; i < nonzero.size(); ++i) nonzero[i] = !m.coeffs[i].is_zero();
  // A bitmap per thread over the entries (32 GiB PoRep: ~700M entries per matrix, 1.7 s for A and B
  // on one core), OR-ed together by word ranges, then spread into the vector<bool>.
  const std::size_t words = (num_variables + 63) / 64, nnz = m.nnz();
  const std::size_t threads = nnz < (std::size_t(1) << 22) ? 1 : std::min<std::size_t>(default_threads(), 32);
  std::vector<std::vector<std::uint64_t>> maps(threads);
  parallel_chunks(nnz, threads, [&](std::size_t b, std::size_t e, std::size_t t) {
    auto& map = maps[t];
    map.assign(words, 0);
    for (std::size_t k = b; k < e; ++k) {
      if (nonzero[m.coeff_ids[k]]) map[m.cols[k] >> 6] |= std::uint64_t(1) << (m.cols[k] & 63);
    }
  });
  std::vector<std::uint64_t> all(words, 0);
  parallel_chunks(words, std::min<std::size_t>(threads, std::max<std::size_t>(1, words / 4096)),
                  [&](std::size_t b, std::size_t e, std::size_t) {
                    for (const auto& map : maps)
                      if (!map.empty())
                        for (std::size_t w = b; w < e; ++w) all[w] |= map[w];
                  });
  std::vector<bool> d(num_variables, false);
  for (std::size_t w = 0; w < words; ++w) {
    for (std::uint64_t x = all[w]; x; x &= x - 1) d[w * 64 + std::size_t(__builtin_ctzll(x))] = true;
  }
  return d;
}

}  // namespace cuzk::groth16
