// Boolean, AllocatedNum, UInt32, MultiEq, multipack: values, row counts, all modes agree.
#include <gtest/gtest.h>

#include "circuit/gadgets/multipack.hpp"
#include "circuit/gadgets/uint32.hpp"
#include "circuit_test_util.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

using K = Boolean::Kind;

template <class CS>
Boolean make_bool(CS& cs, K kind, bool value) {
  switch (kind) {
    case K::kConstant: return Boolean::constant(value);
    case K::kIs: return Boolean::is(alloc_bit(cs, value));
    default: return Boolean::not_of(alloc_bit(cs, !value));
  }
}

constexpr K kKinds[3] = {K::kConstant, K::kIs, K::kNot};

TEST(Boolean, BinaryOpsAllKindsAndValues) {
  for (K ka : kKinds)
    for (K kb : kKinds)
      for (int av = 0; av < 2; ++av)
        for (int bv = 0; bv < 2; ++bv) {
          for (int op = 0; op < 3; ++op) {
            bool got = false, result_const = false;
            auto circuit = [&](auto& cs) {
              Boolean a = make_bool(cs, ka, av), b = make_bool(cs, kb, bv);
              Boolean r = op == 0 ? boolean_xor(cs, a, b) : op == 1 ? boolean_and(cs, a, b) : boolean_or(cs, a, b);
              got = r.value();
              result_const = r.is_constant();
              // The result really is constrained to its value.
              if (!r.is_constant()) boolean_enforce_equal(cs, r, Boolean::constant(got));
            };
            auto rep = ctest::run_all_modes(circuit);
            bool expect = op == 0 ? (av ^ bv) : op == 1 ? (av && bv) : (av || bv);
            EXPECT_EQ(got, expect) << int(ka) << int(kb) << av << bv << op;
            // The operation costs one aux + one row only when neither operand is constant.
            std::size_t allocated = (ka != K::kConstant) + (kb != K::kConstant);
            std::size_t op_rows = allocated == 2 ? 1 : 0;
            EXPECT_EQ(ctest::circuit_rows(rep), allocated + op_rows + (result_const ? 0 : 1))
                << int(ka) << int(kb) << op;
          }
        }
}

TEST(Boolean, Sha256ChMajAllKindsAndValues) {
  for (K ka : kKinds)
    for (K kb : kKinds)
      for (K kc : kKinds)
        for (int v = 0; v < 8; ++v) {
          bool av = v & 1, bv = v & 2, cv = v & 4;
          for (int op = 0; op < 2; ++op) {
            bool got = false;
            auto circuit = [&](auto& cs) {
              Boolean a = make_bool(cs, ka, av), b = make_bool(cs, kb, bv), c = make_bool(cs, kc, cv);
              Boolean r = op == 0 ? sha256_ch(cs, a, b, c) : sha256_maj(cs, a, b, c);
              got = r.value();
              if (!r.is_constant()) boolean_enforce_equal(cs, r, Boolean::constant(got));
            };
            ctest::run_all_modes(circuit);
            bool expect = op == 0 ? ((av && bv) ^ (!av && cv)) : ((av && bv) ^ (av && cv) ^ (bv && cv));
            EXPECT_EQ(got, expect);
          }
        }
  // General case costs: ch 1 row, maj 2 rows (maj + b and c).
  auto count = [](int op) {
    CountingCS cs;
    Boolean a = Boolean::is(alloc_bit(cs, true)), b = Boolean::is(alloc_bit(cs, false)),
            c = Boolean::is(alloc_bit(cs, true));
    op == 0 ? sha256_ch(cs, a, b, c) : sha256_maj(cs, a, b, c);
    return cs.num_constraints() - 3;
  };
  EXPECT_EQ(count(0), 1u);
  EXPECT_EQ(count(1), 2u);
}

TEST(Boolean, TamperedBitsAreCaught) {
  auto circuit = [](auto& cs) {
    Boolean a = Boolean::is(alloc_bit(cs, true)), b = Boolean::not_of(alloc_bit(cs, true));
    Boolean x = boolean_xor(cs, a, b);
    Boolean y = boolean_and(cs, x, b);
    Boolean c = Boolean::is(alloc_bit(cs, false));
    sha256_ch(cs, x, y, c);
    sha256_maj(cs, a, c, x);
  };
  auto rep = ctest::run_all_modes(circuit);
  for (std::size_t j = 0; j < rep.rec.shape.num_aux; ++j) {
    EXPECT_TRUE(ctest::check_with_flipped_aux(circuit, rep.rec.assignment, 1, j).has_value()) << j;
  }
}

