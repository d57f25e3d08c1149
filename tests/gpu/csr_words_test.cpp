// The GPU prover's matrix encoding (src/gpu/csr_words.hpp), made on every core: decoded back, each
// row must give the matrix's nonzero terms in order; every row over kLongRowWords words must be cut
// into pieces that cover it exactly at term boundaries; bad matrices get their one-line errors.
#include <gtest/gtest.h>

#include <vector>

#include "../common/test_random.hpp"
#include "gpu/csr_words.hpp"

namespace cuzk {
namespace {

using gpu::kLongRowWords;
using math::Fr;

// Rows of 0-12 terms, every 97th row long (40-300 terms); coefficients 1, -1, 0 (dropped) or one of
// a few others, so that the dictionary path is taken too.
groth16::CsrMatrix random_matrix(std::size_t rows, std::uint32_t nvars, std::uint64_t seed) {
  test::Rng rng(seed);
  const Fr pool[] = {Fr::one(), -Fr::one(), Fr::zero(), rng.fr(), rng.fr(), Fr::from_u64(2), rng.fr()};
  groth16::CsrMatrix m;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t n = r % 97 == 5 ? 40 + rng.next() % 261 : rng.next() % 13;
    for (std::size_t k = 0; k < n; ++k) m.push_entry(std::uint32_t(rng.next() % nvars), pool[rng.next() % 7]);
    m.end_row();
  }
  return m;
}

// Decodes row r of the encoding into (variable, coefficient) terms.
std::vector<std::pair<std::uint32_t, Fr>> decode_row(const gpu::CsrWords& e, std::size_t r) {
  std::vector<std::pair<std::uint32_t, Fr>> terms;
  for (std::uint32_t t = e.row_ptr[r]; t < e.row_ptr[r + 1]; ++t) {
    const std::uint32_t w = e.words[t], var = w & gpu::kVarMask, tag = w >> 30;
    if (tag == 0) terms.emplace_back(var, Fr::one());
    else if (tag == 1) terms.emplace_back(var, -Fr::one());
    else terms.emplace_back(var, e.coefs.at(e.words.at(++t)));
  }
  return terms;
}

// Every row of e decodes to m's nonzero terms, in order; returns the number of zero terms dropped.
std::size_t expect_rows_match(const groth16::CsrMatrix& m, const gpu::CsrWords& e) {
  std::size_t dropped = 0;
  for (std::size_t r = 0; r < m.rows(); ++r) {
    std::vector<std::pair<std::uint32_t, Fr>> want;
    for (std::uint64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
      if (m.val(k).is_zero()) ++dropped;
      else want.emplace_back(m.cols[k], m.val(k));
    }
    EXPECT_EQ(decode_row(e, r), want) << "row " << r;
  }
  return dropped;
}

TEST(CsrWords, DecodesToTheMatrixNonzeroTermsAndCutsLongRows) {
  const std::size_t rows = 40000;  // ~10 row ranges of 4,096 on enough cores
  const std::uint32_t nvars = 5000;
  const groth16::CsrMatrix m = random_matrix(rows, nvars, 11);
  auto e = gpu::encode_csr(m, rows, nvars, "A");
  ASSERT_TRUE(e) << e.error();
  ASSERT_EQ(e->row_ptr.size(), rows + 1);
  ASSERT_EQ(e->row_ptr[rows], e->words.size());
  EXPECT_EQ(e->coefs.size(), 4u);  // the pool's values other than 0 and ±1
  EXPECT_GT(expect_rows_match(m, *e), 0u);
  std::size_t long_expected = 0;
  for (std::size_t r = 0; r < rows; ++r) long_expected += e->row_ptr[r + 1] - e->row_ptr[r] > kLongRowWords;
  // Long rows: listed in order, their pieces consecutive, covering the row, each starting on a term.
  const auto& lr = e->long_rows;
  ASSERT_EQ(lr.count(), long_expected);
  EXPECT_GT(long_expected, 300u);
  std::uint32_t next_piece = 0;
  for (std::uint32_t i = 0; i < lr.count(); ++i) {
    const std::uint32_t row = lr.long_rows[3 * i], first = lr.long_rows[3 * i + 1], count = lr.long_rows[3 * i + 2];
    ASSERT_EQ(first, next_piece);
    next_piece += count;
    std::uint32_t at = e->row_ptr[row];
    std::vector<bool> term_start(e->words.size() + 1, false);
    for (std::uint32_t t = e->row_ptr[row]; t < e->row_ptr[row + 1]; t += (e->words[t] >> 30) >= 2 ? 2 : 1)
      term_start[t] = true;
    for (std::uint32_t p = first; p < first + count; ++p) {
      const std::uint32_t b = lr.piece_bounds[2 * p], end = lr.piece_bounds[2 * p + 1];
      ASSERT_EQ(b, at) << "row " << row;
      ASSERT_TRUE(term_start[b]);
      ASSERT_LE(end - b, kLongRowWords + 1);  // a piece ends after the term that reaches the limit
      at = end;
    }
    ASSERT_EQ(at, e->row_ptr[row + 1]) << "row " << row;
  }
  EXPECT_EQ(next_piece, lr.pieces());
  // encoded_csr_bytes counts what encode_csr makes without making it (the long-row pieces apart).
  EXPECT_EQ(gpu::encoded_csr_bytes(m),
            4 * e->row_ptr.size() + 4 * e->words.size() + sizeof(math::Fr) * e->coefs.size());
}

TEST(CsrWords, SmallAndEmptyMatricesEncodeOnOneThread) {
  groth16::CsrMatrix empty;
  auto e0 = gpu::encode_csr(empty, 0, 1, "C");
  ASSERT_TRUE(e0) << e0.error();
  EXPECT_EQ(e0->row_ptr, std::vector<std::uint32_t>{0});
  const groth16::CsrMatrix m = random_matrix(300, 50, 3);
  auto e = gpu::encode_csr(m, 300, 50, "B");
  ASSERT_TRUE(e) << e.error();
  expect_rows_match(m, *e);
}

TEST(CsrWords, RefusesAVariableOutOfRangeAndAWrongRowCount) {
  groth16::CsrMatrix m = random_matrix(20000, 100, 5);
  m.cols[m.cols.size() - 7] = 100;  // in the last row range
  auto e = gpu::encode_csr(m, 20000, 100, "B");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "GPU prover: matrix B names a variable out of range");
  auto w = gpu::encode_csr(random_matrix(10, 5, 6), 11, 5, "C");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error(), "GPU prover: matrix C has a different row count");
}

}  // namespace
}  // namespace cuzk
