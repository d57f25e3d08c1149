#include "math/msm/msm.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/parallel.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/msm/affine_batch_ifma.hpp"

namespace cuzk::math {

namespace {

using Scalar = Limbs<4>;  // canonical Fr value

constexpr unsigned kScalarBits = 255;  // r < 2^255
constexpr unsigned kMaxWindow = 20;
// Batch-affine buckets from this window size up (below it, conflicts within a batch are too frequent),
// with batches of up to this many additions per inversion.
constexpr unsigned kAffineMinWindow = 11;
constexpr std::size_t kAffineBatch = 1024;

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

// Buckets as XYZZ points fed by mixed additions (8M + 2S per point, no inversions).
template <class C>
class XyzzBuckets {
 public:
  using X = Xyzz<C>;
  static constexpr double kPointCost = 1.0, kBucketCost = 2.8;  // relative cost, for task splitting
  explicit XyzzBuckets(std::size_t nbuckets) : bk_(nbuckets) {}
  void prefetch(std::size_t b) const {
    const char* p = reinterpret_cast<const char*>(&bk_[b]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
  }
  void add(std::size_t b, const Affine<C>& q, bool negate) {
    if (negate) bk_[b].sub_affine(q);
    else bk_[b].add_affine(q);
  }
  void flush() {}
  // sum_j (j + 1) * bucket[j] over j < used by running sums from the top; leaves the buckets empty.
  X reduce(std::size_t used) {
    X running, sum;
    for (std::size_t j = used; j-- > 0;) {
      running.add(bk_[j]);
      sum.add(running);
      bk_[j] = X::identity();
    }
    return sum;
  }

 private:
  std::vector<X> bk_;
};

// Buckets as affine points, updated by batches of independent affine additions that share one
// inversion (Montgomery's trick): about 5M + 1S per point plus 1/batch of an inversion, against
// 8M + 2S for an XYZZ mixed addition. A bucket already waiting in the current batch takes further
// points into an XYZZ side bucket instead of queueing them, so skewed inputs (every point in one
// bucket) degrade to XYZZ speed rather than to one inversion per addition.
//
// On AVX-512 IFMA (ifma = true and ifma::available()), G1 and G2: the batches run eight lanes at a
// time (msm_ifma::AffineBatchAdder), and the affine buckets keep y in that kernel's bucket form
// (y 2^-16 on an isomorphic curve; x is unchanged), converted back where the buckets are read
// (bucket()). Entries that would double or cancel (same x as their bucket) go to the XYZZ side bucket
// instead.
template <class C>
class AffineBuckets {
 public:
  using F = typename C::Field;
  using A = Affine<C>;
  using X = Xyzz<C>;
  static constexpr double kPointCost = 0.7, kBucketCost = 2.4;  // relative to an XYZZ mixed addition
  AffineBuckets(std::size_t nbuckets, std::size_t batch, bool ifma)
      : abk_(nbuckets), xbk_(nbuckets), mark_(nbuckets, 0), bidx_(batch), pts_(batch) {
    if (ifma && ifma::available()) {
      vec_ = std::make_unique<msm_ifma::AffineBatchAdder<C>>(batch);
      queue_cap_ = batch;
      queue_.reserve(queue_cap_);
    }
    if (!vec_) {
      num_.resize(batch);
      den_.resize(batch);
      pre_.resize(batch);
      cancel_.resize(batch);
    }
  }

  void prefetch(std::size_t b) const { __builtin_prefetch(&mark_[b]); }
  void add(std::size_t b, const A& q, bool negate) {
    if (q.infinity) return;
    if (mark_[b] == epoch_) {                    // already in this batch
      if (vec_ && queue_.size() < queue_cap_) {  // IFMA path: into the next batch
        queue_.push_back({std::uint32_t(b), negate ? -q : q});
        return;
      }
      if (negate) xbk_[b].sub_affine(q);
      else xbk_[b].add_affine(q);
      return;
    }
    // The bucket itself is read only at flush time (an empty one is then simply overwritten), so the
    // random access is a prefetch here rather than a stall.
    __builtin_prefetch(&abk_[b]);
    __builtin_prefetch(reinterpret_cast<const char*>(&abk_[b]) + 64);
    mark_[b] = epoch_;
    bidx_[count_] = std::uint32_t(b);
    pts_[count_] = negate ? -q : q;
    if (++count_ == bidx_.size()) flush();
  }