TEST(AllocatedNum, ToBitsLeAndArithmetic) {
  test::Rng rng(7);
  for (int iter = 0; iter < 4; ++iter) {
    Fr x = rng.fr(), y = rng.fr();
    if (iter == 0) x = -Fr::one();  // all 255 bits pattern of p - 1
    std::vector<Boolean> bits;
    AllocatedNum s, p, q;
    auto circuit = [&](auto& cs) {
      AllocatedNum a = alloc_num(cs, x), b = alloc_num(cs, y);
      bits = to_bits_le(cs, a);
      s = num_add(cs, a, b);
      p = num_mul(cs, a, b);
      q = num_square(cs, a);
      inputize(cs, p);
      conditionally_reverse(cs, a, b, bits[0]);
    };
    auto rep = ctest::run_all_modes(circuit);
    ASSERT_EQ(bits.size(), 255u);
    auto repr = x.to_canonical();
    for (std::size_t i = 0; i < 255; ++i) EXPECT_EQ(bits[i].value(), bool((repr[i / 64] >> (i % 64)) & 1));
    EXPECT_EQ(s.value, x + y);
    EXPECT_EQ(p.value, x * y);
    EXPECT_EQ(q.value, x * x);
    // to_bits_le 256 rows; add, mul, square, inputize 1 each; conditionally_reverse 2.
    EXPECT_EQ(ctest::circuit_rows(rep), 256u + 4 + 2);
    EXPECT_EQ(ctest::variables_not_detected(rep.rec.shape, rep.rec.assignment), std::vector<std::size_t>{});
  }
}

TEST(UInt32, RotShrXorAddmanyMatchNative) {
  test::Rng rng(11);
  for (int iter = 0; iter < 20; ++iter) {
    std::uint32_t x = std::uint32_t(rng.next()), y = std::uint32_t(rng.next()), z = std::uint32_t(rng.next());
    std::uint32_t k = std::uint32_t(rng.next());
    UInt32 rx, r1, r2, r3, r4;
    auto circuit = [&](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      UInt32 a = uint32_alloc(cs, x), b = uint32_alloc(cs, y), c = uint32_alloc(cs, z);
      rx = uint32_xor(cs, a.rotr(7), b.shr(3));
      MultiEq<CS> meq(cs);
      const UInt32 ops2[2] = {a, b};
      r1 = uint32_addmany(meq, ops2);
      const UInt32 ops5[5] = {a, b, c, UInt32::constant(k), rx};
      r2 = uint32_addmany(meq, ops5);
      const UInt32 opsc[3] = {UInt32::constant(1), UInt32::constant(k), UInt32::constant(0xffffffffu)};
      r3 = uint32_addmany(meq, opsc);
      r4 = uint32_sha256_ch(cs, a, b, c);
    };
    auto rep = ctest::run_all_modes(circuit);
    std::uint32_t xr = std::rotr(x, 7) ^ (y >> 3);
    EXPECT_EQ(rx.value, xr);
    EXPECT_EQ(r1.value, x + y);
    EXPECT_EQ(r2.value, x + y + z + k + xr);
    EXPECT_EQ(r3.value, 1 + k + 0xffffffffu);
    EXPECT_TRUE(r3.bit(0).is_constant());
    EXPECT_EQ(r4.value, (x & y) ^ (~x & z));
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(r2.bit(std::size_t(i)).value(), bool((r2.value >> i) & 1));
    }
    // 96 input bits (+96 rows); xor: 29 bits allocated (3 shr bits are constant false: free);
    // addmany 2 ops: 33 result bits, 5 ops: 35; constant sum free; ch: 32; MultiEq: 33 + 35 < 254 → 1 row.
    EXPECT_EQ(ctest::circuit_rows(rep), 96u + 29 + 33 + 35 + 32 + 1);
    EXPECT_EQ(ctest::variables_not_detected(rep.rec.shape, rep.rec.assignment), std::vector<std::size_t>{});
  }
}

