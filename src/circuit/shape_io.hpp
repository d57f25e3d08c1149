// On-disk form of a recorded R1CS shape, so a circuit family (e.g. "PoRep 32 GiB partition") is
// recorded once and loaded afterwards.
//
// Layout (all integers little-endian):
//   "CUZKR1CS" | u32 version (=1) | u32 flags (bit 0: has C) | u32 num_inputs | u32 num_aux
//   | u64 rows | u64 num_coeffs | num_coeffs × 32-byte canonical LE Fr (the distinct coefficients)
//   | for A, B, C: u64 nnz | rows × u32 row length | nnz × u32 column | nnz × u32 coefficient index
//   | u64 checksum of everything before it
// Circuits reuse few distinct coefficients (±1, powers of two, Poseidon constants), so a dictionary
// keeps entries at 8 bytes instead of 36. Loading checks the magic, version, every size, every index
// and the checksum, and names what is wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::circuit {

inline constexpr std::uint32_t kShapeFormatVersion = 1;

std::vector<std::uint8_t> serialize_shape(const groth16::R1csShape& shape);
Result<groth16::R1csShape> deserialize_shape(std::span<const std::uint8_t> bytes);

// Writes to path + ".tmp" and renames, so a crash never leaves a half-written file under `path`.
Status save_shape(const groth16::R1csShape& shape, const std::string& path);
Result<groth16::R1csShape> load_shape(const std::string& path);

// 64-bit checksum used by the format (exposed for tests).
std::uint64_t shape_checksum(std::span<const std::uint8_t> bytes);

}  // namespace cuzk::circuit