  // Applies the pending batch: bucket <- bucket + p for each entry.
  void flush() {
    const std::size_t n = count_;
    if (n == 0) return;
    if (vec_) {
      flush_ifma();
      return;
    }
    F acc = F::one();
    for (std::size_t j = 0; j < n; ++j) {
      const A& bkt = abk_[bidx_[j]];
      const A& p = pts_[j];
      cancel_[j] = false;
      if (bkt.infinity) [[unlikely]] {  // empty bucket: takes p as is
        den_[j] = F::one();
        pre_[j] = acc;
        continue;
      }
      den_[j] = p.x - bkt.x;
      num_[j] = p.y - bkt.y;
      if (den_[j].is_zero()) [[unlikely]] {
        if (num_[j].is_zero()) {  // p = bucket: doubling, lambda = 3x^2 / 2y
          F xx = bkt.x.square();
          num_[j] = xx.dbl() + xx;
          den_[j] = bkt.y.dbl();
        } else {  // p = -bucket
          cancel_[j] = true;
          den_[j] = F::one();
        }
      }
      pre_[j] = acc;
      acc *= den_[j];
    }
    F inv = acc.inverse();
    for (std::size_t j = n; j-- > 0;) {
      const F den_inv = inv * pre_[j];
      inv *= den_[j];
      A& bkt = abk_[bidx_[j]];
      const A& p = pts_[j];
      if (bkt.infinity) [[unlikely]] {
        bkt = p;
        continue;
      }
      if (cancel_[j]) {
        bkt = A::identity();
        continue;
      }
      const F lambda = num_[j] * den_inv;
      const F x3 = lambda.square() - bkt.x - p.x;
      bkt.y = lambda * (bkt.x - x3) - bkt.y;
      bkt.x = x3;
    }
    count_ = 0;
    ++epoch_;
  }

  // Plain sum of all buckets (for sums of points, where the bucket index is just a slot); empties them.
  X total() {
    drain();
    X sum;
    for (std::size_t j = 0; j < abk_.size(); ++j) {
      sum.add(xbk_[j]);
      sum.add_affine(bucket(j));
      xbk_[j] = X::identity();
      abk_[j] = A::identity();
    }
    return sum;
  }

  X reduce(std::size_t used) {
    drain();
    if (X vsum; vec_ && msm_ifma::bucket_sum<C>(abk_.data(), used, vsum)) {
      vsum.add(reduce_side(used));
      for (std::size_t j = 0; j < used; ++j) abk_[j] = A::identity();
      return vsum;
    }
    X running, sum;
    for (std::size_t j = used; j-- > 0;) {
      running.add(xbk_[j]);
      running.add_affine(bucket(j));
      sum.add(running);
      xbk_[j] = X::identity();
      abk_[j] = A::identity();
    }
    return sum;
  }

 private:
  // sum_j (j + 1) xbk_[j] over j < used, leaving them empty: per entry (j + 1) xbk_[j] by double and
  // add when few are set (the IFMA path's side buckets take only overflow and doubling entries),
  // running sums otherwise.
  X reduce_side(std::size_t used) {
    std::size_t set = 0;
    for (std::size_t j = 0; j < used; ++j) set += !xbk_[j].is_identity();
    X sum;
    if (set == 0) return sum;
    if (set * 64 <= used) {
      for (std::size_t j = 0; j < used; ++j) {
        if (xbk_[j].is_identity()) continue;
        X r;
        const std::uint64_t k = j + 1;
        for (int i = 63 - __builtin_clzll(k); i >= 0; --i) {
          r = r.dbl();
          if ((k >> i) & 1) r.add(xbk_[j]);
        }
        sum.add(r);
        xbk_[j] = X::identity();
      }
      return sum;
    }
    X running;
    for (std::size_t j = used; j-- > 0;) {
      running.add(xbk_[j]);
      sum.add(running);
      xbk_[j] = X::identity();
    }
    return sum;
  }

