// Device-side generators of test and benchmark inputs, so that large inputs need not come from the
// CPU: the synthetic keys and shapes of the benchmarks (GpuKey::synthetic, GpuShape::synthetic) and
// the device checks. Not used by a proof. Implemented in common.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/ec/bls12_381.hpp"

namespace cuzk::gpu {

// P_i = (i + 1) * G for i < n, written as device affine bases (G1: 96 bytes, G2: 192 bytes).
void gen_bases_sequential(void* d_bases, std::size_t n, void* stream = nullptr);
void gen_g2_bases_sequential(void* d_bases, std::size_t n, void* stream = nullptr);
// P_i = a_i * G, a_i from a device array of Montgomery Fr (a_i = 0 gives the point at infinity).
void gen_bases_from_scalars(void* d_bases, const void* d_scalars, std::size_t n, void* stream = nullptr);
void gen_g2_bases_from_scalars(void* d_bases, const void* d_scalars, std::size_t n, void* stream = nullptr);
// n pseudo-random Fr (each < r, taken as a Montgomery representation), splitmix64 from seed.
void gen_random_scalars(void* d_scalars, std::size_t n, std::uint64_t seed, void* stream = nullptr);
// Download device bases as host points.
void download_bases(math::G1Affine* host, const void* d_bases, std::size_t n);
void download_g2_bases(math::G2Affine* host, const void* d_bases, std::size_t n);

}  // namespace cuzk::gpu
