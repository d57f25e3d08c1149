// circom's .r1cs files (binfile magic "r1cs", version 1) for BLS12-381.
//
//   sec1 header:      u32 n8, prime (n8 LE), u32 nWires, u32 nPubOut, u32 nPubIn, u32 nPrvIn,
//                     u64 nLabels, u32 nConstraints
//   sec2 constraints: nConstraints x (A, B, C), each LC = u32 nTerms, nTerms x (u32 wire, Fr coef)
//                     coefficients plain little-endian < r; semantics A*B - C = 0
//   sec3 wire->label: nWires x u64 (required: it bounds nWires by the file size; content not used)
//   sec4/5:           custom gates (PLONK only) -> rejected here
//
// Wires: 0 = ONE, then public outputs, public inputs, private inputs, internal signals. So the
// R1csShape has num_inputs = 1 + nPubOut + nPubIn and num_aux = nWires - num_inputs. The returned
// shape does NOT contain the input rows; call append_input_rows() for proving.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::formats {

struct R1csHeader {
  std::uint32_t n_wires = 0;
  std::uint32_t n_pub_out = 0;
  std::uint32_t n_pub_in = 0;
  std::uint32_t n_prv_in = 0;
  std::uint64_t n_labels = 0;
  std::uint32_t n_constraints = 0;

  std::uint32_t n_public() const { return n_pub_out + n_pub_in; }  // excluding ONE
};

struct R1csFile {
  R1csHeader header;
  groth16::R1csShape shape;  // has_c = true, no input rows appended
};

Result<R1csFile> read_r1cs(const std::string& path);
// Parses an in-memory file; `name` prefixes the error messages.
Result<R1csFile> parse_r1cs(std::span<const std::uint8_t> bytes, const std::string& name);

// Writes a .r1cs (sections 1, 2, 3 in id order; label map = identity) that circom/snarkjs tools
// read: the inverse of read_r1cs. `shape` must not contain appended input rows and must have C;
// the header's counts must agree with the shape (n_wires, n_constraints, nPubOut + nPubIn).
Status write_r1cs(const std::string& path, const groth16::R1csShape& shape, const R1csHeader& header);

}  // namespace cuzk::formats
