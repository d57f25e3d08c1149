// snarkjs Groth16 proving keys (.zkey, binfile magic "zkey", version 1) on BLS12-381.
//
//   sec1  u32 protocol (1 = groth16)
//   sec2  u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize,
//         alpha1 G1, beta1 G1, beta2 G2, gamma2 G2, delta1 G1, delta2 G2
//   sec3  IC: nPublic+1 G1            sec4 coefficients: u32 n, n x (u32 matrix 0=A/1=B,
//   sec5  A: nVars G1                       u32 constraint, u32 signal, Fr coef*R^2 mod r)
//   sec6  B1: nVars G1                sec7 B2: nVars G2
//   sec8  C: nVars-nPublic-1 G1 (private variables only)
//   sec9  H: domainSize G1, the odd-indexed Lagrange points of the 2n domain divided by delta
//   sec10 contributions: 64-byte circuit hash, u32 n, n entries (not needed to prove)
// Points are affine with Montgomery little-endian coordinates; all-zero bytes = infinity.
//
// read_zkey produces the prover's in-memory key: queries density-compressed (a variable is dense in
// A or B when it has a non-zero coefficient in that matrix; every input stays in `a`), l = sec8,
// h = sec9 with HBasis::kOddCosetLagrange. The coefficient section becomes an R1csShape with only A
// and B (has_c = false) whose rows are the circuit's constraints followed by the nPublic+1 input
// rows snarkjs appends (A row = {signal s: 1}, B row empty): exactly the layout of an .r1cs shape
// after R1csShape::append_input_rows().
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::formats {

struct ZkeyReadOptions {
  // Prime-order subgroup check on the large vectors (A, B1, B2, C, H). Off by default, as bellperson
  // does for its parameter files; the verifying-key points (header and IC) are always checked, and
  // every point is always checked to be on the curve.
  bool check_subgroup = false;
};

struct ZkeyFile {
  groth16::ProvingKey pk;    // pk.vk holds alpha, beta, gamma, delta and IC
  groth16::R1csShape shape;  // A and B only, input rows included; C holds empty rows
  std::uint32_t n_vars = 0;
  std::uint32_t n_public = 0;  // excluding ONE
  std::uint32_t domain_size = 0;
  std::uint32_t n_constraints = 0;              // circuit rows, without the nPublic+1 appended input rows
  std::uint64_t n_coefficients = 0;             // entries in section 4
  std::array<std::uint8_t, 64> circuit_hash{};  // section 10 (zeros when absent)
  std::uint32_t n_contributions = 0;
};

Result<ZkeyFile> read_zkey(const std::string& path, const ZkeyReadOptions& options = {});
Result<ZkeyFile> parse_zkey(std::span<const std::uint8_t> bytes, const std::string& name,
                            const ZkeyReadOptions& options = {});

struct ZkeyWriteOptions {
  std::array<std::uint8_t, 64> circuit_hash{};  // written into section 10 (with 0 contributions)
};

// Writes sections 1..10 in id order, a file `snarkjs groth16 prove` and `snarkjs zkey export
// verificationkey` accept. The key must use HBasis::kOddCosetLagrange and pass check_consistency();
// `shape` must be the key's circuit with the input rows appended (has_c may be true or false; C is
// not stored) and agree with the key's densities. `snarkjs zkey verify` will not accept the result
// (no contribution history), which proving does not need.
Status write_zkey(const std::string& path, const groth16::ProvingKey& pk, const groth16::R1csShape& shape,
                  const ZkeyWriteOptions& options = {});

}  // namespace cuzk::formats
