#include "gpu/csr_words.hpp"

#include <algorithm>
#include <string>

#include "base/parallel.hpp"

namespace cuzk::gpu {

std::uint64_t encoded_csr_bytes(const groth16::CsrMatrix& mat) {
  // words per distinct coefficient: 0 (dropped), 1 (±1, a tag) or 2 (an index word follows)
  const math::Fr one = math::Fr::one(), minus_one = -math::Fr::one();
  std::vector<std::uint8_t> words(mat.coeffs.size());
  std::uint64_t table = 0;
  for (std::size_t i = 0; i < mat.coeffs.size(); ++i) {
    const math::Fr& v = mat.coeffs[i];
    words[i] = v.is_zero() ? 0 : (v == one || v == minus_one) ? 1 : 2;
    table += words[i] == 2;
  }
  const std::size_t nnz = mat.nnz();
  const std::size_t ranges = std::max<std::size_t>(1, std::min<std::size_t>(default_threads(), nnz >> 20));
  std::vector<std::uint64_t> count(ranges, 0);
  parallel_chunks(nnz, ranges, [&](std::size_t b, std::size_t e, std::size_t t) {
    std::uint64_t n = 0;
    for (std::size_t k = b; k < e; ++k) n += words[mat.coeff_ids[k]];
    count[t] = n;
  });
  std::uint64_t n = 0;
  for (auto c : count) n += c;
  return 4 * (std::uint64_t(mat.rows()) + 1) + 4 * n + table * sizeof(math::Fr);
}

Result<CsrWords> encode_csr(const groth16::CsrMatrix& mat, std::size_t rows, std::size_t nvars, const char* name) {
  using u32 = std::uint32_t;
  const std::string what = std::string("GPU prover: matrix ") + name;
  if (mat.rows() != rows) return Error{what + " has a different row count"};
  // The matrix's coefficients are already a dictionary: classify each distinct value once (±1 go
  // inline as tags, zero is dropped, the rest get an index into the uploaded table).
  constexpr u32 kSkip = 0xffffffffu, kOne = 0xfffffffeu, kMinusOne = 0xfffffffdu;
  const math::Fr one = math::Fr::one(), minus_one = -math::Fr::one();
  CsrWords out;
  std::vector<u32> code(mat.coeffs.size());
  for (std::size_t i = 0; i < mat.coeffs.size(); ++i) {
    const math::Fr& v = mat.coeffs[i];
    if (v.is_zero()) code[i] = kSkip;
    else if (v == one) code[i] = kOne;
    else if (v == minus_one) code[i] = kMinusOne;
    else {
      code[i] = u32(out.coefs.size());
      out.coefs.push_back(v);
    }
  }
  // Two passes over row ranges on every core (a 32 GiB PoRep partition's A, B and C took ~8 s on one
  // thread, paid by the first proof): count each range's words, then write them from its offset.
  const std::size_t ranges = std::max<std::size_t>(1, std::min<std::size_t>(default_threads(), rows / 4096));
  std::vector<std::uint64_t> offset(ranges + 1, 0);
  std::vector<std::uint8_t> out_of_range(ranges, 0);
  parallel_chunks(rows, ranges, [&](std::size_t rb, std::size_t re, std::size_t t) {
    std::uint64_t n = 0;
    bool bad = false;
    for (std::uint64_t k = mat.row_ptr[rb]; k < mat.row_ptr[re]; ++k) {
      const u32 c = code[mat.coeff_ids[k]];
      bad |= mat.cols[k] >= nvars;
      n += c == kSkip ? 0 : (c == kOne || c == kMinusOne) ? 1 : 2;
    }
    out_of_range[t] = bad;
    offset[t + 1] = n;
  });
  for (std::size_t t = 0; t < ranges; ++t) {
    if (out_of_range[t]) return Error{what + " names a variable out of range"};
    offset[t + 1] += offset[t];
  }
  if (offset[ranges] >= (std::uint64_t(1) << 32) - 1) return Error{what + " has more than 2^32 terms"};
  out.row_ptr.resize(rows + 1);
  out.words.resize(offset[ranges]);
  parallel_chunks(rows, ranges, [&](std::size_t rb, std::size_t re, std::size_t t) {
    std::size_t w = offset[t];
    for (std::size_t r = rb; r < re; ++r) {
      out.row_ptr[r] = u32(w);
      for (std::uint64_t k = mat.row_ptr[r]; k < mat.row_ptr[r + 1]; ++k) {
        const u32 c = code[mat.coeff_ids[k]], col = mat.cols[k];
        if (c == kSkip) continue;
        if (c == kOne) {
          out.words[w++] = col;
        } else if (c == kMinusOne) {
          out.words[w++] = col | kTagMinus;
        } else {
          out.words[w++] = col | kTagExplicit;
          out.words[w++] = c;
        }
      }
    }
  });
  out.row_ptr[rows] = u32(out.words.size());
  // An explicit coefficient's index word follows its variable word.
  out.long_rows = split_long_rows(out.row_ptr, [&](u32 t) { return (out.words[t] >> 30) >= 2 ? 2u : 1u; });
  return out;
}

}  // namespace cuzk::gpu
