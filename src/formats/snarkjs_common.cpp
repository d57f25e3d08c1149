#include "formats/snarkjs_common.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "base/huge_vector.hpp"
#include "base/parallel.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/ec/subgroup.hpp"

namespace cuzk::formats {
namespace {

template <std::size_t N>
math::Limbs<N> load_limbs(const std::uint8_t* p) {
  math::Limbs<N> x{};
  for (std::size_t i = 0; i < N; ++i) {
    std::uint64_t v = 0;
    for (int b = 7; b >= 0; --b) v = (v << 8) | p[8 * i + std::size_t(b)];
    x[i] = v;
  }
  return x;
}

template <std::size_t N>
void store_limbs(const math::Limbs<N>& x, std::uint8_t* p) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t b = 0; b < 8; ++b) p[8 * i + b] = std::uint8_t(x[i] >> (8 * b));
  }
}

template <std::size_t N>
bool equals_modulus(std::span<const std::uint8_t> bytes, const math::Limbs<N>& m) {
  if (bytes.size() != 8 * N) return false;
  return load_limbs<N>(bytes.data()) == m;
}

bool decode_fp_mont(const std::uint8_t* p, Fp& out) {
  auto raw = load_limbs<6>(p);
  if (!math::limbs::less_than(raw, Fp::modulus())) return false;
  out = Fp::from_mont_raw(raw);
  return true;
}

bool all_zero(const std::uint8_t* p, std::size_t n) {
  std::uint8_t acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc |= p[i];
  return acc == 0;
}

struct KnownPrime {
  const char* decimal;
  const char* name;
};
constexpr KnownPrime kKnownPrimes[] = {
    {"52435875175126190479447740508185965837690552500527637822603658699938581184513", "bls12381 scalar field r"},
    {"40024095552216673934177898257359041565568828199390078853320581361240316504908378644426876291290156640378942725597"
     "87",
     "bls12381 base field q"},
    {"21888242871839275222246405745257275088548364400416034343698204186575808495617", "bn128 scalar field"},
    {"21888242871839275222246405745257275088696311157297823662689037894645226208583",
     "bn128 base field / grumpkin scalar field"},
    {"8444461749428370424248824938781546531375899335154063827935233455917409239041", "bls12377 scalar field"},
    {"18446744069414584321", "goldilocks"},
    {"28948022309329048855892746252171976963363056481941560715954676764349967630337", "pallas"},
    {"28948022309329048855892746252171976963363056481941647379679742748393362948097", "vesta"},
    {"115792089210356248762697446949407573530086143415290314195533631308867097853951", "secq256r1"},
};

}  // namespace

std::string le_bytes_to_decimal(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint32_t> words((bytes.size() + 3) / 4, 0);
  for (std::size_t i = 0; i < bytes.size(); ++i) words[i / 4] |= std::uint32_t(bytes[i]) << (8 * (i % 4));
  std::string out;
  auto nonzero = [&] { return std::any_of(words.begin(), words.end(), [](std::uint32_t w) { return w != 0; }); };
  while (nonzero()) {
    std::uint64_t rem = 0;
    for (std::size_t i = words.size(); i-- > 0;) {
      std::uint64_t cur = (rem << 32) | words[i];
      words[i] = std::uint32_t(cur / 10);
      rem = cur % 10;
    }
    out.push_back(char('0' + rem));
  }
  if (out.empty()) out.push_back('0');
  std::reverse(out.begin(), out.end());
  return out;
}

bool is_bls12_381_r(std::span<const std::uint8_t> bytes) { return equals_modulus(bytes, Fr::modulus()); }
bool is_bls12_381_q(std::span<const std::uint8_t> bytes) { return equals_modulus(bytes, Fp::modulus()); }

std::string describe_prime(std::span<const std::uint8_t> bytes) {
  std::string dec = le_bytes_to_decimal(bytes);
  for (const auto& k : kKnownPrimes) {
    if (dec == k.decimal) return dec + " (" + k.name + ")";
  }
  return dec + " (not a known circom prime)";
}

bool decode_fr_plain(const std::uint8_t* p, Fr& out) {
  auto x = load_limbs<4>(p);
  auto v = Fr::from_canonical(x);
  if (!v) return false;
  out = *v;
  return true;
}

void encode_fr_plain(const Fr& v, std::uint8_t* p) { store_limbs(v.to_canonical(), p); }

bool decode_fr_zkey_coef(const std::uint8_t* p, Fr& out) {
  // raw = coef * R^2 mod r. As a Montgomery representation it denotes coef * R; one more Montgomery
  // multiplication by the representation 1 (the value R^-1) leaves coef.
  auto raw = load_limbs<4>(p);
  if (!math::limbs::less_than(raw, Fr::modulus())) return false;
  out = Fr::from_mont_raw(raw) * Fr::from_mont_raw(math::Limbs<4>{1, 0, 0, 0});
  return true;
}

