// SHA-256 circuit (bellperson gadgets/sha256.rs): one MultiEq per compression, message schedule by
// addmany, rounds with deferred additions (e and a are materialized by addmany at their next use),
// ch/maj per bit. Input and output bits are big-endian within each 32-bit word.
// Published counts: compression of 512 allocated bits 25,840 rows; sha256 of 512 bits 44,874.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "circuit/gadgets/multipack.hpp"
#include "circuit/gadgets/uint32.hpp"
#include "circuit/sha256_native.hpp"

namespace cuzk::circuit {

inline std::array<UInt32, 8> sha256_iv_constant() {
  std::array<UInt32, 8> iv;
  for (std::size_t i = 0; i < 8; ++i) iv[i] = UInt32::constant(kSha256Iv[i]);
  return iv;
}

namespace detail {

// Every UInt32 a compression creates, kept so that deferred additions (bellperson's
// Maybe::Deferred) can refer to their operands by pointer instead of copying operand lists.
// a[i + 3] / e[i + 3] hold the materialized a and e of round i (slots 0..3 come from the chaining
// value), so at round i b, c, d = a[i+2], a[i+1], a[i] and f, g, h = e[i+2], e[i+1], e[i].
struct Sha256Scratch {
  std::array<UInt32, 64> w;
  std::array<UInt32, 68> a, e;
  std::array<UInt32, 64> s1, ch, s0, maj, k;
};

}  // namespace detail

// One compression of a 512-bit block (big-endian per word) with the chaining value `h`.
// Allocation/row order is bellperson's sha256_compression_function: message schedule, then per
// round: deferred e, S1 xors, ch, deferred a, S0 xors, maj; then h0 (deferred a + h0), h1..h3,
// h4 (deferred e + h4), h5..h7; the MultiEq remainder row last.
template <class CS>
std::array<UInt32, 8> sha256_compression(CS& cs, std::span<const Boolean> input, const std::array<UInt32, 8>& h) {
  assert(input.size() == 512);
  thread_local detail::Sha256Scratch scratch;  // ~100 KB: too large to copy around, reused per thread
  auto& S = scratch;
  auto& w = S.w;
  for (std::size_t i = 0; i < 16; ++i) w[i] = UInt32::from_bits_be(input.subspan(32 * i, 32));

  constexpr bool kVars = CS::LC::kActive;  // rotations move variable handles only where LCs are built
  MultiEq<CS> meq(cs);
  for (int i = 16; i < 64; ++i) {
    auto g = cs.ns(Name("w extension", i));
    const UInt32& w15 = w[std::size_t(i - 15)];
    const UInt32& w2 = w[std::size_t(i - 2)];
    UInt32 s0 = w15.rotr(7, kVars);
    {
      auto g1 = cs.ns("first xor for s0");
      s0 = uint32_xor(cs, s0, w15.rotr(18, kVars));
    }
    {
      auto g1 = cs.ns("second xor for s0");
      s0 = uint32_xor(cs, s0, w15.shr(3, kVars));
    }
    UInt32 s1 = w2.rotr(17, kVars);
    {
      auto g1 = cs.ns("first xor for s1");
      s1 = uint32_xor(cs, s1, w2.rotr(19, kVars));
    }
    {
      auto g1 = cs.ns("second xor for s1");
      s1 = uint32_xor(cs, s1, w2.shr(10, kVars));
    }
    auto g2 = cs.ns("computation of w[i]");
    const UInt32* ops[4] = {&w[std::size_t(i - 16)], &s0, &w[std::size_t(i - 7)], &s1};
    w[std::size_t(i)] = uint32_addmany(meq, ops, 4);
  }

  // Chaining value: a = h0, b = h1, c = h2, d = h3 → a-history slots 3, 2, 1, 0 (likewise e).
  for (std::size_t j = 0; j < 4; ++j) {
    S.a[3 - j] = h[j];
    S.e[3 - j] = h[4 + j];
  }
  // Operand lists of the pending (deferred) a and e: null count means "concrete".
  const UInt32* da[10];
  const UInt32* de[10];
  std::size_t na = 0, ne = 0;

  for (std::size_t i = 0; i < 64; ++i) {
    auto gr = cs.ns(Name("compression round", std::int64_t(i)));
    const UInt32& f = S.e[i + 2];
    const UInt32& g = S.e[i + 1];
    const UInt32& hh = S.e[i];
    const UInt32& b = S.a[i + 2];
    const UInt32& c = S.a[i + 1];
    const UInt32& d = S.a[i];
    {
      auto g1 = cs.ns("deferred e computation");
      if (ne) S.e[i + 3] = uint32_addmany(meq, de, ne);
    }
    const UInt32& E = S.e[i + 3];  // new_e
    UInt32& s1 = S.s1[i];
    s1 = E.rotr(6, kVars);
    {
      auto g1 = cs.ns("first xor for s1");
      s1 = uint32_xor(cs, s1, E.rotr(11, kVars));
    }
    {
      auto g1 = cs.ns("second xor for s1");
      s1 = uint32_xor(cs, s1, E.rotr(25, kVars));
    }
    {
      auto g1 = cs.ns("ch");
      S.ch[i] = uint32_sha256_ch(cs, E, f, g);
    }
    {
      auto g1 = cs.ns("deferred a computation");
      if (na) S.a[i + 3] = uint32_addmany(meq, da, na);
    }
    const UInt32& A = S.a[i + 3];  // new_a
    UInt32& s0 = S.s0[i];
    s0 = A.rotr(2, kVars);
    {
      auto g1 = cs.ns("first xor for s0");
      s0 = uint32_xor(cs, s0, A.rotr(13, kVars));
    }
    {
      auto g1 = cs.ns("second xor for s0");
      s0 = uint32_xor(cs, s0, A.rotr(22, kVars));
    }
    {
      auto g1 = cs.ns("maj");
      S.maj[i] = uint32_sha256_maj(cs, A, b, c);
    }
    S.k[i] = UInt32::constant(kSha256RoundConstants[i]);
    // temp1 = h + S1 + ch + k[i] + w[i]; e' = temp1 + d; a' = temp1 + S0 + maj (all deferred).
    const UInt32* temp1[5] = {&hh, &S.s1[i], &S.ch[i], &S.k[i], &w[i]};
    for (std::size_t k = 0; k < 5; ++k) de[k] = da[k] = temp1[k];
    de[5] = &d;
    ne = 6;
    da[5] = &S.s0[i];
    da[6] = &S.maj[i];
    na = 7;
    // Round i + 1 materializes them into slot i + 4; b..d and f..h rotate through the slot indices.
  }

  // After round 63: a, e deferred; b = a[66], c = a[65], d = a[64]; f, g, h likewise from e.
  std::array<UInt32, 8> out;
  {
    auto g1 = cs.ns("deferred h0 computation");
    da[na++] = &h[0];
    out[0] = uint32_addmany(meq, da, na);
  }
  auto add2 = [&](const char* name, const UInt32& x, const UInt32& y) {
    auto g1 = cs.ns(name);
    const UInt32* ops[2] = {&x, &y};
    return uint32_addmany(meq, ops, 2);
  };
  out[1] = add2("new h1", h[1], S.a[66]);
  out[2] = add2("new h2", h[2], S.a[65]);
  out[3] = add2("new h3", h[3], S.a[64]);
  {
    auto g1 = cs.ns("deferred h4 computation");
    de[ne++] = &h[4];
    out[4] = uint32_addmany(meq, de, ne);
  }
  out[5] = add2("new h5", h[5], S.e[66]);
  out[6] = add2("new h6", h[6], S.e[65]);
  out[7] = add2("new h7", h[7], S.e[64]);
  meq.flush();
  return out;
}

// sha256_block_no_padding: one compression from the IV, 256 output bits.
template <class CS>
std::vector<Boolean> sha256_block_no_padding(CS& cs, std::span<const Boolean> input) {
  auto st = sha256_compression(cs, input, sha256_iv_constant());
  std::vector<Boolean> out(256);
  for (std::size_t i = 0; i < 8; ++i) st[i].into_bits_be(std::span<Boolean>(out.data() + 32 * i, 32));
  return out;
}

// Full SHA-256 of a whole number of bytes given as bits (big-endian within each byte), with the
// standard padding as constant bits. Returns 256 bits, big-endian within each byte.
template <class CS>
std::vector<Boolean> sha256(CS& cs, std::span<const Boolean> input) {
  assert(input.size() % 8 == 0);
  std::vector<Boolean> padded(input.begin(), input.end());
  std::uint64_t len = input.size();
  padded.push_back(Boolean::constant(true));
  while ((padded.size() + 64) % 512) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant((len >> i) & 1));
  auto cur = sha256_iv_constant();
  for (std::size_t blk = 0; blk * 512 < padded.size(); ++blk) {
    auto g = cs.ns(Name("block", std::int64_t(blk)));
    cur = sha256_compression(cs, std::span<const Boolean>(padded.data() + 512 * blk, 512), cur);
  }
  std::vector<Boolean> out(256);
  for (std::size_t i = 0; i < 8; ++i) cur[i].into_bits_be(std::span<Boolean>(out.data() + 32 * i, 32));
  return out;
}

