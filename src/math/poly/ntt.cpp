#include "math/poly/ntt.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/parallel.hpp"
#include "math/poly/ntt_ifma.hpp"

namespace cuzk::math {

namespace {

// Below this many elements the element-wise passes (scaling, reversal) stay on the calling thread.
constexpr std::size_t kParallelGrain = std::size_t(1) << 12;
// Column blocks of the four-step transform are gathered into a buffer of up to this many elements
// (2^16 x 32 bytes = 2 MiB): each column is transformed while it sits in L2, and wide blocks keep the
// strided row accesses (gather and scatter) down to whole runs of cache lines.
constexpr std::size_t kColumnBufferElems = std::size_t(1) << 16;
// Tile edge of the in-place transposes (16 x 16 x 32 bytes = 8 KiB per tile).
constexpr std::size_t kTile = 16;

std::size_t resolve_threads(std::size_t threads) { return threads ? threads : default_threads(); }

// Reverses the low `bits` bits of x (bits <= 32).
inline std::size_t bit_reverse(std::size_t x, unsigned bits) {
  if (bits == 0) return 0;
  std::uint32_t v = std::uint32_t(x);
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
  v = __builtin_bswap32(v);
  return std::size_t(v >> (32 - bits));
}

// Radix-2 decimation in frequency on m = 2^log_m contiguous elements, natural order in, bit-reversed
// order out. roots[i * stride] must be u^i (i < m/2) for the primitive m-th root u in use.
void dif(Fr* a, unsigned log_m, const Fr* roots, std::size_t stride) {
  const std::size_t m = std::size_t(1) << log_m;
  std::size_t tstride = stride;
  for (std::size_t half = m >> 1; half > 1; half >>= 1, tstride <<= 1) {
    for (std::size_t start = 0; start < m; start += 2 * half) {
      Fr* x = a + start;
      Fr* y = x + half;
      Fr u = x[0], v = y[0];
      x[0] = u + v;
      y[0] = u - v;
      const Fr* w = roots + tstride;
      for (std::size_t j = 1; j < half; ++j, w += tstride) {
        u = x[j];
        v = y[j];
        x[j] = u + v;
        y[j] = (u - v) * *w;
      }
    }
  }
  if (m >= 2) {  // last stage: twiddle 1 only
    for (std::size_t i = 0; i < m; i += 2) {
      Fr u = a[i], v = a[i + 1];
      a[i] = u + v;
      a[i + 1] = u - v;
    }
  }
}

void bit_reverse_permute(Fr* a, unsigned log_m) {
  const std::size_t m = std::size_t(1) << log_m;
  for (std::size_t i = 1; i + 1 < m; ++i) {
    std::size_t j = bit_reverse(i, log_m);
    if (i < j) std::swap(a[i], a[j]);
  }
}

// In-place transpose of the n x n row-major matrix at a (n a power of two), tiled; the tile rows are
// dealt out cyclically to `threads` workers. Several matrices of the same shape can go in one call.
void transpose_squares(std::span<Fr* const> mats, std::size_t n, std::size_t threads) {
  const std::size_t ts = std::min(n, kTile);
  const std::size_t nt = n / ts;
  const std::size_t items = nt * mats.size();
  parallel_chunks(threads, threads, [&](std::size_t, std::size_t, std::size_t t) {
    for (std::size_t item = t; item < items; item += threads) {
      Fr* a = mats[item / nt];
      const std::size_t bi = item % nt;
      for (std::size_t bj = bi; bj < nt; ++bj) {
        const std::size_t r0 = bi * ts, c0 = bj * ts;
        if (bi == bj) {
          for (std::size_t i = 0; i < ts; ++i)
            for (std::size_t j = i + 1; j < ts; ++j) std::swap(a[(r0 + i) * n + c0 + j], a[(c0 + j) * n + r0 + i]);
        } else {
          for (std::size_t i = 0; i < ts; ++i)
            for (std::size_t j = 0; j < ts; ++j) std::swap(a[(r0 + i) * n + c0 + j], a[(c0 + j) * n + r0 + i]);
        }
      }
    }
  });
}

// Moves block s (of `block` elements) to position rotl_m(s), i.e. 2s mod (2^m - 1): interleaves the
// first half of the blocks with the second half ([a0 .. a_h-1 b0 .. b_h-1] -> [a0 b0 a1 b1 ...]).
// Cycle following from the necklace leaders (the minimal rotation of each cycle).
void shuffle_blocks(Fr* a, unsigned m, std::size_t block, std::size_t threads) {
  const std::size_t count = std::size_t(1) << m;
  const std::size_t mask = count - 1;
  auto rotr = [&](std::size_t d) { return ((d >> 1) | ((d & 1) << (m - 1))) & mask; };
  std::vector<std::size_t> leaders;
  for (std::size_t s = 1; s + 1 < count; ++s) {
    bool leader = true;
    for (std::size_t d = rotr(s); d != s; d = rotr(d)) {
      if (d < s) {
        leader = false;
        break;
      }
    }
    if (leader) leaders.push_back(s);
  }
  parallel_chunks(leaders.size(), threads, [&](std::size_t b, std::size_t e, std::size_t) {
    std::vector<Fr> tmp(block);
    for (std::size_t li = b; li < e; ++li) {
      const std::size_t s0 = leaders[li];
      std::memcpy(static_cast<void*>(tmp.data()), a + s0 * block, block * sizeof(Fr));
      std::size_t d = s0;
      for (;;) {
        const std::size_t src = rotr(d);
        if (src == s0) {
          std::memcpy(static_cast<void*>(a + d * block), tmp.data(), block * sizeof(Fr));
          break;
        }
        std::memcpy(static_cast<void*>(a + d * block), a + src * block, block * sizeof(Fr));
        d = src;
      }
    }
  });
}

// Optional element-wise factors folded into the four-step transform (all optional):
//   input   x_j <- x_j * alpha^j            (coset shift before a forward transform)
//   output  X_k <- X_k * scale * beta^k     (1/n and the inverse coset shift after an inverse one)
struct Scaling {
  const Fr* alpha = nullptr;
  Fr scale = Fr::one();
  const Fr* beta = nullptr;
};

// What steps 1 and 2 of the four-step transform need (four_step below).
struct FourStep {
  Fr* a;
  unsigned lr, lc;
  std::size_t n1, n2, threads;
  const Fr* roots;   // u^j, j < n2 / 2
  const Fr* col_tw;  // u^j1, j1 < n1
  const Scaling& sc;
  const std::vector<Fr>& row_in;                                           // (alpha^n1)^j2 (alpha only)
  const std::vector<Fr>& col_in;                                           // alpha^j1 (alpha only)
  const std::vector<Fr>& out_cols;                                         // (beta^n2)^k1 (beta only)
  bool scaled_start() const { return sc.alpha || sc.scale != Fr::one(); }  // column 0's factor is not 1
};

// Steps 1 and 2 in scalar arithmetic.
void columns_and_rows(const FourStep& job) {
  Fr* const a = job.a;
  const unsigned lr = job.lr, lc = job.lc;
  const std::size_t n1 = job.n1, n2 = job.n2, threads = job.threads;
  const Fr* roots = job.roots;
  const Fr* col_tw = job.col_tw;
  const Scaling& sc = job.sc;
  const std::vector<Fr>&row_in = job.row_in, &col_in = job.col_in, &out_cols = job.out_cols;
  const bool scaled_start = job.scaled_start();

  // 1. Columns, B at a time: enough for whole cache lines, few enough for the gathered buffer to stay
  // in L2 and for every thread to get several blocks; a power of two, so blocks tile the n1 columns.
  std::size_t B = std::clamp<std::size_t>(std::min(kColumnBufferElems / n2, n1 / (4 * threads)), 2, n1);
  B = std::size_t(1) << (63 - __builtin_clzll(B));
  const std::size_t nblocks = n1 / B;
  parallel_chunks(nblocks, threads, [&](std::size_t b0, std::size_t b1, std::size_t) {
    std::vector<Fr> buf(B * n2);
    for (std::size_t blk = b0; blk < b1; ++blk) {
      const std::size_t c0 = blk * B;
      for (std::size_t r = 0; r < n2; ++r) {  // gather: B-element segments of every row
        const Fr* row = a + r * n1 + c0;
        if (sc.alpha) {
          const Fr f = row_in[r];
          for (std::size_t b = 0; b < B; ++b) buf[b * n2 + r] = row[b] * f;
        } else {
          for (std::size_t b = 0; b < B; ++b) buf[b * n2 + r] = row[b];
        }
      }
      for (std::size_t b = 0; b < B; ++b) {  // each column, while it sits in L2
        Fr* col = buf.data() + b * n2;
        dif(col, lr, roots, 1);
        bit_reverse_permute(col, lr);
        // col[k2] *= start * ratio^k2 with ratio = u^j1 (* beta), start = scale (* alpha^j1).
        const Fr ratio = sc.beta ? col_tw[c0 + b] * *sc.beta : col_tw[c0 + b];
        Fr w = ratio;
        if (scaled_start) {
          const Fr start = sc.alpha ? sc.scale * col_in[c0 + b] : sc.scale;
          col[0] *= start;
          w *= start;
        }
        for (std::size_t r = 1; r < n2; ++r) {
          col[r] *= w;
          w *= ratio;
        }
      }
      for (std::size_t r = 0; r < n2; ++r) {  // scatter back: a plain strided copy
        Fr* row = a + r * n1 + c0;
        for (std::size_t b = 0; b < B; ++b) row[b] = buf[b * n2 + r];
      }
    }
  });

  // 2. Rows.
  const std::size_t row_stride = n2 / n1;
  parallel_chunks(n2, threads, [&](std::size_t r0, std::size_t r1, std::size_t) {
    for (std::size_t r = r0; r < r1; ++r) {
      Fr* row = a + r * n1;
      dif(row, lc, roots, row_stride);
      bit_reverse_permute(row, lc);
      if (sc.beta) {
        for (std::size_t k1 = 1; k1 < n1; ++k1) row[k1] *= out_cols[k1];
      }
    }
  });
}

// Steps 1 and 2 on AVX-512 IFMA: eight columns, then eight rows, at a time (ntt_ifma.hpp); the same
// results as columns_and_rows, 3-6x faster on the development machine (bench/RESULTS_math.md).
void columns_and_rows_ifma(const FourStep& f) {
  const ntt_ifma::Tw roots = ntt_ifma::to_ifma(std::span<const Fr>(f.roots, f.n2 / 2));
  const ntt_ifma::Tw row_in = ntt_ifma::to_ifma(f.row_in), out_cols = ntt_ifma::to_ifma(f.out_cols);
  const Scaling& sc = f.sc;
  parallel_chunks(f.n1 / 8, f.threads, [&](std::size_t g0, std::size_t g1, std::size_t) {
    for (std::size_t g = g0; g < g1; ++g) {
      const std::size_t c0 = 8 * g;
      Fr ratio[8], start[8];
      for (int b = 0; b < 8; ++b) {
        ratio[b] = sc.beta ? f.col_tw[c0 + b] * *sc.beta : f.col_tw[c0 + b];
        start[b] = sc.alpha ? sc.scale * f.col_in[c0 + b] : sc.scale;
      }
      ntt_ifma::columns8(f.a, f.n1, f.lr, c0, roots, ratio, f.scaled_start() ? start : nullptr,
                         sc.alpha ? &row_in : nullptr);
    }
  });
  parallel_chunks(f.n2 / 8, f.threads, [&](std::size_t g0, std::size_t g1, std::size_t) {
    for (std::size_t g = g0; g < g1; ++g)
      ntt_ifma::rows8(f.a, f.n1, f.lc, 8 * g, roots, f.n2 / f.n1, sc.beta ? &out_cols : nullptr);
  });
}

// Four-step transform, n = n1 * n2 with n1 = 2^lc columns and n2 = 2^lr rows (lr = lc or lc + 1).
// Element j = j1 + n1 * j2 sits in row j2, column j1; output k = k2 + n2 * k1.
//   1. each column j1: length-n2 DFT over j2, then times u^(j1 * k2)      (gathered in blocks)
//   2. each row k2: length-n1 DFT over j1 -> X[k2 + n2 * k1] at k1 + n1 * k2
//   3. transpose the n2 x n1 matrix to n1 x n2.
// u is w (forward) or w^-1 (inverse, with the inverse tables). The factors of `sc` cost at most one
// multiplication per element and no extra pass: alpha^j = alpha^j1 * (alpha^n1)^j2 splits into a
// per-row factor applied while gathering and a per-column constant that rides on the column twiddles
// (the column DFT is linear); scale * beta^k = scale * beta^k2 * (beta^n2)^k1 splits into a factor
// that joins the column twiddle ratio (u^j1 * beta) and a per-column-of-output factor applied after
// each row DFT.
void four_step(const Domain& d, Fr* a, std::size_t threads, bool inverse, const Scaling& sc) {
  const unsigned lr = d.log_rows(), lc = d.log_cols();
  const std::size_t n1 = std::size_t(1) << lc, n2 = std::size_t(1) << lr;
  const Fr* roots = inverse ? d.roots_inv().data() : d.roots().data();
  const Fr* col_tw = inverse ? d.col_twiddles_inv().data() : d.col_twiddles().data();

  auto powers = [](const Fr& base, std::size_t count) {
    std::vector<Fr> v(count);
    Fr p = Fr::one();
    for (std::size_t i = 0; i < count; ++i, p *= base) v[i] = p;
    return v;
  };
  std::vector<Fr> row_in, col_in, out_cols;  // (alpha^n1)^j2, alpha^j1, (beta^n2)^k1
  if (sc.alpha) {
    row_in = powers(sc.alpha->pow(u64(n1)), n2);
    col_in = powers(*sc.alpha, n1);
  }
  if (sc.beta) out_cols = powers(sc.beta->pow(u64(n2)), n1);

  const FourStep f{a, lr, lc, n1, n2, threads, roots, col_tw, sc, row_in, col_in, out_cols};
  if (ntt_ifma::enabled()) columns_and_rows_ifma(f);
  else columns_and_rows(f);

  // 3. Transpose n2 x n1 -> n1 x n2.
  if (lr == lc) {
    Fr* mats[1] = {a};
    transpose_squares(mats, n1, threads);
  } else {
    // Two stacked n1 x n1 squares: transpose each, then interleave their rows.
    Fr* mats[2] = {a, a + n1 * n1};
    transpose_squares(mats, n1, threads);
    shuffle_blocks(a, lc + 1, n1, threads);
  }
}

void check_size(const Domain& d, std::span<const Fr> data) {
  if (data.size() != d.size()) {
    throw std::invalid_argument("ntt: data size " + std::to_string(data.size()) + " != domain size " +
                                std::to_string(d.size()));
  }
}

void forward(const Domain& d, std::span<Fr> data, std::size_t threads) {
  check_size(d, data);
  if (d.log_size() <= kNttDirectMaxLog) {
    dif(data.data(), d.log_size(), d.roots().data(), 1);
    bit_reverse_permute(data.data(), d.log_size());
  } else {
    four_step(d, data.data(), threads, false, Scaling{});
  }
}

// After a forward transform: a_i <- scale * s^i * a_((n - i) mod n), where s = shift_inv (or 1).
// DFT with w^-1 is the DFT with w read at negated indices, so this turns ntt into intt/coset_intt.
void finish_inverse(const Domain& d, std::span<Fr> a, const Fr* shift_inv, std::size_t threads) {
  const std::size_t n = a.size();
  const Fr& scale = d.size_inv();
  if (n == 1) {
    a[0] *= scale;
    return;
  }
  const std::size_t half = n / 2;
  a[0] *= scale;
  if (shift_inv) {
    a[half] *= scale * shift_inv->pow(u64(half));
  } else {
    a[half] *= scale;
  }
  // Pairs (i, n - i) for 1 <= i < n/2.
  const std::size_t pairs = half - 1;
  if (pairs == 0) return;
  const std::size_t chunks = n < kParallelGrain ? 1 : threads;
  if (!shift_inv) {
    parallel_chunks(pairs, chunks, [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t k = b; k < e; ++k) {
        const std::size_t i = k + 1;
        Fr lo = a[i], hi = a[n - i];
        a[i] = hi * scale;
        a[n - i] = lo * scale;
      }
    });
    return;
  }
  const Fr s = *shift_inv;
  const Fr s_inv = s.inverse();
  parallel_chunks(pairs, chunks, [&](std::size_t b, std::size_t e, std::size_t) {
    Fr up = scale * s.pow(u64(b + 1));          // scale * s^i for i = b + 1
    Fr down = scale * s.pow(u64(n - (b + 1)));  // scale * s^(n - i)
    for (std::size_t k = b; k < e; ++k) {
      const std::size_t i = k + 1;
      Fr lo = a[i], hi = a[n - i];
      a[i] = hi * up;
      a[n - i] = lo * down;
      up *= s;
      down *= s_inv;
    }
  });
}

bool is_direct(const Domain& d) { return d.log_size() <= kNttDirectMaxLog; }

// intt followed by a_j <- a_j * shift_inv^j.
void coset_inverse(const Domain& d, std::span<Fr> data, const Fr& shift_inv, std::size_t threads) {
  check_size(d, data);
  if (is_direct(d)) {
    forward(d, data, threads);
    finish_inverse(d, data, &shift_inv, threads);
    return;
  }
  Scaling sc;
  sc.scale = d.size_inv();
  sc.beta = &shift_inv;
  four_step(d, data.data(), threads, true, sc);
}

}  // namespace

