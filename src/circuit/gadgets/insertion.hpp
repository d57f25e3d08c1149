// storage-proofs-core gadgets/insertion.rs: insert an element into a sequence at a position given
// by little-endian bits, with hand-optimized networks for sizes 2, 4 and 8 (2 / 8 / 22 rows).
#pragma once

#include <cassert>
#include <span>
#include <vector>

#include "circuit/gadgets/num.hpp"

namespace cuzk::circuit {

// c = condition ? a : b, one aux and row (b - a)·condition = b - c.
template <class CS>
AllocatedNum pick(CS& cs, const Boolean& condition, const AllocatedNum& a, const AllocatedNum& b) {
  using LC = typename CS::LC;
  AllocatedNum c;
  {
    auto g = cs.ns("pick result");
    c = alloc_num(cs, condition.value() ? a.value : b.value);
  }
  cs.enforce("pick", LC(b.var) - a.var, condition.template lc<LC>(), LC(b.var) - c.var);
  return c;
}

template <class CS>
AllocatedNum pick_named(CS& cs, Name name, const Boolean& condition, const AllocatedNum& a, const AllocatedNum& b) {
  auto g = cs.ns(name);
  return pick(cs, condition, a, b);
}

template <class CS>
std::vector<AllocatedNum> insert_2(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> elements) {
  assert(bits.size() == 1 && elements.size() == 1);
  return {pick_named(cs, "binary insert 0", bits[0], elements[0], element),
          pick_named(cs, "binary insert 1", bits[0], element, elements[0])};
}

template <class CS>
std::vector<AllocatedNum> insert_4(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> elements) {
  assert(bits.size() == 2 && elements.size() == 3);
  const Boolean &b0 = bits[0], &b1 = bits[1];
  const AllocatedNum &a = element, &b = elements[0], &c = elements[1], &d = elements[2];
  // position p: value when b1 decides, built from the b0-dependent candidate (rust-fil-proofs table).
  auto p0_x0 = pick_named(cs, "p0_x0", b0, b, a);
  auto p0 = pick_named(cs, "p0", b1, b, p0_x0);
  auto p1_x0 = pick_named(cs, "p1_x0", b0, a, b);
  auto p1 = pick_named(cs, "p1", b1, c, p1_x0);
  auto p2_x1 = pick_named(cs, "p2_x1", b0, d, a);
  auto p2 = pick_named(cs, "p2", b1, p2_x1, c);
  auto p3_x1 = pick_named(cs, "p3_x1", b0, a, d);
  auto p3 = pick_named(cs, "p3", b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

template <class CS>
std::vector<AllocatedNum> insert_8(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> elements) {
  assert(bits.size() == 3 && elements.size() == 7);
  const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
  assert(b0.kind() == Boolean::Kind::kIs && b1.kind() == Boolean::Kind::kIs);  // upstream panics otherwise
  const AllocatedNum& a = element;
  const AllocatedNum &b = elements[0], &c = elements[1], &d = elements[2], &e = elements[3], &f = elements[4],
                     &g = elements[5], &h = elements[6];
  Boolean b0_nor_b1, b0_and_b1;
  {
    auto ns = cs.ns("b0 nor b1");
    b0_nor_b1 = Boolean::is(bit_nor(cs, b0.bit(), b1.bit()));
  }
  {
    auto ns = cs.ns("b0 and b1");
    b0_and_b1 = Boolean::is(bit_and(cs, b0.bit(), b1.bit()));
  }
  auto p0_xx0 = pick_named(cs, "p0_xx0", b0_nor_b1, a, b);
  auto p0 = pick_named(cs, "p0", b2, b, p0_xx0);
  auto p1_x00 = pick_named(cs, "p1_x00", b0, a, b);
  auto p1_xx0 = pick_named(cs, "p1_xx0", b1, c, p1_x00);
  auto p1 = pick_named(cs, "p1", b2, c, p1_xx0);
  auto p2_x10 = pick_named(cs, "p2_x10", b0, d, a);
  auto p2_xx0 = pick_named(cs, "p2_xx0", b1, p2_x10, c);
  auto p2 = pick_named(cs, "p2", b2, d, p2_xx0);
  auto p3_xx0 = pick_named(cs, "p3_xx0", b0_and_b1, a, d);
  auto p3 = pick_named(cs, "p3", b2, e, p3_xx0);
  auto p4_xx1 = pick_named(cs, "p4_xx1", b0_nor_b1, a, f);
  auto p4 = pick_named(cs, "p4", b2, p4_xx1, e);
  auto p5_x01 = pick_named(cs, "p5_x01", b0, a, f);
  auto p5_xx1 = pick_named(cs, "p5_xx1", b1, g, p5_x01);
  auto p5 = pick_named(cs, "p5", b2, p5_xx1, f);
  auto p6_x11 = pick_named(cs, "p6_x11", b0, h, a);
  auto p6_xx1 = pick_named(cs, "p6_xx1", b1, p6_x11, g);
  auto p6 = pick_named(cs, "p6", b2, p6_xx1, g);
  auto p7_xx1 = pick_named(cs, "p7_xx1", b0_and_b1, a, h);
  auto p7 = pick_named(cs, "p7", b2, p7_xx1, h);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// Selects from[n], n given by little-endian path bits (size·(size-1)/... picks, MSB consumed first).
template <class CS>
AllocatedNum select(CS& cs, std::span<const AllocatedNum> from, std::span<const Boolean> path_bits) {
  assert((std::size_t(1) << path_bits.size()) == from.size());
  std::vector<AllocatedNum> state(from.begin(), from.end());
  std::size_t half = from.size() / 2;
  for (std::size_t i = 0; i < path_bits.size(); ++i) {
    const Boolean& bit = path_bits[path_bits.size() - 1 - i];
    std::vector<AllocatedNum> next;
    for (std::size_t j = 0; j < half; ++j) {
      auto g = cs.ns(Name("pick", std::int64_t(i), std::int64_t(j)));
      next.push_back(pick(cs, bit, state[half + j], state[j]));
    }
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

// insertion::insert: `element` placed after the n-th of `elements` (n from LE bits).
template <class CS>
std::vector<AllocatedNum> insert(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                 std::span<const AllocatedNum> elements) {
  const std::size_t size = elements.size() + 1;
  assert((std::size_t(1) << bits.size()) == size);
  if (size == 2) return insert_2(cs, element, bits, elements);
  if (size == 4) return insert_4(cs, element, bits, elements);
  if (size == 8) return insert_8(cs, element, bits, elements);
  std::vector<AllocatedNum> result;
  for (std::size_t pos = 0; pos < size; ++pos) {
    std::vector<AllocatedNum> choices;
    for (std::size_t index = 0; index < size; ++index) {
      // potential_results[index][pos]
      choices.push_back(pos < index ? elements[pos] : pos == index ? element : elements[pos - 1]);
    }
    auto g = cs.ns(Name("choice at", std::int64_t(pos)));
    result.push_back(select(cs, choices, bits));
  }
  return result;
}

}  // namespace cuzk::circuit