void encode_fr_zkey_coef(const Fr& v, std::uint8_t* p) {
  // The element coef * R has the Montgomery representation coef * R^2; R as an element is from_mont_raw(R^2).
  Fr t = v * Fr::from_mont_raw(math::FrParams::kR2);
  store_limbs(t.mont_raw(), p);
}

const char* point_error_text(PointError e) {
  switch (e) {
    case PointError::kNone: return "ok";
    case PointError::kCoordinateTooLarge: return "has a coordinate >= q";
    case PointError::kNotOnCurve: return "is not on the curve";
    case PointError::kNotInSubgroup: return "is not in the prime-order subgroup";
  }
  return "is invalid";
}

bool g1_in_subgroup(const G1Affine& p) { return math::g1_in_subgroup_fast(p); }
bool g2_in_subgroup(const G2Affine& p) { return math::g2_in_subgroup_fast(p); }

PointError decode_g1_mont(const std::uint8_t* p, G1Affine& out, bool subgroup) {
  if (all_zero(p, kG1Bytes)) {
    out = G1Affine::identity();
    return PointError::kNone;
  }
  Fp x, y;
  if (!decode_fp_mont(p, x) || !decode_fp_mont(p + kFpBytes, y)) return PointError::kCoordinateTooLarge;
  out = G1Affine::from_xy(x, y);
  if (!out.is_on_curve()) return PointError::kNotOnCurve;
  if (subgroup && !g1_in_subgroup(out)) return PointError::kNotInSubgroup;
  return PointError::kNone;
}

PointError decode_g2_mont(const std::uint8_t* p, G2Affine& out, bool subgroup) {
  if (all_zero(p, kG2Bytes)) {
    out = G2Affine::identity();
    return PointError::kNone;
  }
  Fp x0, x1, y0, y1;
  if (!decode_fp_mont(p, x0) || !decode_fp_mont(p + kFpBytes, x1) || !decode_fp_mont(p + 2 * kFpBytes, y0) ||
      !decode_fp_mont(p + 3 * kFpBytes, y1)) {
    return PointError::kCoordinateTooLarge;
  }
  out = G2Affine::from_xy(math::Fp2{x0, x1}, math::Fp2{y0, y1});
  if (!out.is_on_curve()) return PointError::kNotOnCurve;
  if (subgroup && !g2_in_subgroup(out)) return PointError::kNotInSubgroup;
  return PointError::kNone;
}

void encode_g1_mont(const G1Affine& a, std::uint8_t* p) {
  if (a.infinity) {
    std::memset(p, 0, kG1Bytes);
    return;
  }
  store_limbs(a.x.mont_raw(), p);
  store_limbs(a.y.mont_raw(), p + kFpBytes);
}

void encode_g2_mont(const G2Affine& a, std::uint8_t* p) {
  if (a.infinity) {
    std::memset(p, 0, kG2Bytes);
    return;
  }
  store_limbs(a.x.c0.mont_raw(), p);
  store_limbs(a.x.c1.mont_raw(), p + kFpBytes);
  store_limbs(a.y.c0.mont_raw(), p + 2 * kFpBytes);
  store_limbs(a.y.c1.mont_raw(), p + 3 * kFpBytes);
}