  // flush() until the batch and the queue are empty; the last few entries (when the queue holds
  // mostly repeats of a few buckets) go to the XYZZ side buckets rather than through batches of a
  // handful of entries, one inversion each.
  void drain() {
    flush();
    while (count_) {
      if (count_ < kMinDrainBatch) {
        for (std::size_t j = 0; j < count_; ++j) xbk_[bidx_[j]].add_affine(pts_[j]);
        for (const auto& e : queue_) xbk_[e.b].add_affine(e.p);
        queue_.clear();
        count_ = 0;
        ++epoch_;
        break;
      }
      flush();
    }
  }

  // Affine bucket j in the scalar field's form.
  A bucket(std::size_t j) const {
    if (vec_ && !abk_[j].infinity) return A::from_xy(abk_[j].x, msm_ifma::y_from_bucket(abk_[j].y));
    return abk_[j];
  }

  void flush_ifma() {
    const std::size_t n = count_;
    std::size_t k = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint32_t b = bidx_[j];
      const A& bkt = abk_[b];
      if (!bkt.infinity && bkt.x == pts_[j].x) [[unlikely]] {  // doubling or cancellation
        xbk_[b].add_affine(pts_[j]);
        continue;
      }
      if (k != j) {
        bidx_[k] = b;
        pts_[k] = pts_[j];
      }
      ++k;
    }
    vec_->run(abk_.data(), bidx_.data(), pts_.data(), k);
    count_ = 0;
    ++epoch_;
    // Queued entries whose bucket is free again start the next batch (at most batch - 1 of them, so
    // add() still sees the batch fill up).
    std::size_t keep = 0;
    for (std::size_t i = 0; i < queue_.size(); ++i) {
      const std::uint32_t b = queue_[i].b;
      if (mark_[b] != epoch_ && count_ + 1 < bidx_.size()) {
        mark_[b] = epoch_;
        bidx_[count_] = b;
        pts_[count_] = queue_[i].p;
        ++count_;
      } else {
        if (keep != i) queue_[keep] = queue_[i];
        ++keep;
      }
    }
    queue_.resize(keep);
  }

