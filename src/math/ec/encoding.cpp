#include "math/ec/encoding.hpp"

#include <algorithm>

namespace cuzk::math {
namespace {

constexpr std::uint8_t kCompressedFlag = 0x80;
constexpr std::uint8_t kInfinityFlag = 0x40;
constexpr std::uint8_t kSignFlag = 0x20;
constexpr std::uint8_t kFlagMask = 0xe0;
constexpr std::size_t kFpBytes = 48;

void put_fp(std::uint8_t* out, const Fp& v) { v.to_bytes_be(std::span<std::uint8_t>(out, kFpBytes)); }

// Reads a big-endian Fp, with the flag bits already cleared by the caller when it is the first one.
Result<Fp> get_fp(const std::uint8_t* in, const char* what) {
  auto v = Fp::from_bytes_be(std::span<const std::uint8_t>(in, kFpBytes));
  if (!v) return Error{std::string(what) + " is not a canonical field element (>= p)"};
  return *v;
}

Result<Fp2> get_fp2(const std::uint8_t* in, const char* what) {  // c1 first
  auto c1 = get_fp(in, what);
  if (!c1) return Error{c1.error()};
  auto c0 = get_fp(in + kFpBytes, what);
  if (!c0) return Error{c0.error()};
  return Fp2{*c0, *c1};
}

void put_fp2(std::uint8_t* out, const Fp2& v) {
  put_fp(out, v.c1);
  put_fp(out + kFpBytes, v.c0);
}

// Checks flag and padding rules shared by all four decoders. Returns the flags; `body` gets the bytes
// with the flag bits cleared.
template <std::size_t N>
Result<std::uint8_t> split_flags(std::span<const std::uint8_t> in, bool compressed, const char* group,
                                 std::array<std::uint8_t, N>& body) {
  if (in.size() != N) {
    return Error{std::string(group) + " point: expected " + std::to_string(N) + " bytes, got " +
                 std::to_string(in.size())};
  }
  std::copy(in.begin(), in.end(), body.begin());
  std::uint8_t flags = body[0] & kFlagMask;
  body[0] &= std::uint8_t(~kFlagMask);
  if (bool(flags & kCompressedFlag) != compressed) {
    return Error{std::string(group) + " point: compression flag is " + ((flags & kCompressedFlag) ? "set" : "clear") +
                 " for a" + (compressed ? " compressed" : "n uncompressed") + " encoding"};
  }
  if (flags & kInfinityFlag) {
    bool rest_zero = std::all_of(body.begin(), body.end(), [](std::uint8_t b) { return b == 0; });
    if (!rest_zero || (flags & kSignFlag)) {
      return Error{std::string(group) + " point: infinity flag set but other bits are not zero"};
    }
  } else if (!compressed && (flags & kSignFlag)) {
    return Error{std::string(group) + " point: sign flag set in an uncompressed encoding"};
  }
  return flags;
}

template <class C>
Result<Affine<C>> finish_point(const Affine<C>& p, SubgroupCheck check, const char* group) {
  if (!p.is_on_curve()) return Error{std::string(group) + " point is not on the curve"};
  if (check == SubgroupCheck::kCheck && !in_prime_subgroup(p)) {
    return Error{std::string(group) + " point is not in the prime-order subgroup"};
  }
  return p;
}

}  // namespace

std::array<std::uint8_t, kG1CompressedBytes> g1_to_compressed(const G1Affine& p) {
  std::array<std::uint8_t, kG1CompressedBytes> out{};
  if (p.infinity) {
    out[0] = kCompressedFlag | kInfinityFlag;
    return out;
  }
  put_fp(out.data(), p.x);
  out[0] |= kCompressedFlag | (p.y.is_lexicographically_largest() ? kSignFlag : 0);
  return out;
}

std::array<std::uint8_t, kG1UncompressedBytes> g1_to_uncompressed(const G1Affine& p) {
  std::array<std::uint8_t, kG1UncompressedBytes> out{};
  if (p.infinity) {
    out[0] = kInfinityFlag;
    return out;
  }
  put_fp(out.data(), p.x);
  put_fp(out.data() + kFpBytes, p.y);
  return out;
}

std::array<std::uint8_t, kG2CompressedBytes> g2_to_compressed(const G2Affine& p) {
  std::array<std::uint8_t, kG2CompressedBytes> out{};
  if (p.infinity) {
    out[0] = kCompressedFlag | kInfinityFlag;
    return out;
  }
  put_fp2(out.data(), p.x);
  out[0] |= kCompressedFlag | (p.y.is_lexicographically_largest() ? kSignFlag : 0);
  return out;
}

std::array<std::uint8_t, kG2UncompressedBytes> g2_to_uncompressed(const G2Affine& p) {
  std::array<std::uint8_t, kG2UncompressedBytes> out{};
  if (p.infinity) {
    out[0] = kInfinityFlag;
    return out;
  }
  put_fp2(out.data(), p.x);
  put_fp2(out.data() + 2 * kFpBytes, p.y);
  return out;
}

Result<G1Affine> g1_from_compressed(std::span<const std::uint8_t> in, SubgroupCheck check) {
  std::array<std::uint8_t, kG1CompressedBytes> body;
  auto flags = split_flags(in, true, "G1", body);
  if (!flags) return Error{flags.error()};
  if (*flags & kInfinityFlag) return G1Affine::identity();
  auto x = get_fp(body.data(), "G1 x");
  if (!x) return Error{x.error()};
  auto y = (x->square() * *x + G1Curve::b()).sqrt();
  if (!y) return Error{"G1 point is not on the curve (x^3 + 4 has no square root)"};
  if (y->is_lexicographically_largest() != bool(*flags & kSignFlag)) *y = -*y;
  return finish_point(G1Affine::from_xy(*x, *y), check, "G1");
}

Result<G1Affine> g1_from_uncompressed(std::span<const std::uint8_t> in, SubgroupCheck check) {
  std::array<std::uint8_t, kG1UncompressedBytes> body;
  auto flags = split_flags(in, false, "G1", body);
  if (!flags) return Error{flags.error()};
  if (*flags & kInfinityFlag) return G1Affine::identity();
  auto x = get_fp(body.data(), "G1 x");
  if (!x) return Error{x.error()};
  auto y = get_fp(body.data() + kFpBytes, "G1 y");
  if (!y) return Error{y.error()};
  return finish_point(G1Affine::from_xy(*x, *y), check, "G1");
}

Result<G2Affine> g2_from_compressed(std::span<const std::uint8_t> in, SubgroupCheck check) {
  std::array<std::uint8_t, kG2CompressedBytes> body;
  auto flags = split_flags(in, true, "G2", body);
  if (!flags) return Error{flags.error()};
  if (*flags & kInfinityFlag) return G2Affine::identity();
  auto x = get_fp2(body.data(), "G2 x");
  if (!x) return Error{x.error()};
  auto y = (x->square() * *x + G2Curve::b()).sqrt();
  if (!y) return Error{"G2 point is not on the curve (x^3 + b has no square root)"};
  if (y->is_lexicographically_largest() != bool(*flags & kSignFlag)) *y = -*y;
  return finish_point(G2Affine::from_xy(*x, *y), check, "G2");
}

Result<G2Affine> g2_from_uncompressed(std::span<const std::uint8_t> in, SubgroupCheck check) {
  std::array<std::uint8_t, kG2UncompressedBytes> body;
  auto flags = split_flags(in, false, "G2", body);
  if (!flags) return Error{flags.error()};
  if (*flags & kInfinityFlag) return G2Affine::identity();
  auto x = get_fp2(body.data(), "G2 x");
  if (!x) return Error{x.error()};
  auto y = get_fp2(body.data() + 2 * kFpBytes, "G2 y");
  if (!y) return Error{y.error()};
  return finish_point(G2Affine::from_xy(*x, *y), check, "G2");
}

}  // namespace cuzk::math
