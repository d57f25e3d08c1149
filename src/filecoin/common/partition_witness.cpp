#include "filecoin/common/partition_witness.hpp"

#include <string>

namespace cuzk::filecoin {

Status check_partition_witness(const groth16::CompactAssignment& w, const groth16::R1csShape& shape,
                               std::span<const math::Fr> derived_inputs) {
  if (w.num_variables() != shape.num_variables() || w.inputs.size() != shape.num_inputs)
    return Error{"the witness has " + std::to_string(w.num_variables()) + " variables (" +
                 std::to_string(w.inputs.size()) + " inputs), the circuit " + std::to_string(shape.num_variables()) +
                 " (" + std::to_string(shape.num_inputs) + ")"};
  if (auto st = w.check(); !st) return Error{st.error()};
  if (derived_inputs.size() + 1 != shape.num_inputs)
    return Error{std::to_string(derived_inputs.size()) + " derived public inputs, the circuit has " +
                 std::to_string(shape.num_inputs - 1)};
  for (std::size_t j = 0; j < derived_inputs.size(); ++j)
    if (w.inputs[1 + j] != derived_inputs[j])
      return Error{"public input " + std::to_string(j) + " of the witness differs from the derived one"};
  return ok_status();
}

void append_witness(groth16::CompactAssignment& dst, groth16::CompactAssignment&& part) {
  dst.inputs.insert(dst.inputs.end(), part.inputs.begin() + 1, part.inputs.end());
  dst.values.insert(dst.values.end(), part.values.begin(), part.values.end());
  const std::uint64_t off = dst.num_aux & 63;
  const std::uint64_t total = dst.num_aux + part.num_aux;
  if (off == 0) {
    dst.is_binary.insert(dst.is_binary.end(), part.is_binary.begin(), part.is_binary.end());
    dst.bits.insert(dst.bits.end(), part.bits.begin(), part.bits.end());
  } else {
    auto merge = [&](std::vector<std::uint64_t>& d, const std::vector<std::uint64_t>& s) {
      for (std::uint64_t w : s) {
        d.back() |= w << off;
        d.push_back(w >> (64 - off));
      }
    };
    merge(dst.is_binary, part.is_binary);
    merge(dst.bits, part.bits);
  }
  const std::size_t words = std::size_t((total + 63) / 64);
  dst.is_binary.resize(words);
  dst.bits.resize(words);
  dst.num_aux = total;
}

}  // namespace cuzk::filecoin
