#include "math/msm/msm.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/parallel.hpp"

namespace cuzk::math {

namespace {

using Scalar = Limbs<4>;  // canonical Fr value

constexpr unsigned kScalarBits = 255;  // r < 2^255
constexpr unsigned kMaxWindow = 20;

// Runs fn(task, worker) for task in [0, count), tasks handed out dynamically to `threads` workers.
template <class Fn>
void dynamic_tasks(std::size_t count, std::size_t threads, Fn&& fn) {
  threads = std::max<std::size_t>(1, std::min(threads, count));
  std::atomic<std::size_t> next{0};
  parallel_chunks(threads, threads, [&](std::size_t, std::size_t, std::size_t worker) {
    for (std::size_t task; (task = next.fetch_add(1, std::memory_order_relaxed)) < count;) fn(task, worker);
  });
}

// Signed windows: c * W >= 256 leaves the top digit's sign bit clear for a 255-bit scalar.
unsigned num_windows(unsigned c) { return (kScalarBits + 1 + c - 1) / c; }

// Booth recoding: digit w reads bits [c*w - 1, c*w + c] of k (bit -1 is 0):
//   d = b[cw-1] + sum_{i<c-1} b[cw+i] 2^i - b[cw+c-1] 2^(c-1),   d in [-2^(c-1), 2^(c-1)],
// and sum_w d_w 2^(cw) = k. No carries between windows, so any window is computed on its own.
inline int booth_digit(const Scalar& k, unsigned w, unsigned c) {
  const u64 mask = (u64(1) << (c + 1)) - 1;
  u64 v;
  if (w == 0) {
    v = (k[0] << 1) & mask;
  } else {
    const unsigned pos = c * w - 1;
    const unsigned limb = pos / 64, shift = pos % 64;
    v = k[limb] >> shift;
    if (shift + c + 1 > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - shift);
    v &= mask;
  }
  return int((v >> 1) + (v & 1)) - int((v >> c) << c);
}

inline bool is_zero_or_one(const Scalar& k) { return (k[1] | k[2] | k[3]) == 0 && k[0] <= 1; }

// Pippenger over m scalars ks[i] (canonical) with bases[idx[i]] (or bases[i] when idx is null).
template <class C>
Xyzz<C> pippenger(std::span<const Affine<C>> bases, const Scalar* ks, const std::uint32_t* idx, std::size_t m,
                  unsigned c, std::size_t threads) {
  using X = Xyzz<C>;
  const unsigned W = num_windows(c);
  const std::size_t nbuckets = std::size_t(1) << (c - 1);

  // Split the points into P ranges when windows alone cannot keep the threads evenly busy: minimize
  // rounds * (points per task + reduction), the reduction costing ~1.4 madds per bucket add.
  std::size_t P = 1;
  {
    double best = std::numeric_limits<double>::max();
    for (std::size_t p = 1; p <= 16; ++p) {
      if (p > 1 && m / p < 64) break;
      const double rounds = double((W * p + threads - 1) / threads);
      const double cost = rounds * (double(m) / double(p) + 1.4 * 2.0 * double(nbuckets));
      if (cost < best * 0.98) {
        best = cost;
        P = p;
      }
    }
  }
  const std::size_t tasks = std::size_t(W) * P;
  if (double(m) * W < 512) threads = 1;  // too little work to pay for a thread

  std::vector<X> partial(tasks);
  std::vector<std::vector<X>> buckets(std::min(threads, tasks));
  dynamic_tasks(tasks, threads, [&](std::size_t task, std::size_t worker) {
    std::vector<X>& bk = buckets[worker];
    if (bk.empty()) bk.assign(nbuckets, X::identity());
    const unsigned w = unsigned(task / P);
    const std::size_t p = task % P;
    const std::size_t b = m * p / P, e = m * (p + 1) / P;
    std::size_t used = 0;  // buckets [0, used) may be non-identity
    for (std::size_t i = b; i < e; ++i) {
      const int d = booth_digit(ks[i], w, c);
      if (d == 0) continue;
      const Affine<C>& q = bases[idx ? idx[i] : i];
      if (d > 0) {
        bk[d - 1].add_affine(q);
        used = std::max(used, std::size_t(d));
      } else {
        bk[-d - 1].sub_affine(q);
        used = std::max(used, std::size_t(-d));
      }
    }
    // sum_j (j + 1) * bucket[j] by running sums from the top.
    X running, sum;
    for (std::size_t j = used; j-- > 0;) {
      running.add(bk[j]);
      sum.add(running);
      bk[j] = X::identity();
    }
    partial[task] = sum;
  });

  X acc;
  for (unsigned w = W; w-- > 0;) {
    for (unsigned i = 0; i < c && !acc.is_identity(); ++i) acc = acc.dbl();
    for (std::size_t p = 0; p < P; ++p) acc.add(partial[std::size_t(w) * P + p]);
  }
  return acc;
}

}  // namespace

unsigned msm_window_bits(std::size_t n) {
  // Indexed by floor(log2 n). Tuned with bench_msm on a 2-core AMD EPYC (G1, random scalars).
  static constexpr unsigned kTable[] = {
      2,  3,  3,  4,  4,  5,  5,  6,  7,  7,   // 2^0 .. 2^9
      8,  9,  9,  10, 11, 12, 13, 13, 14, 15,  // 2^10 .. 2^19
      16, 16, 17, 18, 18, 18, 18, 18, 18, 18,  // 2^20 .. 2^29
  };
  if (n <= 1) return kTable[0];
  const unsigned lg = 63 - unsigned(__builtin_clzll(n));
  return lg < std::size(kTable) ? kTable[lg] : kTable[std::size(kTable) - 1];
}

template <class C>
Jacobian<C> msm(std::span<const Affine<C>> bases, std::span<const Fr> scalars, const MsmOptions& options) {
  using X = Xyzz<C>;
  const std::size_t n = bases.size();
  if (scalars.size() != n) {
    throw std::invalid_argument("msm: " + std::to_string(n) + " bases but " + std::to_string(scalars.size()) +
                                " scalars");
  }
  if (n > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("msm: more than 2^32 points");
  if (options.window > kMaxWindow) throw std::invalid_argument("msm: window above " + std::to_string(kMaxWindow));
  if (n == 0) return Jacobian<C>::identity();
  const std::size_t threads = options.threads ? options.threads : default_threads();

  // Canonical scalars, and (split_bits) the sum of the bases whose scalar is 1.
  std::vector<Scalar> ks(n);
  const std::size_t chunks = std::max<std::size_t>(1, std::min(threads, n / 1024));
  std::vector<X> ones(chunks);
  std::vector<std::size_t> general(chunks);
  parallel_chunks(n, chunks, [&](std::size_t b, std::size_t e, std::size_t t) {
    std::size_t count = 0;
    for (std::size_t i = b; i < e; ++i) {
      ks[i] = scalars[i].to_canonical();
      if (!options.split_bits || !is_zero_or_one(ks[i])) {
        ++count;
      } else if (ks[i][0] == 1) {
        ones[t].add_affine(bases[i]);
      }
    }
    general[t] = count;
  });
  X result;
  for (const X& o : ones) result.add(o);
  std::size_t m = 0;
  for (std::size_t g : general) m += g;
  if (m == 0) return result.to_jacobian();

  // Compact the remaining scalars (in place; the order is kept) with their base indices.
  std::vector<std::uint32_t> idx;
  if (m < n) {
    idx.resize(m);
    std::size_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (is_zero_or_one(ks[i])) continue;
      ks[j] = ks[i];
      idx[j] = std::uint32_t(i);
      ++j;
    }
    ks.resize(m);
  }

  const unsigned c = options.window ? options.window : msm_window_bits(m);
  result.add(pippenger<C>(bases, ks.data(), idx.empty() ? nullptr : idx.data(), m, c, threads));
  return result.to_jacobian();
}

template <class C>
Jacobian<C> msm_bits(std::span<const Affine<C>> bases, std::span<const std::uint64_t> bits, std::size_t threads) {
  using X = Xyzz<C>;
  const std::size_t n = bases.size();
  const std::size_t words = (n + 63) / 64;
  if (bits.size() < words) {
    throw std::invalid_argument("msm_bits: " + std::to_string(n) + " bases need " + std::to_string(words) +
                                " bitmap words, got " + std::to_string(bits.size()));
  }
  if (n == 0) return Jacobian<C>::identity();
  if (!threads) threads = default_threads();
  // Tasks of 16 words (1024 points), handed out dynamically so clustered bits still balance.
  constexpr std::size_t kWordsPerTask = 16;
  const std::size_t tasks = (words + kWordsPerTask - 1) / kWordsPerTask;
  std::vector<X> acc(std::max<std::size_t>(1, std::min(threads, tasks)));
  dynamic_tasks(tasks, threads, [&](std::size_t task, std::size_t worker) {
    X& a = acc[worker];
    const std::size_t w_end = std::min(words, (task + 1) * kWordsPerTask);
    for (std::size_t w = task * kWordsPerTask; w < w_end; ++w) {
      std::uint64_t word = bits[w];
      while (word) {
        const std::size_t i = w * 64 + std::size_t(__builtin_ctzll(word));
        if (i >= n) break;
        a.add_affine(bases[i]);
        word &= word - 1;
      }
    }
  });
  X result;
  for (const X& a : acc) result.add(a);
  return result.to_jacobian();
}

template G1Jacobian msm<G1Curve>(std::span<const G1Affine>, std::span<const Fr>, const MsmOptions&);
template G2Jacobian msm<G2Curve>(std::span<const G2Affine>, std::span<const Fr>, const MsmOptions&);
template G1Jacobian msm_bits<G1Curve>(std::span<const G1Affine>, std::span<const std::uint64_t>, std::size_t);
template G2Jacobian msm_bits<G2Curve>(std::span<const G2Affine>, std::span<const std::uint64_t>, std::size_t);

}  // namespace cuzk::math