Domain::Domain(unsigned log_n) : log_n_(log_n), n_(0) {
  if (log_n > kNttMaxLog) {
    throw std::invalid_argument("ntt: domain 2^" + std::to_string(log_n) + " exceeds the supported maximum 2^" +
                                std::to_string(kNttMaxLog));
  }
  n_ = std::size_t(1) << log_n;
  omega_ = fr_root_of_unity();
  for (unsigned i = log_n; i < kFrTwoAdicity; ++i) omega_ = omega_.square();
  omega_inv_ = omega_.inverse();
  n_inv_ = Fr::from_u64(u64(n_)).inverse();
  g_ = Fr::from_u64(kFrMultiplicativeGenerator);
  g_inv_ = g_.inverse();

  auto powers = [](const Fr& base, std::size_t count) {
    std::vector<Fr> v(count);
    Fr p = Fr::one();
    for (std::size_t i = 0; i < count; ++i) {
      v[i] = p;
      p *= base;
    }
    return v;
  };
  if (log_n <= kNttDirectMaxLog) {
    roots_ = powers(omega_, n_ / 2);
  } else {
    log_cols_ = log_n / 2;
    log_rows_ = log_n - log_cols_;
    const std::size_t n1 = std::size_t(1) << log_cols_, n2 = std::size_t(1) << log_rows_;
    roots_ = powers(omega_.pow(u64(n1)), n2 / 2);  // primitive n2-th root
    col_tw_ = powers(omega_, n1);
    roots_inv_ = powers(omega_inv_.pow(u64(n1)), n2 / 2);
    col_tw_inv_ = powers(omega_inv_, n1);
  }
}