namespace {

// Eight points at once through the AVX-512 IFMA decoder (math/ff/fp_ifma.hpp), written straight
// into the output points; false when any of them is the identity, out of range or off the curve, so
// the caller decodes them one by one (which also names the error).
static_assert(sizeof(Fp) == kFpBytes && offsetof(G1Affine, y) == kFpBytes && offsetof(G2Affine, y) == 2 * kFpBytes,
              "the IFMA decoder writes point coordinates as raw words");

bool g1_mont_batch8(const std::uint8_t* const* src, G1Affine* out) {
  if (math::ifma::g1_decode_mont8(src, out, sizeof(G1Affine)) != 0xffu) return false;
  for (int k = 0; k < 8; ++k) out[k].infinity = false;
  return true;
}

bool g2_mont_batch8(const std::uint8_t* const* src, G2Affine* out) {
  if (math::ifma::g2_decode_mont8(src, out, sizeof(G2Affine)) != 0xffu) return false;
  for (int k = 0; k < 8; ++k) out[k].infinity = false;
  return true;
}

template <class Point>
bool mont_batch8(const std::uint8_t* const* src, Point* out) {
  if constexpr (std::is_same_v<Point, G1Affine>) return g1_mont_batch8(src, out);
  else return g2_mont_batch8(src, out);
}

// Decodes the points at idx[k] (or at k when idx is null) into out[k], k < count. Without subgroup
// checks, runs of eight go through the IFMA batch when the CPU has it.
template <class Point, class Alloc, class Decode>
PointBatchError decode_batch(std::span<const std::uint8_t> bytes, std::size_t count, std::size_t stride,
                             std::vector<Point, Alloc>& out, bool subgroup, Decode decode,
                             const std::uint32_t* idx = nullptr) {
  const bool batch8 = !subgroup && math::ifma::available();
  allocate_huge(out, count);
  std::atomic<std::size_t> first_bad{count};
  std::vector<PointError> errs;  // only the first failure per chunk matters
  std::size_t grain = subgroup ? 64 : 2048;
  std::size_t chunks = std::min(default_threads(), (count + grain - 1) / grain);
  errs.assign(std::max<std::size_t>(chunks, 1), PointError::kNone);
  std::vector<std::size_t> bad_at(errs.size(), count);
  parallel_chunks(count, chunks, [&](std::size_t b, std::size_t e, std::size_t c) {
    for (std::size_t i = b; i < e && i < first_bad.load(std::memory_order_relaxed); ++i) {
      if (batch8 && i + 8 <= e) {
        const std::uint8_t* src[8];
        for (std::size_t k = 0; k < 8; ++k) src[k] = bytes.data() + (idx ? idx[i + k] : i + k) * stride;
        if (mont_batch8(src, out.data() + i)) {
          i += 7;
          continue;
        }
      }
      PointError err = decode(bytes.data() + (idx ? idx[i] : i) * stride, out[i], subgroup);
      if (err != PointError::kNone) {
        errs[c] = err;
        bad_at[c] = i;
        std::size_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {}
        return;
      }
    }
  });
  PointBatchError res;
  res.index = count;
  for (std::size_t c = 0; c < errs.size(); ++c) {
    if (errs[c] != PointError::kNone && bad_at[c] < res.index) {
      res.index = bad_at[c];
      res.error = errs[c];
    }
  }
  if (idx && res.error != PointError::kNone) res.index = idx[res.index];
  return res;
}

template <class Point, class Alloc, class Decode>
SelectedBatchError decode_selected(std::span<const std::uint8_t> bytes, std::size_t count, std::size_t stride,
                                   const std::vector<bool>& keep, std::vector<Point, Alloc>& out, bool subgroup,
                                   Decode decode) {
  std::vector<std::uint32_t> idx;
  SelectedBatchError res;
  res.not_identity = count;
  std::size_t bad_skipped = count;  // lowest skipped point that fails to decode
  PointError bad_skipped_error = PointError::kNone;
  for (std::size_t i = 0; i < count; ++i) {
    if (i < keep.size() && keep[i]) {
      idx.push_back(std::uint32_t(i));
    } else if (!all_zero(bytes.data() + i * stride, stride)) {  // rare: a malformed key
      Point p;
      PointError e = decode(bytes.data() + i * stride, p, subgroup);
      if (e != PointError::kNone) {
        if (bad_skipped == count) {
          bad_skipped = i;
          bad_skipped_error = e;
        }
      } else if (res.not_identity == count) {
        res.not_identity = i;
      }
    }
  }
  res.decode = decode_batch(bytes, idx.size(), stride, out, subgroup, decode, idx.data());
  if (bad_skipped < count && (res.decode.error == PointError::kNone || bad_skipped < res.decode.index)) {
    res.decode.index = bad_skipped;
    res.decode.error = bad_skipped_error;
  }
  return res;
}

}  // namespace

SelectedBatchError decode_g1_selected(std::span<const std::uint8_t> bytes, std::size_t count,
                                      const std::vector<bool>& keep, HugeVector<G1Affine>& out, bool subgroup) {
  return decode_selected(bytes, count, kG1Bytes, keep, out, subgroup, decode_g1_mont);
}

SelectedBatchError decode_g2_selected(std::span<const std::uint8_t> bytes, std::size_t count,
                                      const std::vector<bool>& keep, HugeVector<G2Affine>& out, bool subgroup) {
  return decode_selected(bytes, count, kG2Bytes, keep, out, subgroup, decode_g2_mont);
}

PointBatchError decode_g1_batch(std::span<const std::uint8_t> bytes, std::size_t count, std::vector<G1Affine>& out,
                                bool subgroup) {
  return decode_batch(bytes, count, kG1Bytes, out, subgroup, decode_g1_mont);
}

PointBatchError decode_g1_batch(std::span<const std::uint8_t> bytes, std::size_t count, HugeVector<G1Affine>& out,
                                bool subgroup) {
  return decode_batch(bytes, count, kG1Bytes, out, subgroup, decode_g1_mont);
}

PointBatchError decode_g2_batch(std::span<const std::uint8_t> bytes, std::size_t count, std::vector<G2Affine>& out,
                                bool subgroup) {
  return decode_batch(bytes, count, kG2Bytes, out, subgroup, decode_g2_mont);
}

}  // namespace cuzk::formats
