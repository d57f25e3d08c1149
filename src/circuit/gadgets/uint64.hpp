// UInt64 (storage-proofs-core gadgets/uint64.rs): 64 Booleans LSB first with the value; allocation
// is 64 AllocatedBits, pack_into_input one new input (multipack) — 65 rows for a PoRep challenge.
#pragma once

#include <array>
#include <span>

#include "circuit/gadgets/multipack.hpp"

namespace cuzk::circuit {

struct UInt64 {
  std::array<Boolean, 64> bits;  // LSB first
  std::uint64_t value = 0;

  static UInt64 constant(std::uint64_t v) {
    UInt64 r;
    r.value = v;
    for (int i = 0; i < 64; ++i) r.bits[std::size_t(i)] = Boolean::constant((v >> i) & 1);
    return r;
  }
  static UInt64 from_bits_be(std::span<const Boolean> be) {
    UInt64 r;
    for (std::size_t i = 0; i < 64; ++i) {
      r.bits[i] = be[63 - i];
      r.value |= std::uint64_t(be[63 - i].value()) << i;
    }
    return r;
  }
  std::vector<Boolean> to_bits_be() const { return {bits.rbegin(), bits.rend()}; }
  std::vector<Boolean> to_bits_le() const { return {bits.begin(), bits.end()}; }
};

template <class CS>
UInt64 uint64_alloc(CS& cs, std::uint64_t value) {
  UInt64 r;
  r.value = value;
  for (int i = 0; i < 64; ++i) {
    auto g = cs.ns(Name("allocated bit", i));
    r.bits[std::size_t(i)] = Boolean::is(alloc_bit(cs, (value >> i) & 1));
  }
  return r;
}

template <class CS>
void uint64_pack_into_input(CS& cs, const UInt64& x) {
  pack_into_inputs(cs, std::span<const Boolean>(x.bits.data(), 64));
}

}  // namespace cuzk::circuit
