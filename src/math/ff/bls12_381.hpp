// The two prime fields of BLS12-381: Fp (base field, 381 bits) and Fr (scalar field, 255 bits).
#pragma once

#include "math/ff/mont_field.hpp"

namespace cuzk::math {

struct FpParams {
  static constexpr std::size_t kLimbs = 6;
  static constexpr Limbs<6> kModulus = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                        0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
  static constexpr Limbs<6> kR = {0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                  0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL};
  static constexpr Limbs<6> kR2 = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                                   0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
  static constexpr u64 kInv = 0x89f3fffcfffcfffdULL;  // -p^-1 mod 2^64
};

struct FrParams {
  static constexpr std::size_t kLimbs = 4;
  static constexpr Limbs<4> kModulus = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                        0x73eda753299d7d48ULL};
  static constexpr Limbs<4> kR = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                                  0x1824b159acc5056fULL};
  static constexpr Limbs<4> kR2 = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
                                   0x0748d9d99f59ff11ULL};
  static constexpr u64 kInv = 0xfffffffeffffffffULL;
};

using Fp = MontField<FpParams>;
using Fr = MontField<FrParams>;

// Fr's FFT structure as bellperson/blstrs define it: r - 1 = 2^32 * t, generator 7,
// ROOT_OF_UNITY = 7^t (canonical hex below) has order exactly 2^32.
inline constexpr std::size_t kFrTwoAdicity = 32;
inline constexpr u64 kFrMultiplicativeGenerator = 7;
inline const Fr& fr_root_of_unity() {
  static const Fr w = *Fr::from_hex("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
  return w;
}

}  // namespace cuzk::math
