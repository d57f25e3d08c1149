// On-disk form of a recorded R1CS shape, so a circuit family (e.g. "PoRep 32 GiB partition") is
// recorded once and loaded afterwards.
//
// Layout (all integers little-endian):
//   "CUZKR1CS" | u32 version (=1) | u32 flags (bit 0: has C) | u32 num_inputs | u32 num_aux
//   | u64 rows | u64 num_coeffs | num_coeffs × 32-byte canonical LE Fr (the distinct coefficients)
//   | for A, B, C: u64 nnz | rows × u32 row length | nnz × u32 column | nnz × u32 coefficient index
//   | u64 checksum of everything before it
// Circuits reuse few distinct coefficients (±1, powers of two, Poseidon constants), so a dictionary
// keeps entries at 8 bytes instead of 36 — the same coding CsrMatrix holds in memory, so saving
// streams the arrays out (only coefficient ids are renumbered into the file-wide table, which is in
// order of first use over A, B, C; no duplicates) and loading maps the file and copies them in.
// Loading checks the magic, version, every size, every index, duplicate coefficients and the
// checksum, and names what is wrong.
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

// The same checksum computed over consecutive pieces (save_shape streams the file through it);
// total_bytes is the length of all pieces together.
class ShapeChecksum {
 public:
  explicit ShapeChecksum(std::uint64_t total_bytes);
  void update(std::span<const std::uint8_t> bytes);
  std::uint64_t finish() const;

 private:
  static constexpr std::uint64_t kK1 = 0x87c37b91114253d5ULL, kK2 = 0x4cf5ad432745937fULL;
  void mix(std::uint64_t word);
  std::uint64_t h_;
  std::uint64_t pending_ = 0;  // bytes of a word not yet complete, little-endian
  unsigned pending_len_ = 0;
};

}  // namespace cuzk::circuit
