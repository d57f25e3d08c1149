// Malformed .r1cs / .wtns / .zkey files: every defect must give a one-line error naming the file,
// never a crash or an accepted file.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "../common/test_random.hpp"
#include "fixtures.hpp"
#include "formats/snarkjs_common.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "formats/snarkjs_zkey.hpp"

namespace cuzk::formats::test {
namespace {

using Parser = std::function<std::string(std::span<const std::uint8_t>, const std::string&)>;  // "" = ok

std::string r1cs_parser(std::span<const std::uint8_t> b, const std::string& n) {
  auto r = parse_r1cs(b, n);
  return r.ok() ? "" : r.error();
}
std::string wtns_parser(std::span<const std::uint8_t> b, const std::string& n) {
  auto r = parse_wtns(b, n);
  return r.ok() ? "" : r.error();
}
std::string zkey_parser(std::span<const std::uint8_t> b, const std::string& n) {
  auto r = parse_zkey(b, n);
  return r.ok() ? "" : r.error();
}
std::string zkey_parser_sg(std::span<const std::uint8_t> b, const std::string& n) {
  ZkeyReadOptions o;
  o.check_subgroup = true;
  auto r = parse_zkey(b, n, o);
  return r.ok() ? "" : r.error();
}

// Expects rejection with a one-line message that starts with the name and contains `want`.
void expect_error(const Parser& parse, const std::vector<std::uint8_t>& bytes, const std::string& name,
                  const std::string& want) {
  std::string e = parse(bytes, name);
  ASSERT_FALSE(e.empty()) << "accepted, expected: " << want;
  EXPECT_EQ(e.rfind(name + ": ", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(e.find(want), std::string::npos) << "got: " << e << "\nwant: " << want;
}

struct Kind {
  const char* ext;
  const char* magic;
  Parser parse;
};

std::vector<std::pair<std::string, Kind>> all_files() {
  std::vector<std::pair<std::string, Kind>> v;
  for (const auto& c : circuits()) {
    v.push_back({r1cs_path(c), Kind{"r1cs", "r1cs", r1cs_parser}});
    v.push_back({fixture(c, "witness.wtns"), Kind{"wtns", "wtns", wtns_parser}});
    v.push_back({zkey_path(c), Kind{"zkey", "zkey", zkey_parser}});
  }
  return v;
}

TEST(Malformed, FixturesParse) {
  for (const auto& [path, k] : all_files()) {
    auto b = bytes_of(path);
    EXPECT_EQ(k.parse(b, path), "") << path;
  }
}

TEST(Malformed, EveryStrictPrefixIsRejected) {
  for (const auto& [path, k] : all_files()) {
    SCOPED_TRACE(path);
    auto b = bytes_of(path);
    for (std::size_t n = 0; n < b.size(); ++n) {
      // A fresh heap copy of exactly n bytes, so a read past the prefix would be caught by ASan.
      std::vector<std::uint8_t> prefix(b.begin(), b.begin() + std::ptrdiff_t(n));
      std::string e = k.parse(prefix, "cut." + std::string(k.ext));
      ASSERT_FALSE(e.empty()) << "prefix of " << n << " bytes accepted";
      ASSERT_EQ(e.rfind("cut." + std::string(k.ext) + ": ", 0), 0u) << e;
    }
  }
}

TEST(Malformed, EverySectionCutIsRejected) {
  // Keep the container valid but shorten one section's payload (and its declared size).
  for (const auto& [path, k] : all_files()) {
    auto raw = split(bytes_of(path), k.magic);
    for (std::size_t si = 0; si < raw.sections.size(); ++si) {
      std::size_t size = raw.sections[si].payload.size();
      for (std::size_t cut : {std::size_t(0), std::size_t(1), size / 3, size / 2, size - 1}) {
        if (cut >= size) continue;
        auto mod = raw;
        mod.sections[si].payload.resize(cut);
        std::string e = k.parse(mod.join(), "cut");
        EXPECT_FALSE(e.empty()) << path << " section " << raw.sections[si].id << " cut to " << cut;
      }
      // and a payload one byte too long
      auto mod = raw;
      mod.sections[si].payload.push_back(0);
      std::string e = k.parse(mod.join(), "long");
      EXPECT_FALSE(e.empty()) << path << " section " << raw.sections[si].id << " one byte longer";
    }
  }
}

TEST(Malformed, ContainerDefects) {
  for (const auto& [path, k] : all_files()) {
    SCOPED_TRACE(path);
    const std::string name = "bad." + std::string(k.ext);
    auto b = bytes_of(path);
    auto m = b;
    m[0] ^= 0x20;
    expect_error(k.parse, m, name, "not a '" + std::string(k.magic) + "' file");
    // Never the bytes found: a client may name any file (issue 28: /etc/shadow answered 'root').
    const std::string shadow = "root:x:0:0:root:/root:/bin/bash\n";
    const std::string e = k.parse(std::vector<std::uint8_t>(shadow.begin(), shadow.end()), name);
    EXPECT_NE(e.find("not a '" + std::string(k.magic) + "' file"), std::string::npos) << e;
    EXPECT_EQ(e.find("root"), std::string::npos) << e;
    m = b;
    put_u32(m, 4, 0);
    expect_error(k.parse, m, name, "unsupported version 0");
    m = b;
    put_u32(m, 4, 77);
    expect_error(k.parse, m, name, "unsupported version 77");
    // the last section's size runs past the end of the file
    auto f = BinFile::from_span(b, "x", k.magic, 0, 99);
    ASSERT_TRUE(f.ok());
    const auto& last = f->sections().back();
    m = b;
    store_u64le(m.data() + last.offset - 8, last.size + 1);
    expect_error(k.parse, m, name, "section " + std::to_string(last.id) + " runs past the end of the file");
    // a huge size in the first section header
    const auto& first = f->sections().front();
    m = b;
    store_u64le(m.data() + first.offset - 8, ~0ull);
    expect_error(k.parse, m, name, "runs past the end of the file");
    // more sections declared than present
    m = b;
    put_u32(m, 8, get_u32(b, 8) + 1);
    expect_error(k.parse, m, name, "file is truncated in the header of section table entry");
    // fewer declared: trailing bytes
    m = b;
    put_u32(m, 8, get_u32(b, 8) - 1);
    expect_error(k.parse, m, name, "trailing bytes after the last of");
    // a duplicated section
    auto raw = split(b, k.magic);
    raw.sections.push_back(raw.sections.front());
    expect_error(k.parse, raw.join(), name,
                 "section " + std::to_string(raw.sections.front().id) + " appears more than once");
    // each required section missing
    auto raw0 = split(b, k.magic);
    for (std::size_t si = 0; si < raw0.sections.size(); ++si) {
      std::uint32_t id = raw0.sections[si].id;
      // (an .r1cs's wire-to-label map is required: it bounds nWires; see LabelMapIsRequired)
      bool optional = std::string(k.ext) == "zkey" && id == 10;
      auto mod = raw0;
      mod.sections.erase(mod.sections.begin() + std::ptrdiff_t(si));
      std::string e = k.parse(mod.join(), name);
      if (optional) {
        EXPECT_EQ(e, "") << "optional section " << id;
      } else {
        EXPECT_NE(e.find("section " + std::to_string(id) + " ("), std::string::npos) << e;
        EXPECT_NE(e.find("is missing"), std::string::npos) << e;
      }
    }
  }
  EXPECT_EQ(r1cs_parser({}, "empty.r1cs"), "empty.r1cs: file is truncated: 0 bytes, too short for the 'r1cs' header");
  auto r = read_r1cs("/nonexistent/x.r1cs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("/nonexistent/x.r1cs: cannot open: ", 0), 0u) << r.error();
  auto z = read_zkey(fixture_dir("mulchain"));
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.error().find("is a directory"), std::string::npos) << z.error();
}

TEST(Malformed, RandomByteFlipsNeverCrash) {
  cuzk::test::Rng rng(42);
  std::size_t zkey_rejected = 0, zkey_total = 0;
  for (const auto& c : {std::string("multi_public"), std::string("linear")}) {
    for (const auto& [path, k] : all_files()) {
      if (path.find("/" + c + "/") == std::string::npos) continue;
      auto b = bytes_of(path);
      for (int it = 0; it < 200; ++it) {
        auto m = b;
        int flips = 1 + int(rng.next() % 4);
        for (int f = 0; f < flips; ++f) m[rng.next() % m.size()] ^= std::uint8_t(1u << (rng.next() % 8));
        std::string e = k.parse(m, "fuzz");
        if (std::string(k.ext) == "zkey") {
          zkey_rejected += !e.empty();
          ++zkey_total;
        }
        if (!e.empty()) {
          ASSERT_EQ(e.rfind("fuzz: ", 0), 0u) << e;
          ASSERT_EQ(e.find('\n'), std::string::npos) << e;
        }
      }
    }
  }
  // Nearly every zkey byte is a point coordinate or a checked field; only flips in the contribution
  // section or in a coefficient value that stays below r can pass.
  EXPECT_GT(zkey_rejected, zkey_total * 8 / 10);
}

// ---- r1cs specifics

struct R1csLayout {
  std::vector<std::uint8_t> bytes;
  std::size_t header_at, constraints_at;  // payload offsets
};
R1csLayout r1cs_layout(const std::string& c) {
  R1csLayout l;
  l.bytes = bytes_of(r1cs_path(c));
  auto f = BinFile::from_span(l.bytes, "x", "r1cs", 1, 1);
  EXPECT_TRUE(f.ok());
  l.header_at = f->find(1)->offset;
  l.constraints_at = f->find(2)->offset;
  return l;
}

TEST(MalformedR1cs, Bn128PrimeIsRejectedClearly) {
  auto l = r1cs_layout("mulchain");
  // BN254 scalar field r, little-endian.
  const char* bn = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
  // Write the decimal as 32 LE bytes.
  std::uint8_t le[32] = {};
  for (const char* p = bn; *p; ++p) {
    unsigned carry = unsigned(*p - '0');
    for (auto& byte : le) {
      unsigned t = unsigned(byte) * 10 + carry;
      byte = std::uint8_t(t);
      carry = t >> 8;
    }
  }
  std::memcpy(l.bytes.data() + l.header_at + 4, le, 32);
  expect_error(
      r1cs_parser, l.bytes, "bn.r1cs",
      "section 1 (header) has prime 21888242871839275222246405745257275088548364400416034343698204186575808495617 "
      "(bn128 scalar field), expected the BLS12-381 scalar field r");
  auto w = bytes_of(fixture("mulchain", "witness.wtns"));
  std::memcpy(w.data() + 12 + 12 + 4, le, 32);
  expect_error(wtns_parser, w, "bn.wtns", "(bn128 scalar field), expected the BLS12-381 scalar field r");
}

TEST(MalformedR1cs, FieldSizeOtherThan32) {
  auto l = r1cs_layout("mulchain");
  put_u32(l.bytes, l.header_at, 8);
  expect_error(r1cs_parser, l.bytes, "g.r1cs", "section 1 (header) has field size n8 = 8");
}

// Without the wire-to-label map a few bytes could declare 2^32 wires, which every consumer sizes its
// vectors by (found by fuzzing: tests/fuzz/regressions/snarkjs_r1cs). The map is required; its size
// bounds nWires.
TEST(MalformedR1cs, LabelMapIsRequired) {
  auto l = r1cs_layout("mulchain");
  auto f = BinFile::from_span(l.bytes, "x", "r1cs", 1, 1);
  ASSERT_TRUE(f.ok());
  const std::size_t labels_at = f->find(3)->offset;
  auto m = l.bytes;
  put_u32(m, labels_at - 12, 259);  // the map's section id: now an unknown section
  expect_error(r1cs_parser, m, "l.r1cs", "section 3 (wire-to-label map) is missing");
  m = l.bytes;
  put_u32(m, l.header_at + 36, 1u << 30);  // nWires: more than the map holds
  expect_error(r1cs_parser, m, "l.r1cs", "section 3 (wire-to-label map)");
}

TEST(MalformedR1cs, CoefficientNotBelowR) {
  auto l = r1cs_layout("mulchain");
  // First constraint: u32 nA, then (u32 wire, 32-byte coef).
  std::size_t coef = l.constraints_at + 4 + 4;
  ASSERT_GT(get_u32(l.bytes, l.constraints_at), 0u);
  auto m = l.bytes;
  std::memcpy(m.data() + coef, l.bytes.data() + l.header_at + 4, 32);  // coef = r
  expect_error(
      r1cs_parser, m, "c.r1cs",
      "section 2 (constraints) constraint 0 A term 0 (wire " + std::to_string(get_u32(l.bytes, coef - 4)) +
          "): coefficient 52435875175126190479447740508185965837690552500527637822603658699938581184513 is not "
          "below r");
  m = l.bytes;
  std::memset(m.data() + coef, 0xff, 32);
  expect_error(r1cs_parser, m, "c.r1cs", "is not below r");
  // r - 1 is fine
  m = l.bytes;
  std::memcpy(m.data() + coef, l.bytes.data() + l.header_at + 4, 32);
  m[coef] -= 1;
  EXPECT_EQ(r1cs_parser(m, "ok.r1cs"), "");
}

TEST(MalformedR1cs, WireOutOfRange) {
  auto l = r1cs_layout("mulchain");
  std::uint32_t n_wires = get_u32(l.bytes, l.header_at + 4 + 32);
  auto m = l.bytes;
  put_u32(m, l.constraints_at + 4, n_wires);
  expect_error(r1cs_parser, m, "w.r1cs",
               "section 2 (constraints) constraint 0 A term 0: wire id " + std::to_string(n_wires) +
                   " is out of range (nWires = " + std::to_string(n_wires) + ")");
  put_u32(m, l.constraints_at + 4, n_wires - 1);
  EXPECT_EQ(r1cs_parser(m, "ok.r1cs"), "");
}

TEST(MalformedR1cs, InconsistentHeaderAndCounts) {
  auto l = r1cs_layout("mulchain");
  auto m = l.bytes;
  put_u32(m, l.header_at + 36 + 4, 1u << 30);  // nPubOut huge
  expect_error(r1cs_parser, m, "h.r1cs", "section 1 (header) is inconsistent");
  m = l.bytes;
  std::size_t nc_at = l.header_at + 36 + 16 + 8;
  put_u32(m, nc_at, get_u32(l.bytes, nc_at) + 1);  // one more constraint than present
  expect_error(r1cs_parser, m, "h.r1cs", "section 2 (constraints) is truncated");
  m = l.bytes;
  put_u32(m, nc_at, get_u32(l.bytes, nc_at) - 1);  // one fewer: trailing bytes
  expect_error(r1cs_parser, m, "h.r1cs", "trailing bytes after");
  m = l.bytes;
  put_u32(m, nc_at, 0xffffffffu);
  expect_error(r1cs_parser, m, "h.r1cs", "cannot hold 4294967295 constraints");
  m = l.bytes;
  put_u32(m, l.constraints_at, 0x7fffffffu);  // nTerms of the first LC
  expect_error(r1cs_parser, m, "h.r1cs", "is truncated at constraint 0 A: 2147483647 terms need");
}

TEST(MalformedR1cs, CustomGatesRejected) {
  auto raw = split(bytes_of(r1cs_path("multi_public")), "r1cs");
  raw.sections.push_back({4, {0, 0, 0, 0}});
  expect_error(r1cs_parser, raw.join(), "g.r1cs", "custom gates");
}

// ---- wtns specifics

TEST(MalformedWtns, FirstValueMustBeOne) {
  auto b = bytes_of(fixture("multi_public", "witness.wtns"));
  auto f = BinFile::from_span(b, "x", "wtns", 1, 2);
  ASSERT_TRUE(f.ok());
  std::size_t v0 = f->find(2)->offset;
  auto m = b;
  m[v0] = 2;
  expect_error(wtns_parser, m, "w.wtns", "section 2 (witness values) w[0] = 2, expected 1 (the ONE wire)");
  m = b;
  std::memset(m.data() + v0 + 32, 0xff, 32);
  expect_error(wtns_parser, m, "w.wtns", "value 1 = ");
  expect_error(wtns_parser, m, "w.wtns", "is not below r");
  m = b;
  std::size_t n_at = f->find(1)->offset + 4 + 32;
  put_u32(m, n_at, get_u32(b, n_at) + 1);
  expect_error(wtns_parser, m, "w.wtns", "section 2 (witness values) is truncated: 544 bytes, expected 576");
  put_u32(m, n_at, 0);
  expect_error(wtns_parser, m, "w.wtns", "empty witness");
}

// ---- zkey specifics

struct ZkeyLayout {
  std::vector<std::uint8_t> bytes;
  std::size_t at[11] = {};
  std::uint64_t size[11] = {};
};
ZkeyLayout zkey_layout(const std::string& c) {
  ZkeyLayout l;
  l.bytes = bytes_of(zkey_path(c));
  auto f = BinFile::from_span(l.bytes, "x", "zkey", 1, 1);
  EXPECT_TRUE(f.ok());
  for (const auto& s : f->sections()) {
    l.at[s.id] = s.offset;
    l.size[s.id] = s.size;
  }
  return l;
}
constexpr std::size_t kHdrPoints = 4 + 48 + 4 + 32 + 12;  // offset of alpha_1 within section 2

// (0, 2): on the curve, of order 3, so not in G1. Montgomery encoding of the coordinates.
void put_order3_point(std::uint8_t* p) {
  std::memset(p, 0, kG1Bytes);
  math::Fp two = math::Fp::from_u64(2);
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t b = 0; b < 8; ++b) p[48 + 8 * i + b] = std::uint8_t(two.mont_raw()[i] >> (8 * b));
  }
}

TEST(MalformedZkey, PointOffTheCurve) {
  auto l = zkey_layout("multi_public");
  // alpha_1: flip one bit of x
  auto m = l.bytes;
  m[l.at[2] + kHdrPoints] ^= 1;
  expect_error(zkey_parser, m, "p.zkey", "section 2 (groth16 header) alpha_1 is not on the curve");
  // delta_2 (after alpha1, beta1, beta2, gamma2, delta1)
  m = l.bytes;
  m[l.at[2] + kHdrPoints + 2 * 96 + 2 * 192 + 96 + 100] ^= 1;
  expect_error(zkey_parser, m, "p.zkey", "section 2 (groth16 header) delta_2 is not on the curve");
  // first non-identity A point
  std::size_t idx = 0;
  while (std::all_of(l.bytes.begin() + std::ptrdiff_t(l.at[5] + idx * 96),
                     l.bytes.begin() + std::ptrdiff_t(l.at[5] + idx * 96 + 96), [](auto b) { return b == 0; })) {
    ++idx;
  }
  m = l.bytes;
  m[l.at[5] + idx * 96 + 5] ^= 0x10;
  expect_error(zkey_parser, m, "p.zkey", "section 5 (A points) point " + std::to_string(idx) + " is not on the curve");
  // a B2 point, an H point, an IC point, a C point
  m = l.bytes;
  m[l.at[7] + 192 * 0 + 7] ^= 1;
  expect_error(zkey_parser, m, "p.zkey", "section 7 (B2 points) point 0 is not on the curve");
  m = l.bytes;
  m[l.at[9] + 96 * 3 + 50] ^= 1;
  expect_error(zkey_parser, m, "p.zkey", "section 9 (H points) point 3 is not on the curve");
  m = l.bytes;
  m[l.at[3] + 96 * 1 + 1] ^= 1;
  expect_error(zkey_parser, m, "p.zkey", "section 3 (IC points) point 1 is not on the curve");
  m = l.bytes;
  m[l.at[8] + 96 * 2 + 9] ^= 1;
  expect_error(zkey_parser, m, "p.zkey", "section 8 (C points) point 2 is not on the curve");
  // coordinate >= q
  m = l.bytes;
  std::memset(m.data() + l.at[9] + 96 * 1, 0xff, 48);
  expect_error(zkey_parser, m, "p.zkey", "section 9 (H points) point 1 has a coordinate >= q");
}

TEST(MalformedZkey, SubgroupChecks) {
  auto l = zkey_layout("multi_public");
  auto m = l.bytes;
  put_order3_point(m.data() + l.at[2] + kHdrPoints);  // alpha_1
  expect_error(zkey_parser, m, "s.zkey", "section 2 (groth16 header) alpha_1 is not in the prime-order subgroup");
  m = l.bytes;
  put_order3_point(m.data() + l.at[3]);  // IC[0]
  expect_error(zkey_parser, m, "s.zkey", "section 3 (IC points) point 0 is not in the prime-order subgroup");
  // H: accepted by default (like bellperson), rejected with check_subgroup.
  m = l.bytes;
  put_order3_point(m.data() + l.at[9] + 96 * 4);
  EXPECT_EQ(zkey_parser(m, "s.zkey"), "");
  expect_error(zkey_parser_sg, m, "s.zkey", "section 9 (H points) point 4 is not in the prime-order subgroup");
}

TEST(MalformedZkey, SparseVariableWithAPoint) {
  // A variable without A coefficients must have the point at infinity in section 5.
  auto z = parse_zkey(zkey_layout("linear").bytes, "z");
  ASSERT_TRUE(z.ok()) << z.error();
  std::size_t var = 0;
  for (; var < z->pk.a_aux_density.bits.size() && z->pk.a_aux_density.bits[var]; ++var) {}
  ASSERT_LT(var, z->pk.a_aux_density.bits.size());
  var += z->pk.num_inputs;
  auto l = zkey_layout("linear");
  encode_g1_mont(math::g1_generator(), l.bytes.data() + l.at[5] + var * 96);
  expect_error(zkey_parser, l.bytes, "s.zkey",
               "section 5 (A points) point " + std::to_string(var) +
                   " is not the point at infinity although the variable has no A coefficient");
}

TEST(MalformedZkey, CoefficientEntries) {
  auto l = zkey_layout("multi_public");
  std::size_t e0 = l.at[4] + 4;  // first entry: matrix, constraint, signal, value
  auto m = l.bytes;
  put_u32(m, e0, 2);
  expect_error(zkey_parser, m, "c.zkey", "section 4 (coefficients) entry 0: matrix 2 is not 0 (A) or 1 (B)");
  m = l.bytes;
  put_u32(m, e0 + 4, 32);
  expect_error(zkey_parser, m, "c.zkey", "entry 0: constraint 32 is outside the domain of size 32");
  m = l.bytes;
  put_u32(m, e0 + 8, 17);
  expect_error(zkey_parser, m, "c.zkey", "entry 0: signal 17 is out of range (nVars = 17)");
  m = l.bytes;
  std::memset(m.data() + e0 + 12, 0xff, 32);
  expect_error(zkey_parser, m, "c.zkey",
               "entry 0: value 1157920892373161954235709850086879078532699846656405640394575840079131"
               "29639935 is not below r");
  m = l.bytes;
  put_u32(m, l.at[4], get_u32(l.bytes, l.at[4]) + 1);
  expect_error(zkey_parser, m, "c.zkey", "section 4 (coefficients) is truncated: 1236 bytes, expected 1280");
  // the last (input) row must be {signal nPublic: 1}
  m = l.bytes;
  std::uint32_t n = get_u32(l.bytes, l.at[4]);
  std::size_t last = l.at[4] + 4 + std::size_t(n - 1) * 44;
  ASSERT_EQ(get_u32(l.bytes, last + 8), 8u);
  put_u32(m, last + 8, 7);
  expect_error(zkey_parser, m, "c.zkey", "the last nPublic + 1 rows must be the public-input rows");
}

TEST(MalformedZkey, WrongProtocolOrCurve) {
  auto l = zkey_layout("multi_public");
  auto m = l.bytes;
  put_u32(m, l.at[1], 2);
  expect_error(zkey_parser, m, "c.zkey", "c.zkey: protocol is 2 (plonk), only groth16 (1) is supported");
  m = l.bytes;
  m[l.at[2] + 4] ^= 0x02;  // q's low byte
  expect_error(zkey_parser, m, "c.zkey", "section 2 (groth16 header) has q = ");
  expect_error(zkey_parser, m, "c.zkey", "expected the BLS12-381 base field");
  m = l.bytes;
  put_u32(m, l.at[2], 32);  // n8q = 32: a bn128 zkey
  expect_error(zkey_parser, m, "c.zkey", "has base field size n8q = 32");
  m = l.bytes;
  m[l.at[2] + 4 + 48 + 4 + 31] ^= 0x01;  // r's top byte
  expect_error(zkey_parser, m, "c.zkey", "has r = ");
  m = l.bytes;
  put_u32(m, l.at[2] + 4 + 48 + 4 + 32 + 8, 48);  // domainSize not a power of two
  expect_error(zkey_parser, m, "c.zkey", "has domainSize 48, not a power of two");
  m = l.bytes;
  put_u32(m, l.at[2] + 4 + 48 + 4 + 32 + 4, 17);  // nPublic + 1 > nVars
  expect_error(zkey_parser, m, "c.zkey", "nPublic + 1 = 18 > nVars = 17");
  m = l.bytes;
  put_u32(m, l.at[2] + 4 + 48 + 4 + 32, 18);  // nVars larger than the point sections
  expect_error(zkey_parser, m, "c.zkey", "section 5 (A points) is truncated: 1632 bytes, expected 1728");
}

TEST(MalformedZkey, Contributions) {
  auto l = zkey_layout("multi_public");
  auto m = l.bytes;
  put_u32(m, l.at[10] + 64, 2);  // two contributions declared, one present
  expect_error(zkey_parser, m, "c.zkey", "section 10 (contributions) is truncated in contribution 1");
}

}  // namespace
}  // namespace cuzk::formats::test