const Domain& domain_for(unsigned log_n) {
  if (log_n > kNttMaxLog) {
    throw std::invalid_argument("ntt: domain 2^" + std::to_string(log_n) + " exceeds the supported maximum 2^" +
                                std::to_string(kNttMaxLog));
  }
  static std::array<std::once_flag, kNttMaxLog + 1> once;
  static std::array<std::unique_ptr<Domain>, kNttMaxLog + 1> cache;
  std::call_once(once[log_n], [log_n] { cache[log_n] = std::make_unique<Domain>(log_n); });
  return *cache[log_n];
}

const Domain& domain_for_size(std::size_t n) {
  if (n == 0 || (n & (n - 1)) != 0) {
    throw std::invalid_argument("ntt: size " + std::to_string(n) + " is not a power of two");
  }
  return domain_for(unsigned(__builtin_ctzll(n)));
}

void ntt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  forward(domain, data, resolve_threads(threads));
}

// Small (direct) sizes: separate in-cache passes; four-step sizes fold the factors into the transform.
void intt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  threads = resolve_threads(threads);
  check_size(domain, data);
  if (is_direct(domain)) {
    forward(domain, data, threads);
    finish_inverse(domain, data, nullptr, threads);
    return;
  }
  Scaling sc;
  sc.scale = domain.size_inv();
  four_step(domain, data.data(), threads, true, sc);
}