// filecoin-hashers Sha256Function::hash_circuit: sha256, output bits reversed within each byte
// (little-endian bit order of the digest bytes), first 254 packed into one aux (pack_bits).
template <class CS>
AllocatedNum sha256_hash_circuit(CS& cs, std::span<const Boolean> bits) {
  std::vector<Boolean> be;
  {
    auto g = cs.ns("hash");
    be = sha256(cs, bits);
  }
  auto le = reverse_bit_numbering(std::move(be));
  le.resize(kFrCapacity);
  auto g = cs.ns("pack_le");
  return pack_bits(cs, le);
}

// Sha256Function::hash_leaf_bits_circuit: both sides padded to whole bytes, bit numbering reversed
// per byte, concatenated, hash_circuit.
template <class CS>
AllocatedNum sha256_hash_leaf_bits(CS& cs, std::span<const Boolean> left, std::span<const Boolean> right) {
  auto l = reverse_bit_numbering(std::vector<Boolean>(left.begin(), left.end()));
  auto r = reverse_bit_numbering(std::vector<Boolean>(right.begin(), right.end()));
  l.insert(l.end(), r.begin(), r.end());
  return sha256_hash_circuit(cs, l);
}

// Sha256Function::hash_multi_leaf_circuit (a tree-D node): to_bits_le of each leaf (255 bits + a
// constant false pad), bit numbering reversed per byte (= hashing the 32 LE bytes), hash_circuit.
template <class CS>
AllocatedNum sha256_hash_multi_leaf(CS& cs, std::span<const AllocatedNum> leaves) {
  std::vector<Boolean> bits;
  bits.reserve(256 * leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    std::vector<Boolean> b;
    {
      auto g = cs.ns(Name("num_into_bits", std::int64_t(i)));
      b = to_bits_le(cs, leaves[i]);
    }
    b = reverse_bit_numbering(std::move(b));
    bits.insert(bits.end(), b.begin(), b.end());
  }
  return sha256_hash_circuit(cs, bits);
}

}  // namespace cuzk::circuit