  std::vector<A> abk_;
  std::vector<X> xbk_;
  std::vector<std::uint32_t> mark_;
  std::uint32_t epoch_ = 1;
  std::vector<std::uint32_t> bidx_;
  std::vector<A> pts_;
  std::vector<F> num_, den_, pre_;
  std::vector<bool> cancel_;
  std::size_t count_ = 0;
  std::unique_ptr<msm_ifma::AffineBatchAdder<C>> vec_;
  // IFMA path: points whose bucket is already in the batch wait here for the next one (up to
  // queue_cap_, then the XYZZ side bucket as on the scalar path).
  struct Pending {
    std::uint32_t b;
    A p;
  };
  static constexpr std::size_t kMinDrainBatch = 16;
  std::vector<Pending> queue_;
  std::size_t queue_cap_ = 0;
};

// Pippenger over m scalars ks[i] (canonical) with bases[idx[i]] (or bases[i] when idx is null).
template <class C, class Buckets, class MakeBuckets>
Xyzz<C> pippenger_with(std::span<const Affine<C>> bases, const Scalar* ks, const std::uint32_t* idx, std::size_t m,
                       unsigned c, std::size_t threads, MakeBuckets&& make_buckets) {
  using X = Xyzz<C>;
  const unsigned W = num_windows(c);
  const std::size_t nbuckets = std::size_t(1) << (c - 1);

  // Split the points into P ranges when windows alone cannot keep the threads evenly busy: minimize
  // rounds * (per-task point work + per-task bucket reduction), in units of one XYZZ mixed addition
  // (a batch-affine point costs ~0.7 of one; reducing a bucket ~2.4 to 2.8).
  std::size_t P = 1;
  {
    const double point_cost = Buckets::kPointCost, bucket_cost = Buckets::kBucketCost;
    double best = std::numeric_limits<double>::max();
    for (std::size_t p = 1; p <= 64; ++p) {
      if (p > 1 && m / p < 256) break;
      const double rounds = double((W * p + threads - 1) / threads);
      const double cost = rounds * (point_cost * double(m) / double(p) + bucket_cost * double(nbuckets));
      if (cost < best * 0.98) {
        best = cost;
        P = p;
      }
    }
  }
  const std::size_t tasks = std::size_t(W) * P;
  if (double(m) * W < 512) threads = 1;  // too little work to pay for a thread

  std::vector<X> partial(tasks);
  std::vector<std::unique_ptr<Buckets>> buckets(std::min(threads, tasks));
  dynamic_tasks(tasks, threads, [&](std::size_t task, std::size_t worker) {
    if (!buckets[worker]) buckets[worker] = make_buckets(nbuckets);
    Buckets& bk = *buckets[worker];
    const unsigned w = unsigned(task / P);
    const std::size_t p = task % P;
    const std::size_t b = m * p / P, e = m * (p + 1) / P;
    std::size_t used = 0;  // buckets [0, used) may be non-empty
    // Blocks of points: digits first (prefetching their buckets), then the additions.
    constexpr std::size_t kBlock = 32;
    int digits[kBlock];
    for (std::size_t i0 = b; i0 < e; i0 += kBlock) {
      const std::size_t len = std::min(kBlock, e - i0);
      for (std::size_t t = 0; t < len; ++t) {
        const int d = booth_digit(ks[i0 + t], w, c);
        digits[t] = d;
        if (d) bk.prefetch(std::size_t(d > 0 ? d : -d) - 1);
      }
      for (std::size_t t = 0; t < len; ++t) {
        const int d = digits[t];
        if (d == 0) continue;
        const std::size_t mag = std::size_t(d > 0 ? d : -d);
        const std::size_t i = i0 + t;
        bk.add(mag - 1, bases[idx ? idx[i] : i], d < 0);
        used = std::max(used, mag);
      }
    }
    partial[task] = bk.reduce(used);
  });

  X acc;
  for (unsigned w = W; w-- > 0;) {
    for (unsigned i = 0; i < c && !acc.is_identity(); ++i) acc = acc.dbl();
    for (std::size_t p = 0; p < P; ++p) acc.add(partial[std::size_t(w) * P + p]);
  }
  return acc;
}

template <class C>
Xyzz<C> pippenger(std::span<const Affine<C>> bases, const Scalar* ks, const std::uint32_t* idx, std::size_t m,
                  unsigned c, std::size_t threads, MsmBuckets kind, bool ifma) {
  if (kind == MsmBuckets::kAuto) kind = c >= kAffineMinWindow ? MsmBuckets::kBatchAffine : MsmBuckets::kXyzz;
  if (kind == MsmBuckets::kBatchAffine) {
    return pippenger_with<C, AffineBuckets<C>>(bases, ks, idx, m, c, threads, [ifma](std::size_t nb) {
      return std::make_unique<AffineBuckets<C>>(nb, std::clamp<std::size_t>(nb / 4, 64, kAffineBatch), ifma);
    });
  }
  return pippenger_with<C, XyzzBuckets<C>>(bases, ks, idx, m, c, threads,
                                           [](std::size_t nb) { return std::make_unique<XyzzBuckets<C>>(nb); });
}

// sum of bases[i] over the set bits i < n of `bits`. Large sums go through batch-affine accumulators
// (slot = running count mod kSumSlots, so a batch never hits a slot twice); small ones use XYZZ.
template <class C>
Xyzz<C> sum_bits(std::span<const Affine<C>> bases, const std::uint64_t* bits, std::size_t threads, bool ifma) {
  using X = Xyzz<C>;
  const std::size_t n = bases.size();
  const std::size_t words = (n + 63) / 64;
  constexpr std::size_t kWordsPerTask = 64;  // 4096 points per task, handed out dynamically
  constexpr std::size_t kSumSlots = 1024;
  const std::size_t tasks = (words + kWordsPerTask - 1) / kWordsPerTask;
  const std::size_t workers = std::max<std::size_t>(1, std::min(threads, tasks));
  const bool affine = n >= 8 * kSumSlots;
  std::vector<X> acc(workers);
  std::vector<std::unique_ptr<AffineBuckets<C>>> slots(workers);
  std::vector<std::size_t> counter(workers, 0);
  dynamic_tasks(tasks, workers, [&](std::size_t task, std::size_t worker) {
    const std::size_t w_end = std::min(words, (task + 1) * kWordsPerTask);
    if (affine && !slots[worker]) slots[worker] = std::make_unique<AffineBuckets<C>>(kSumSlots, kSumSlots, ifma);
    for (std::size_t w = task * kWordsPerTask; w < w_end; ++w) {
      std::uint64_t word = bits[w];
      while (word) {
        const std::size_t i = w * 64 + std::size_t(__builtin_ctzll(word));
        if (i >= n) break;
        if (affine) slots[worker]->add(counter[worker]++ % kSumSlots, bases[i], false);
        else acc[worker].add_affine(bases[i]);
        word &= word - 1;
      }
    }
  });
  X result;
  for (std::size_t t = 0; t < workers; ++t) {
    result.add(acc[t]);
    if (slots[t]) result.add(slots[t]->total());
  }
  return result;
}

}  // namespace

unsigned msm_window_bits(std::size_t n) {
  // Indexed by floor(log2 n). Tuned with bench_msm --sweep and single-thread CPU-time sweeps on the
  // 2-core AMD EPYC dev machine (G1, random scalars); see bench/RESULTS_math.md.
  static constexpr unsigned kTable[] = {
      2,  3,  3,  4,  4,  5,  6,  6,  7,  7,   // 2^0 .. 2^9     (XYZZ buckets)
      8,  9,  9,  11, 12, 13, 13, 14, 15, 15,  // 2^10 .. 2^19   (batch-affine from c = 11)
      16, 16, 17, 17, 17, 18, 18, 18, 18, 18,  // 2^20 .. 2^29
  };
  if (n <= 1) return kTable[0];
  const unsigned lg = 63 - unsigned(__builtin_clzll(n));
  return lg < std::size(kTable) ? kTable[lg] : kTable[std::size(kTable) - 1];
}

// G2 on the IFMA path: batch-affine buckets (c >= 11) beat the table's XYZZ windows from 2^11
// scalars, where G1's only catch up at 2^13. Measured with bench_msm --no-g1 --window c (2 threads,
// wall ms; bench/RESULTS_math.md): 2^11 c = 11 31.7 against 33.7 at the table's 9; 2^12 11 26.5
// against 61.9 (9); 2^10 8 (the table's) 18.7 against 27.3 at 11. From 2^13 up the table's windows
// are also G2's best (2^14 12, 2^16 13, 2^18 15, 2^20 16).
namespace {
unsigned g2_ifma_window_bits(std::size_t n, unsigned table_c) {
  return n >= (std::size_t(1) << 11) && n < (std::size_t(1) << 13) ? 11 : table_c;
}
}  // namespace

template <class C>
unsigned msm_window(std::size_t n, const MsmOptions& options) {
  if (options.window) return options.window;
  const unsigned c = msm_window_bits(n);
  if constexpr (std::is_same_v<C, G2Curve>) {
    if (options.ifma && ifma::available()) return g2_ifma_window_bits(n, c);
  }
  return c;
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

  // Pass 1: classify. Scalars equal to 1 (split_bits) go to a bitmap summed like msm_bits, zeros are
  // dropped, the rest are counted per chunk. Nothing of size n is allocated here: for witness-like
  // inputs (mostly 0/1) the page faults of an n-entry scalar copy would cost more than the sum itself.
  const std::size_t words = (n + 63) / 64;
  const std::size_t chunks = std::max<std::size_t>(1, std::min(threads, words / 16));
  std::vector<std::uint64_t> ones(options.split_bits ? words : 0, 0);
  std::vector<std::size_t> general(chunks + 1, 0), ones_count(chunks, 0);
  auto chunk_range = [&](std::size_t t) {  // chunks own whole bitmap words
    return std::pair<std::size_t, std::size_t>(std::min(n, words * t / chunks * 64),
                                               std::min(n, words * (t + 1) / chunks * 64));
  };
  parallel_chunks(chunks, chunks, [&](std::size_t, std::size_t, std::size_t t) {
    const auto [b, e] = chunk_range(t);
    std::size_t count = 0, count1 = 0;
    for (std::size_t i = b; i < e; ++i) {
      const Scalar k = scalars[i].to_canonical();
      if (!options.split_bits || !is_zero_or_one(k)) {
        ++count;
      } else if (k[0] == 1) {
        ones[i / 64] |= std::uint64_t(1) << (i % 64);
        ++count1;
      }
    }
    general[t + 1] = count;
    ones_count[t] = count1;
  });
  X result;
  std::size_t m1 = 0;
  for (std::size_t t = 0; t < chunks; ++t) {
    general[t + 1] += general[t];  // prefix sums: chunk t's scalars go to [general[t], general[t + 1])
    m1 += ones_count[t];
  }
  const std::size_t m = general[chunks];
  if (m1) result = sum_bits<C>(bases, ones.data(), threads, options.ifma);
  if (m == 0) return result.to_jacobian();

  // Pass 2: the remaining scalars in canonical form (recomputed: one multiplication each), with their
  // base indices unless every scalar is kept.
  auto ks = std::make_unique_for_overwrite<Scalar[]>(m);
  std::unique_ptr<std::uint32_t[]> idx;
  if (m < n) idx = std::make_unique_for_overwrite<std::uint32_t[]>(m);
  parallel_chunks(chunks, chunks, [&](std::size_t, std::size_t, std::size_t t) {
    const auto [b, e] = chunk_range(t);
    std::size_t o = general[t];
    for (std::size_t i = b; i < e; ++i) {
      const Scalar k = scalars[i].to_canonical();
      if (options.split_bits && is_zero_or_one(k)) continue;
      ks[o] = k;
      if (idx) idx[o] = std::uint32_t(i);
      ++o;
    }
  });

  const unsigned c = msm_window<C>(m, options);
  result.add(pippenger<C>(bases, ks.get(), idx.get(), m, c, threads, options.buckets, options.ifma));
  return result.to_jacobian();
}

template <class C>
Jacobian<C> msm_bits(std::span<const Affine<C>> bases, std::span<const std::uint64_t> bits, std::size_t threads) {
  const std::size_t n = bases.size();
  const std::size_t words = (n + 63) / 64;
  if (bits.size() < words) {
    throw std::invalid_argument("msm_bits: " + std::to_string(n) + " bases need " + std::to_string(words) +
                                " bitmap words, got " + std::to_string(bits.size()));
  }
  if (n == 0) return Jacobian<C>::identity();
  if (!threads) threads = default_threads();
  return sum_bits<C>(bases, bits.data(), threads, true).to_jacobian();
}

template G1Jacobian msm<G1Curve>(std::span<const G1Affine>, std::span<const Fr>, const MsmOptions&);
template G2Jacobian msm<G2Curve>(std::span<const G2Affine>, std::span<const Fr>, const MsmOptions&);
template unsigned msm_window<G1Curve>(std::size_t, const MsmOptions&);
template unsigned msm_window<G2Curve>(std::size_t, const MsmOptions&);
template G1Jacobian msm_bits<G1Curve>(std::span<const G1Affine>, std::span<const std::uint64_t>, std::size_t);
template G2Jacobian msm_bits<G2Curve>(std::span<const G2Affine>, std::span<const std::uint64_t>, std::size_t);

}  // namespace cuzk::math