void coset_ntt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  coset_ntt(domain, data, domain.coset_gen(), threads);
}

void coset_intt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  coset_inverse(domain, data, domain.coset_gen_inv(), resolve_threads(threads));
}

void coset_ntt(const Domain& domain, std::span<Fr> data, const Fr& shift, std::size_t threads) {
  threads = resolve_threads(threads);
  check_size(domain, data);
  if (is_direct(domain)) {
    scale_by_powers(data, Fr::one(), shift, threads);
    forward(domain, data, threads);
    return;
  }
  Scaling sc;
  sc.alpha = &shift;
  four_step(domain, data.data(), threads, false, sc);
}

void coset_intt(const Domain& domain, std::span<Fr> data, const Fr& shift, std::size_t threads) {
  if (shift.is_zero()) throw std::invalid_argument("coset_intt: zero coset shift");
  coset_inverse(domain, data, shift.inverse(), resolve_threads(threads));
}

void scale_by_powers(std::span<Fr> data, const Fr& start, const Fr& ratio, std::size_t threads) {
  threads = resolve_threads(threads);
  const std::size_t chunks = data.size() < kParallelGrain ? 1 : threads;
  parallel_chunks(data.size(), chunks, [&](std::size_t b, std::size_t e, std::size_t) {
    Fr p = start * ratio.pow(u64(b));
    for (std::size_t i = b; i < e; ++i) {
      data[i] *= p;
      p *= ratio;
    }
  });
}

}  // namespace cuzk::math
