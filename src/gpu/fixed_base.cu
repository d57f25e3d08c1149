// groth16::FixedBaseMultiplier on the GPU: FixedBase tables of the standard generators, built on first
// use of each group (a key of a small circuit never pays for the G2 table it does not need twice).
#include <memory>
#include <string>

#include "gpu/fixed_base.hpp"
#include "gpu/gpu.hpp"

namespace cuzk::gpu {
namespace {

class CudaFixedBase final : public groth16::FixedBaseMultiplier {
 public:
  explicit CudaFixedBase(const FixedBaseConfig& cfg) : cfg_(cfg) {}
  std::string name() const override {
    return "cuda (" + device_name() + ", " + std::to_string(cfg_.window_bits ? cfg_.window_bits : 12) + "-bit windows)";
  }
  void mul_g1(std::span<const math::Fr> ks, std::span<math::G1Affine> out) override { g1().mul(ks, out); }
  void mul_g2(std::span<const math::Fr> ks, std::span<math::G2Affine> out) override { g2().mul(ks, out); }
  void mul_g1_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out) override { g1().mul_uncompressed(ks, out); }
  void mul_g2_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out) override { g2().mul_uncompressed(ks, out); }

 private:
  FixedBaseG1& g1() {
    if (!g1_) g1_ = std::make_unique<FixedBaseG1>(math::g1_generator(), cfg_);
    return *g1_;
  }
  FixedBaseG2& g2() {
    if (!g2_) g2_ = std::make_unique<FixedBaseG2>(math::g2_generator(), cfg_);
    return *g2_;
  }

  FixedBaseConfig cfg_;
  std::unique_ptr<FixedBaseG1> g1_;
  std::unique_ptr<FixedBaseG2> g2_;
};

}  // namespace

std::unique_ptr<groth16::FixedBaseMultiplier> make_cuda_fixed_base_multiplier(const FixedBaseConfig& cfg) {
  return std::make_unique<CudaFixedBase>(cfg);
}

}  // namespace cuzk::gpu
