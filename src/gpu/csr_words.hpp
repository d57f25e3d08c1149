// The GPU prover's form of one R1CS matrix, made on the host (no CUDA here, so CI tests it without a
// GPU): per row a run of 32-bit words, one per term (the variable in the low 30 bits, a tag in the
// top two: +1, -1, or an explicit coefficient whose index into `coefs` is the next word), and the rows
// longer than kLongRowWords words cut into pieces that the device sums on threads of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "groth16/r1cs.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::gpu {

constexpr std::uint32_t kVarMask = (1u << 30) - 1;
constexpr std::uint32_t kTagMinus = 1u << 30, kTagExplicit = 2u << 30;

// Rows longer than this many words are summed in pieces of about this size by their own threads
// (pieces_kernel + long_rows_kernel): with one thread per row, a warp waits for its longest row, and
// the PoRep circuit's bit-packing rows (hundreds of terms) made the evaluation 5x slower than rows of
// the average length (126 vs 24 ms per 2^27 partition).
constexpr std::uint32_t kLongRowWords = 32;

struct LongRows {
  std::vector<std::uint32_t> piece_bounds;  // per piece: begin and end word
  std::vector<std::uint32_t> long_rows;     // per long row: row, first piece, piece count
  std::uint32_t pieces() const { return std::uint32_t(piece_bounds.size() / 2); }
  std::uint32_t count() const { return std::uint32_t(long_rows.size() / 3); }
};

struct CsrWords {
  std::vector<std::uint32_t> row_ptr;  // rows + 1 word offsets
  std::vector<std::uint32_t> words;
  std::vector<math::Fr> coefs;  // the explicit coefficients (neither 0 nor ±1), each once
  LongRows long_rows;
};

// Every row over kLongRowWords words cut into pieces of about that many words at term boundaries;
// term_words(t) is the number of words of the term that starts at word t (1, or 2 for an explicit
// coefficient). The row kernel skips all rows over kLongRowWords, so every such row is listed.
template <class TermWords>
LongRows split_long_rows(const std::vector<std::uint32_t>& row_ptr, TermWords term_words) {
  LongRows lr;
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r) {
    const std::uint32_t b = row_ptr[r], e = row_ptr[r + 1];
    if (e - b <= kLongRowWords) continue;
    lr.long_rows.insert(lr.long_rows.end(), {std::uint32_t(r), lr.pieces(), 0u});
    for (std::uint32_t t = b; t < e;) {
      const std::uint32_t begin = t;
      while (t < e && t - begin < kLongRowWords) t += term_words(t);
      lr.piece_bounds.insert(lr.piece_bounds.end(), {begin, t});
      ++lr.long_rows.back();
    }
  }
  return lr;
}

// The words of `mat` (`rows` rows over `nvars` variables; `name` goes into the errors), converted on
// every core. Zero coefficients are dropped. Errors: a row count other than `rows`, a variable out
// of range, 2^32 words or more.
Result<CsrWords> encode_csr(const groth16::CsrMatrix& mat, std::size_t rows, std::size_t nvars, const char* name);
// The bytes encode_csr's row offsets, words and coefficient table take (long-row pieces apart: a few
// KB), counted on every core without encoding (what a device must keep free for the shape).
std::uint64_t encoded_csr_bytes(const groth16::CsrMatrix& mat);

}  // namespace cuzk::gpu
