#include "formats/bellperson/point_decode.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "base/parallel.hpp"
#include "math/ff/fp_ifma.hpp"

namespace cuzk::formats::bellperson::detail {
namespace {

using math::Fp;
using math::Fp2;
using math::G1Affine;
using math::G2Affine;

constexpr std::size_t kFpBytes = 48;
constexpr std::uint8_t kFlagMask = 0xe0;

inline std::uint64_t load_be64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// Big-endian 48 bytes -> canonical limbs; false when >= p.
inline bool load_fp(const std::uint8_t* p, Fp::Repr& r) {
  r[5] = load_be64(p);
  r[4] = load_be64(p + 8);
  r[3] = load_be64(p + 16);
  r[2] = load_be64(p + 24);
  r[1] = load_be64(p + 32);
  r[0] = load_be64(p + 40);
  return math::limbs::less_than(r, Fp::modulus());
}

// The common case only; false sends the caller to the generic decoder for the reason.
inline bool fast_g1(const std::uint8_t* p, const Fp& b, G1Affine& out) {
  if (p[0] & kFlagMask) return false;
  Fp::Repr rx, ry;
  if (!load_fp(p, rx) || !load_fp(p + kFpBytes, ry)) return false;
  Fp x = Fp::from_canonical_unchecked(rx), y = Fp::from_canonical_unchecked(ry);
  if (y.square() != x.square() * x + b) return false;
  out = G1Affine::from_xy(x, y);
  return true;
}

// Two points at once: the five multiplications of each point form a dependency chain of three, and
// two independent chains side by side keep the multiplier busier. Returns true only when both points
// take the common path; otherwise the caller decodes them one by one.
inline bool fast_g1_pair(const std::uint8_t* p, const std::uint8_t* q, const Fp& b, G1Affine& out_p, G1Affine& out_q) {
  if ((p[0] | q[0]) & kFlagMask) return false;
  Fp::Repr rx0, ry0, rx1, ry1;
  if (!load_fp(p, rx0) || !load_fp(p + kFpBytes, ry0) || !load_fp(q, rx1) || !load_fp(q + kFpBytes, ry1)) {
    return false;
  }
  Fp x0 = Fp::from_canonical_unchecked(rx0), x1 = Fp::from_canonical_unchecked(rx1);
  Fp y0 = Fp::from_canonical_unchecked(ry0), y1 = Fp::from_canonical_unchecked(ry1);
  Fp xx0 = x0.square(), xx1 = x1.square();
  Fp yy0 = y0.square(), yy1 = y1.square();
  Fp r0 = xx0 * x0 + b, r1 = xx1 * x1 + b;
  if (yy0 != r0 || yy1 != r1) return false;
  out_p = G1Affine::from_xy(x0, y0);
  out_q = G1Affine::from_xy(x1, y1);
  return true;
}

// Eight points through the AVX-512 IFMA decoder (math/ff/fp_ifma.hpp): the same checks as fast_g1,
// eight lanes at a time, written straight into the output points. False when any of the eight needs
// the per-point path (which then overwrites all eight).
static_assert(sizeof(Fp) == kFpBytes && offsetof(G1Affine, x) == 0 && offsetof(G1Affine, y) == kFpBytes,
              "the IFMA decoder writes G1Affine coordinates as raw words");
static_assert(offsetof(G2Affine, x) == 0 && offsetof(G2Affine, y) == 2 * kFpBytes &&
                  offsetof(math::Fp2, c1) == kFpBytes,
              "the IFMA decoder writes G2Affine coordinates as raw words");

inline bool fast_g1_batch8(const std::uint8_t* p, G1Affine* out) {
  if (math::ifma::g1_decode_be8(p, math::kG1UncompressedBytes, out, sizeof(G1Affine)) != 0xffu) return false;
  for (int k = 0; k < 8; ++k) out[k].infinity = false;
  return true;
}

inline bool fast_g2(const std::uint8_t* p, const Fp2& b, G2Affine& out) {
  if (p[0] & kFlagMask) return false;
  Fp::Repr x1, x0, y1, y0;  // c1 first
  if (!load_fp(p, x1) || !load_fp(p + kFpBytes, x0) || !load_fp(p + 2 * kFpBytes, y1) ||
      !load_fp(p + 3 * kFpBytes, y0)) {
    return false;
  }
  Fp2 x{Fp::from_canonical_unchecked(x0), Fp::from_canonical_unchecked(x1)};
  Fp2 y{Fp::from_canonical_unchecked(y0), Fp::from_canonical_unchecked(y1)};
  if (y.square() != x.square() * x + b) return false;
  out = G2Affine::from_xy(x, y);
  return true;
}

// The G2 counterpart of fast_g1_batch8.
inline bool fast_g2_batch8(const std::uint8_t* p, G2Affine* out) {
  if (math::ifma::g2_decode_be8(p, math::kG2UncompressedBytes, out, sizeof(G2Affine)) != 0xffu) return false;
  for (int k = 0; k < 8; ++k) out[k].infinity = false;
  return true;
}

template <class A, class Decode>
std::optional<std::string> slow_point(const std::uint8_t* src, std::size_t bytes, A& out, math::SubgroupCheck sub,
                                      bool allow_identity, Decode decode) {
  auto r = decode(std::span<const std::uint8_t>(src, bytes), sub);
  if (!r) return r.error();
  if (r->is_identity() && !allow_identity) return std::string("point at infinity (not allowed here)");
  out = *r;
  return std::nullopt;
}

std::optional<std::string> slow_g1(const std::uint8_t* src, G1Affine& out, math::SubgroupCheck sub, bool allow_id) {
  return slow_point(
      src, math::kG1UncompressedBytes, out, sub, allow_id,
      [](std::span<const std::uint8_t> s, math::SubgroupCheck c) { return math::g1_from_uncompressed(s, c); });
}
std::optional<std::string> slow_g2(const std::uint8_t* src, G2Affine& out, math::SubgroupCheck sub, bool allow_id) {
  return slow_point(
      src, math::kG2UncompressedBytes, out, sub, allow_id,
      [](std::span<const std::uint8_t> s, math::SubgroupCheck c) { return math::g2_from_uncompressed(s, c); });
}

// Decodes [begin, end) of the range; stops early when a lower-indexed failure is already known.
// Pair: nullptr_t for none, else a callable (p, q, out_p, out_q) -> bool for two consecutive points.
// Batch8: nullptr_t for none, else a callable (p, out) -> bool for eight consecutive points, tried
// first (it is set only when the CPU has the vector unit it needs).
template <class A, class Fast, class Slow, class Pair = std::nullptr_t, class Batch8 = std::nullptr_t>
std::optional<BadPoint> decode_range(const std::uint8_t* src, std::size_t stride, std::size_t begin, std::size_t end,
                                     A* out, const PointDecodeOptions& opt, std::atomic<std::size_t>& first_bad,
                                     Fast fast, Slow slow, Pair pair = nullptr, Batch8 batch8 = nullptr) {
  const bool check_sub = opt.subgroup == math::SubgroupCheck::kCheck;
  for (std::size_t i = begin; i < end; ++i) {
    if (((i - begin) & 1023) < 8 && first_bad.load(std::memory_order_relaxed) < i) return std::nullopt;
    const std::uint8_t* p = src + i * stride;
    if constexpr (!std::is_same_v<Batch8, std::nullptr_t>) {
      if (!check_sub && i + 8 <= end && batch8(p, out + i)) {
        i += 7;
        continue;
      }
    }
    if constexpr (!std::is_same_v<Pair, std::nullptr_t>) {
      if (!check_sub && i + 1 < end && pair(p, p + stride, out[i], out[i + 1])) {
        ++i;
        continue;
      }
    }
    if (fast(p, out[i])) {
      if (check_sub && !math::in_prime_subgroup(out[i])) {
        return BadPoint{i, std::string(stride == math::kG1UncompressedBytes ? "G1" : "G2") +
                               " point is not in the prime-order subgroup"};
      }
      continue;
    }
    if (auto why = slow(p, out[i], opt.subgroup, opt.allow_identity)) return BadPoint{i, *why};
  }
  return std::nullopt;
}

template <class A, class Fast, class Slow, class Pair = std::nullptr_t, class Batch8 = std::nullptr_t>
std::optional<BadPoint> decode_parallel(const std::uint8_t* src, std::size_t stride, std::size_t n, A* out,
                                        const PointDecodeOptions& opt, Fast fast, Slow slow, Pair pair = nullptr,
                                        Batch8 batch8 = nullptr) {
  // Per-point cost: ~5 field multiplications (G1) without the subgroup check, ~100x that with it.
  const std::size_t grain = opt.subgroup == math::SubgroupCheck::kCheck ? 16 : 4096;
  std::size_t chunks = std::max<std::size_t>(1, std::min(opt.threads, (n + grain - 1) / grain));
  std::vector<std::optional<BadPoint>> bad(chunks);
  std::atomic<std::size_t> first_bad{std::numeric_limits<std::size_t>::max()};
  parallel_chunks(n, chunks, [&](std::size_t b, std::size_t e, std::size_t c) {
    bad[c] = decode_range(src, stride, b, e, out, opt, first_bad, fast, slow, pair, batch8);
    if (bad[c]) {
      std::size_t cur = first_bad.load();
      while (bad[c]->index < cur && !first_bad.compare_exchange_weak(cur, bad[c]->index)) {}
    }
  });
  std::optional<BadPoint> best;
  for (auto& b : bad) {
    if (b && (!best || b->index < best->index)) best = std::move(b);
  }
  return best;
}

}  // namespace

std::optional<BadPoint> decode_g1_points(const std::uint8_t* src, std::size_t n, G1Affine* out,
                                         const PointDecodeOptions& opt) {
  const Fp b = math::G1Curve::b();
  auto fast = [&b](const std::uint8_t* p, G1Affine& o) { return fast_g1(p, b, o); };
  auto pair = [&b](const std::uint8_t* p, const std::uint8_t* q, G1Affine& op, G1Affine& oq) {
    return fast_g1_pair(p, q, b, op, oq);
  };
  if (math::ifma::available()) {
    return decode_parallel(src, math::kG1UncompressedBytes, n, out, opt, fast, slow_g1, pair, fast_g1_batch8);
  }
  return decode_parallel(src, math::kG1UncompressedBytes, n, out, opt, fast, slow_g1, pair);
}

std::optional<BadPoint> decode_g2_points(const std::uint8_t* src, std::size_t n, G2Affine* out,
                                         const PointDecodeOptions& opt) {
  const Fp2 b = math::G2Curve::b();
  auto fast = [&b](const std::uint8_t* p, G2Affine& o) { return fast_g2(p, b, o); };
  if (math::ifma::available()) {
    return decode_parallel(src, math::kG2UncompressedBytes, n, out, opt, fast, slow_g2, nullptr, fast_g2_batch8);
  }
  return decode_parallel(src, math::kG2UncompressedBytes, n, out, opt, fast, slow_g2);
}

std::optional<std::string> decode_g1_point(const std::uint8_t* src, G1Affine& out, math::SubgroupCheck sub,
                                           bool allow_identity) {
  return slow_g1(src, out, sub, allow_identity);
}

std::optional<std::string> decode_g2_point(const std::uint8_t* src, G2Affine& out, math::SubgroupCheck sub,
                                           bool allow_identity) {
  return slow_g2(src, out, sub, allow_identity);
}

}  // namespace cuzk::formats::bellperson::detail