TEST(MultiEq, PacksUntilCapacity) {
  // Seven 2-operand additions (33 bits each): 7·33 = 231 < 254, the 8th would reach 264 → 2 rows.
  for (int n : {1, 7, 8, 15, 16}) {
    auto circuit = [n](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      MultiEq<CS> meq(cs);
      UInt32 acc = uint32_alloc(cs, 12345);
      for (int i = 0; i < n; ++i) {
        const UInt32 ops[2] = {acc, UInt32::constant(0x9e3779b9u * std::uint32_t(i + 1))};
        acc = uint32_addmany(meq, ops);
      }
    };
    auto rep = ctest::run_all_modes(circuit);
    std::size_t meq_rows = std::size_t((n + 6) / 7);
    EXPECT_EQ(ctest::circuit_rows(rep), 32u + 33u * std::size_t(n) + meq_rows) << n;
  }
}

TEST(Multipack, PackIntoInputsAndPackBits) {
  test::Rng rng(5);
  for (std::size_t nbits : {0u, 1u, 253u, 254u, 255u, 600u}) {
    std::vector<bool> bits(nbits);
    for (auto&& b : bits) b = rng.next() & 1;
    AllocatedNum packed;
    auto circuit = [&](auto& cs) {
      std::vector<Boolean> bs;
      for (std::size_t i = 0; i < nbits; ++i) bs.push_back(Boolean::is(alloc_bit(cs, bits[i])));
      bs.push_back(Boolean::constant(true));  // constants pack as ONE terms
      pack_into_inputs(cs, bs);
      packed = pack_bits(cs, bs);
    };
    auto rep = ctest::run_all_modes(circuit);
    std::vector<bool> all = bits;
    all.push_back(true);
    auto expect = compute_multipacking(all);
    ASSERT_EQ(rep.rec.shape.num_inputs, 1 + expect.size());
    for (std::size_t i = 0; i < expect.size(); ++i) EXPECT_EQ(rep.rec.assignment[1 + i], expect[i]);
    std::vector<bool> first(all.begin(), all.begin() + std::min<std::size_t>(all.size(), 254));
    EXPECT_EQ(packed.value, compute_multipacking(first)[0]);
    EXPECT_EQ(ctest::circuit_rows(rep), nbits + expect.size() + 1);
  }
}

}  // namespace

namespace {

// The witness/counting systems run UInt32 xor/ch/maj/addmany a word at a time; the recorder and the
// checking system bit by bit. Words mixing constants, Is and Not bits in every pattern must give the
// same allocations, values and row counts in all modes.
TEST(UInt32, WordLevelPathsEqualPerBitPaths) {
  test::Rng rng(77);
  for (int iter = 0; iter < 60; ++iter) {
    std::uint64_t seeds[3][3];
    for (auto& s : seeds)
      for (auto& x : s) x = rng.next();
    // density of constants: none, some, all (per operand, varied with iter)
    auto make = [&](auto& cs, int k) {
      std::vector<Boolean> bits;
      std::uint32_t val = std::uint32_t(seeds[k][0]), kinds = std::uint32_t(seeds[k][1]),
                    kinds2 = std::uint32_t(seeds[k][2]);
      int mode = (iter + k) % 4;
      for (int i = 0; i < 32; ++i) {
        bool v = (val >> i) & 1;
        bool is_const = mode == 0 ? false : mode == 3 ? true : ((kinds >> i) & 1) && ((kinds2 >> i) & (mode == 1));
        if (mode == 2) is_const = (kinds >> i) & 1;
        if (is_const) bits.push_back(Boolean::constant(v));
        else if ((kinds2 >> i) & 1) bits.push_back(Boolean::not_of(alloc_bit(cs, !v)));
        else bits.push_back(Boolean::is(alloc_bit(cs, v)));
      }
      return UInt32::from_bits_le(bits);
    };
    std::uint32_t got[5] = {};
    auto circuit = [&](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      UInt32 a = make(cs, 0), b = make(cs, 1), c = make(cs, 2);
      UInt32 x = uint32_xor(cs, a, b.rotr(5));
      UInt32 y = uint32_xor(cs, x, c.shr(7));
      UInt32 ch = uint32_sha256_ch(cs, a, b, c);
      UInt32 mj = uint32_sha256_maj(cs, c, a, b);
      MultiEq<CS> meq(cs);
      const UInt32* ops[4] = {&a, &y, &ch, &mj};
      UInt32 s = uint32_addmany(meq, ops, 4);
      // Use every result so its bits end up in rows: xor them all into fresh allocated words.
      UInt32 z = uint32_xor(cs, uint32_xor(cs, s, mj), uint32_alloc(cs, 0x12345678u));
      got[0] = x.value, got[1] = y.value, got[2] = ch.value, got[3] = mj.value, got[4] = z.value;
    };
    ctest::run_all_modes(circuit);
  }
}

}  // namespace
