#include "groth16/fixed_base.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "base/parallel.hpp"
#include "math/ec/batch_affine.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
void encode_all(std::span<const math::Affine<C>> pts, std::uint8_t* out, std::size_t threads) {
  constexpr std::size_t kBytes = std::is_same_v<C, math::G1Curve> ? 96 : 192;
  std::size_t chunks = std::max<std::size_t>(1, std::min(threads, pts.size() / 1024));
  parallel_chunks(pts.size(), chunks, [&](std::size_t lo, std::size_t hi, std::size_t) {
    for (std::size_t i = lo; i < hi; ++i) {
      if constexpr (std::is_same_v<C, math::G1Curve>) {
        auto b = math::g1_to_uncompressed(pts[i]);
        std::memcpy(out + i * kBytes, b.data(), kBytes);
      } else {
        auto b = math::g2_to_uncompressed(pts[i]);
        std::memcpy(out + i * kBytes, b.data(), kBytes);
      }
    }
  });
}

// k*G for many k with one table of 8-bit windows: table[w][d] = d * 2^(8w) * G. Each product is then
// 32 mixed additions instead of ~255 doublings and additions.
template <class C>
class FixedBaseTable {
 public:
  static constexpr std::size_t kWindowBits = 8, kWindows = 32, kDigits = 256;

  explicit FixedBaseTable(const math::Affine<C>& g) {
    std::vector<math::Jacobian<C>> jac(kWindows * kDigits);
    math::Jacobian<C> base = math::Jacobian<C>::from_affine(g);
    for (std::size_t w = 0; w < kWindows; ++w) {
      jac[w * kDigits] = math::Jacobian<C>::identity();
      for (std::size_t d = 1; d < kDigits; ++d) jac[w * kDigits + d] = jac[w * kDigits + d - 1] + base;
      for (std::size_t i = 0; i < kWindowBits; ++i) base = base.dbl();
    }
    table_ = math::batch_to_affine<C>(jac);
  }

  math::Jacobian<C> mul(const math::Fr& k) const {
    auto limbs = k.to_canonical();
    math::Jacobian<C> acc;
    for (std::size_t w = 0; w < kWindows; ++w) {
      unsigned d = unsigned(limbs[w / 8] >> (8 * (w % 8))) & 0xff;
      if (d) acc = acc.add_affine(table_[w * kDigits + d]);
    }
    return acc;
  }

  // Products in slices of 2^16 so the Jacobian temporaries stay small whatever ks.size() is.
  void mul_all(std::span<const math::Fr> ks, std::span<math::Affine<C>> out, std::size_t threads) const {
    if (out.size() != ks.size()) throw std::invalid_argument("fixed-base multiplication: output size mismatch");
    constexpr std::size_t kSlice = std::size_t(1) << 16;
    std::vector<math::Jacobian<C>> jac(std::min(ks.size(), kSlice));
    for (std::size_t b = 0; b < ks.size(); b += kSlice) {
      std::size_t n = std::min(kSlice, ks.size() - b);
      std::size_t chunks = std::max<std::size_t>(1, std::min(threads, n / 64));
      parallel_chunks(n, chunks, [&](std::size_t lo, std::size_t hi, std::size_t) {
        for (std::size_t i = lo; i < hi; ++i) jac[i] = mul(ks[b + i]);
      });
      math::batch_to_affine<C>(std::span<const math::Jacobian<C>>(jac.data(), n), out.subspan(b, n), threads);
    }
  }

 private:
  std::vector<math::Affine<C>> table_;
};

class CpuFixedBase final : public FixedBaseMultiplier {
 public:
  explicit CpuFixedBase(std::size_t threads)
      : threads_(threads ? threads : default_threads()), g1_(math::g1_generator()), g2_(math::g2_generator()) {}
  std::string name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }
  void mul_g1(std::span<const math::Fr> ks, std::span<math::G1Affine> out) override { g1_.mul_all(ks, out, threads_); }
  void mul_g2(std::span<const math::Fr> ks, std::span<math::G2Affine> out) override { g2_.mul_all(ks, out, threads_); }

 protected:
  std::size_t encode_threads() const override { return threads_; }

 private:
  std::size_t threads_;
  FixedBaseTable<math::G1Curve> g1_;
  FixedBaseTable<math::G2Curve> g2_;
};

}  // namespace

std::size_t FixedBaseMultiplier::encode_threads() const { return default_threads(); }

void FixedBaseMultiplier::mul_g1_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out) {
  std::vector<math::G1Affine> pts(ks.size());
  mul_g1(ks, pts);
  encode_all<math::G1Curve>(pts, out, encode_threads());
}

void FixedBaseMultiplier::mul_g2_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out) {
  std::vector<math::G2Affine> pts(ks.size());
  mul_g2(ks, pts);
  encode_all<math::G2Curve>(pts, out, encode_threads());
}

std::unique_ptr<FixedBaseMultiplier> make_cpu_fixed_base_multiplier(std::size_t threads) {
  return std::make_unique<CpuFixedBase>(threads);
}

}  // namespace cuzk::groth16
