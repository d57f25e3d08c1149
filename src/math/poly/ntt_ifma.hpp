// The four-step NTT's sub-transforms eight at a time on AVX-512 IFMA (Fr in 5 limbs of 52 bits, the
// core of math/ff/fp_ifma_core.hpp). Internal to ntt.cpp, which calls these only when enabled() says
// so and keeps the scalar code for everything else.
//
// Eight columns (or rows) of the n2 x n1 matrix are gathered into lanes, so every butterfly of the
// eight length-m transforms is one vector operation with one (broadcast) twiddle. The data keeps its
// Montgomery form x 2^256 split into limbs; twiddles and factors are given in the IFMA form x 2^260
// (Tw), so that the IFMA product (a b 2^-260) maps the first form to itself. Values stay in [0, 2r)
// between operations and are brought below r when stored, so results equal the scalar path's bit
// for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::math::ntt_ifma {

// This CPU has AVX-512 IFMA (ifma::available()) and the NTT may use it (set_enabled: CUZK_NTT_IFMA=0
// in the apps turns it off; tests compare both paths in one process).
bool enabled();
void set_enabled(bool on);

// Field elements in the IFMA form (x 2^260 mod r), 5 limbs of 52 bits each.
struct Tw {
  std::vector<std::uint64_t> limbs;  // 5 per element
  std::size_t size() const { return limbs.size() / 5; }
};
Tw to_ifma(std::span<const Fr> values);

// Step 1 of the four-step transform for columns c0 .. c0 + 7 of the n2 x n1 row-major matrix a
// (n2 = 2^lr): x[r] *= row_in[r] (when given), a DIF of length n2 with roots[j] (u^j, j < n2/2),
// bit reversal, then x[k] *= start_b * ratio_b^k in lane b (start may be null: 1).
void columns8(Fr* a, std::size_t n1, unsigned lr, std::size_t c0, const Tw& roots, const Fr ratio[8], const Fr* start,
              const Tw* row_in);

// Step 2 for rows r0 .. r0 + 7 (each n1 = 2^lc contiguous elements): a DIF with roots[j * stride],
// bit reversal, then x[k] *= out_cols[k] for k >= 1 (when given).
void rows8(Fr* a, std::size_t n1, unsigned lc, std::size_t r0, const Tw& roots, std::size_t stride, const Tw* out_cols);

}  // namespace cuzk::math::ntt_ifma
