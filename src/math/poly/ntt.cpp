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

namespace cuzk::math {

namespace {

// Below this many elements the element-wise passes (scaling, reversal) stay on the calling thread.
constexpr std::size_t kParallelGrain = std::size_t(1) << 12;
// Column blocks of the four-step transform are gathered into a buffer of about this many elements
// (2^14 x 32 bytes = 512 KiB, half of this machine's L2).
constexpr std::size_t kColumnBufferElems = std::size_t(1) << 14;
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

// Four-step transform, n = n1 * n2 with n1 = 2^lc columns and n2 = 2^lr rows (lr = lc or lc + 1).
// Element j = j1 + n1 * j2 sits in row j2, column j1; output k = k2 + n2 * k1.
//   1. each column j1: length-n2 DFT over j2, then times w^(j1 * k2)      (gathered in blocks)
//   2. each row k2: length-n1 DFT over j1 -> X[k2 + n2 * k1] at k1 + n1 * k2
//   3. transpose the n2 x n1 matrix to n1 x n2.
void four_step(const Domain& d, Fr* a, std::size_t threads) {
  const unsigned lr = d.log_rows(), lc = d.log_cols();
  const std::size_t n1 = std::size_t(1) << lc, n2 = std::size_t(1) << lr;
  const Fr* roots = d.roots().data();
  const Fr* col_tw = d.col_twiddles().data();

  // 1. Columns, B at a time.
  const std::size_t B = std::clamp<std::size_t>(kColumnBufferElems / n2, 2, n1);
  const std::size_t nblocks = n1 / B;
  parallel_chunks(nblocks, threads, [&](std::size_t b0, std::size_t b1, std::size_t) {
    std::vector<Fr> buf(B * n2);
    std::vector<Fr> w(B), ratio(B);
    for (std::size_t blk = b0; blk < b1; ++blk) {
      const std::size_t c0 = blk * B;
      for (std::size_t r = 0; r < n2; ++r) {
        const Fr* row = a + r * n1 + c0;
        for (std::size_t b = 0; b < B; ++b) buf[b * n2 + r] = row[b];
      }
      for (std::size_t b = 0; b < B; ++b) {
        dif(buf.data() + b * n2, lr, roots, 1);
        ratio[b] = col_tw[c0 + b];
        w[b] = ratio[b];
      }
      {
        Fr* row = a + c0;
        for (std::size_t b = 0; b < B; ++b) row[b] = buf[b * n2];
      }
      for (std::size_t r = 1; r < n2; ++r) {
        const std::size_t rr = bit_reverse(r, lr);
        Fr* row = a + r * n1 + c0;
        for (std::size_t b = 0; b < B; ++b) {
          row[b] = buf[b * n2 + rr] * w[b];
          w[b] *= ratio[b];
        }
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
    }
  });

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
    four_step(d, data.data(), threads);
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

void intt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  threads = resolve_threads(threads);
  forward(domain, data, threads);
  finish_inverse(domain, data, nullptr, threads);
}

void coset_ntt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  coset_ntt(domain, data, domain.coset_gen(), threads);
}

void coset_intt(const Domain& domain, std::span<Fr> data, std::size_t threads) {
  threads = resolve_threads(threads);
  forward(domain, data, threads);
  finish_inverse(domain, data, &domain.coset_gen_inv(), threads);
}

void coset_ntt(const Domain& domain, std::span<Fr> data, const Fr& shift, std::size_t threads) {
  threads = resolve_threads(threads);
  check_size(domain, data);
  scale_by_powers(data, Fr::one(), shift, threads);
  forward(domain, data, threads);
}

void coset_intt(const Domain& domain, std::span<Fr> data, const Fr& shift, std::size_t threads) {
  if (shift.is_zero()) throw std::invalid_argument("coset_intt: zero coset shift");
  check_size(domain, data);
  threads = resolve_threads(threads);
  forward(domain, data, threads);
  const Fr shift_inv = shift.inverse();
  finish_inverse(domain, data, &shift_inv, threads);
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
