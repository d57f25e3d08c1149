// Corrupt .params/.vk inputs: every rejection is a one-line error naming the file, the section and the
// byte offset, and nothing crashes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "bp_test_util.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk {
namespace {

namespace bp = formats::bellperson;
using namespace test_bp;
using groth16::ProvingKey;
using math::Fp;
using math::Fp2;
using math::G1Affine;
using math::G2Affine;
using Bytes = std::vector<std::uint8_t>;

const std::string kName = "t.params";

struct Fixture {
  Circuit circuit = small_circuit();
  ProvingKey pk = make_key(circuit.shape, 21);
  Bytes bytes = bp::encode_params(bp::ParamsRef::of(pk)).value();
  bp::Layout lay = bp::parse_params_layout(bytes, kName).value();
};

const Fixture& fx() {
  static const Fixture f;
  return f;
}

// Checks the shape every error message must have.
void expect_well_formed_error(const std::string& e, const std::string& name = kName) {
  EXPECT_TRUE(one_line(e)) << e;
  EXPECT_EQ(e.rfind(name + ": ", 0), 0u) << e;
  EXPECT_NE(e.find("offset "), std::string::npos) << e;
}

// Opens the bytes and decodes every vector; returns the first error ("" when everything passes).
std::string open_and_decode(const Bytes& b, const bp::DecodeOptions& opt = {}) {
  auto f = bp::ParamsFile::from_bytes(b, kName);
  if (!f) return f.error();
  auto all = bp::decode_all(*f, opt);
  if (!all) return all.error();
  return "";
}

std::uint64_t point_offset(bp::Section s, std::size_t i) {
  const auto& si = fx().lay.get(s);
  return si.offset + i * si.point_bytes;
}

std::string at(std::uint64_t off) { return " at offset " + std::to_string(off) + ": "; }

void put_u32be(Bytes& b, std::uint64_t off, std::uint32_t v) {
  b[off] = std::uint8_t(v >> 24);
  b[off + 1] = std::uint8_t(v >> 16);
  b[off + 2] = std::uint8_t(v >> 8);
  b[off + 3] = std::uint8_t(v);
}

struct VkPointAt {
  const char* name;
  std::uint64_t offset;
  std::size_t bytes;
};
const VkPointAt kVk[] = {{"alpha_g1", 0, 96},    {"beta_g1", 96, 96},   {"beta_g2", 192, 192},
                         {"gamma_g2", 384, 192}, {"delta_g1", 576, 96}, {"delta_g2", 672, 192}};

// One point of each vector section: (section, index, is G2).
struct VecPoint {
  bp::Section s;
  std::size_t i;
};
const VecPoint kVec[] = {{bp::Section::kH, 3},   {bp::Section::kH, 14},  {bp::Section::kL, 0},  {bp::Section::kA, 5},
                         {bp::Section::kBG1, 2}, {bp::Section::kBG2, 0}, {bp::Section::kBG2, 3}};

std::string group_of(bp::Section s) { return s == bp::Section::kBG2 ? "G2" : "G1"; }

TEST(BellpersonCorrupt, TruncatedAtEveryOffset) {
  const Bytes& full = fx().bytes;
  ASSERT_TRUE(open_and_decode(full).empty());
  for (std::size_t len = 0; len < full.size(); ++len) {
    Bytes cut(full.begin(), full.begin() + std::ptrdiff_t(len));
    auto f = bp::ParamsFile::from_bytes(cut, kName);
    ASSERT_FALSE(f.ok()) << "truncated to " << len << " bytes was accepted";
    expect_well_formed_error(f.error());
    EXPECT_NE(f.error().find("section "), std::string::npos) << f.error();
  }
}

TEST(BellpersonCorrupt, TruncatedAtSectionBoundaries) {
  const Bytes& full = fx().bytes;
  for (const auto& si : fx().lay.sections) {
    if (si.section == bp::Section::kVk) continue;
    const std::string s = bp::section_name(si.section);
    // Cut right before the count.
    Bytes cut(full.begin(), full.begin() + std::ptrdiff_t(si.count_offset));
    auto f = bp::ParamsFile::from_bytes(cut, kName);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error(), kName + ": section " + s + " count" + at(si.count_offset) +
                             "truncated: the file ends at byte " + std::to_string(si.count_offset));
    // Cut inside the count.
    cut.assign(full.begin(), full.begin() + std::ptrdiff_t(si.count_offset + 2));
    f = bp::ParamsFile::from_bytes(cut, kName);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().find("section " + s + " count" + at(si.count_offset) + "truncated"), std::string::npos);
    // Cut right after the count, and one byte before the section's end.
    for (std::uint64_t end : {si.offset, si.end - 1}) {
      if (end < si.offset || si.count == 0) continue;
      cut.assign(full.begin(), full.begin() + std::ptrdiff_t(end));
      f = bp::ParamsFile::from_bytes(cut, kName);
      ASSERT_FALSE(f.ok());
      const std::uint64_t need = std::uint64_t(si.count) * si.point_bytes;
      EXPECT_EQ(f.error(), kName + ": section " + s + at(si.offset) + std::to_string(si.count) + " points of " +
                               std::to_string(si.point_bytes) + " bytes need " + std::to_string(need) +
                               " bytes, only " + std::to_string(end - si.offset) +
                               " remain (truncated file or corrupt count)");
    }
  }
  // Inside the vk points.
  for (const auto& p : kVk) {
    Bytes cut(full.begin(), full.begin() + std::ptrdiff_t(p.offset + p.bytes / 2));
    auto f = bp::ParamsFile::from_bytes(cut, kName);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error(), kName + ": section vk point " + p.name + at(p.offset) + "truncated: the file ends at byte " +
                             std::to_string(p.offset + p.bytes / 2));
  }
}

TEST(BellpersonCorrupt, TruncatedVkFile) {
  Bytes vk = bp::encode_vk(fx().pk.vk).value();
  ASSERT_TRUE(bp::parse_vk(vk, "t.vk").ok());
  for (std::size_t len = 0; len < vk.size(); ++len) {
    auto r = bp::parse_vk(std::span<const std::uint8_t>(vk.data(), len), "t.vk");
    ASSERT_FALSE(r.ok()) << len;
    expect_well_formed_error(r.error(), "t.vk");
  }
  Bytes longer = vk;
  longer.push_back(0);
  auto r = bp::parse_vk(longer, "t.vk");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "t.vk: 1 unexpected bytes after section ic at offset " + std::to_string(vk.size()) +
                           " (the file should end there)");
}

TEST(BellpersonCorrupt, CountsThatOverrunTheFile) {
  for (const auto& si : fx().lay.sections) {
    if (si.section == bp::Section::kVk) continue;
    const std::string s = bp::section_name(si.section);
    for (std::uint32_t count : {0xffffffffu, 0x80000000u, 0x01000000u}) {
      Bytes b = fx().bytes;
      put_u32be(b, si.count_offset, count);
      auto f = bp::ParamsFile::from_bytes(b, kName);
      ASSERT_FALSE(f.ok());
      const std::uint64_t need = std::uint64_t(count) * si.point_bytes;
      EXPECT_EQ(f.error(), kName + ": section " + s + at(si.offset) + std::to_string(count) + " points of " +
                               std::to_string(si.point_bytes) + " bytes need " + std::to_string(need) +
                               " bytes, only " + std::to_string(b.size() - si.offset) +
                               " remain (truncated file or corrupt count)");
    }
    // Off by one in either direction: the following count is then read from point data, or bytes
    // are left over; either way a one-line error and no crash.
    for (int delta : {1, -1, 2}) {
      if (si.count == 0 && delta < 0) continue;
      Bytes b = fx().bytes;
      put_u32be(b, si.count_offset, std::uint32_t(std::int64_t(si.count) + delta));
      std::string e = open_and_decode(b);
      ASSERT_FALSE(e.empty()) << s << " count " << delta;
      expect_well_formed_error(e);
    }
  }
}

TEST(BellpersonCorrupt, TrailingBytesAndCountMismatches) {
  Bytes b = fx().bytes;
  b.push_back(0x42);
  auto f = bp::ParamsFile::from_bytes(b, kName);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), kName + ": 1 unexpected bytes after section b_g2 at offset " +
                           std::to_string(fx().bytes.size()) + " (the file should end there)");

  // b_g2 one point shorter than b_g1.
  const auto& bg2 = fx().lay.get(bp::Section::kBG2);
  b = fx().bytes;
  b.resize(b.size() - 192);
  put_u32be(b, bg2.count_offset, bg2.count - 1);
  f = bp::ParamsFile::from_bytes(b, kName);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), kName + ": section b_g2 count" + at(bg2.count_offset) + std::to_string(bg2.count - 1) +
                           " points, but b_g1 has " + std::to_string(bg2.count) + " (they must match)");

  // h with 14 points (not 2^k - 1): drop its last point.
  const auto& h = fx().lay.get(bp::Section::kH);
  b = fx().bytes;
  b.erase(b.begin() + std::ptrdiff_t(h.end - 96), b.begin() + std::ptrdiff_t(h.end));
  put_u32be(b, h.count_offset, h.count - 1);
  f = bp::ParamsFile::from_bytes(b, kName);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), kName + ": section h count" + at(h.count_offset) +
                           "14 points is not 2^k - 1 (the FFT domain size minus one)");
}

TEST(BellpersonCorrupt, PointOffTheCurve) {
  // Vk points and ic fail at open.
  for (const auto& p : kVk) {
    Bytes b = fx().bytes;
    b[p.offset + p.bytes - 1] ^= 1;  // lowest bit of y (y.c0 for G2)
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_FALSE(f.ok()) << p.name;
    EXPECT_EQ(f.error(), kName + ": section vk point " + p.name + at(p.offset) + (p.bytes == 96 ? "G1" : "G2") +
                             " point is not on the curve");
  }
  for (std::size_t i = 0; i < 3; ++i) {
    Bytes b = fx().bytes;
    std::uint64_t off = point_offset(bp::Section::kIc, i);
    b[off + 95] ^= 1;
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error(), kName + ": section ic point " + std::to_string(i) + at(off) + "G1 point is not on the curve");
  }
  // Vector points fail when decoded (open only reads counts and the vk).
  for (const auto& v : kVec) {
    Bytes b = fx().bytes;
    std::uint64_t off = point_offset(v.s, v.i);
    std::size_t psize = v.s == bp::Section::kBG2 ? 192 : 96;
    b[off + psize - 1] ^= 1;
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_TRUE(f.ok()) << f.error();
    std::string want = kName + ": section " + bp::section_name(v.s) + " point " + std::to_string(v.i) + at(off) +
                       group_of(v.s) + " point is not on the curve";
    EXPECT_EQ(open_and_decode(b), want);
    auto pk = bp::assemble_proving_key(*f, fx().circuit.shape);
    ASSERT_FALSE(pk.ok());
    EXPECT_EQ(pk.error(), want);
  }
}

TEST(BellpersonCorrupt, CoordinateNotBelowP) {
  for (const auto& v : kVec) {
    Bytes b = fx().bytes;
    std::uint64_t off = point_offset(v.s, v.i);
    b[off] = 0x1f;  // flags clear, value > p (p starts with 0x1a)
    for (int k = 1; k < 48; ++k) b[off + k] = 0xff;
    std::string want = kName + ": section " + bp::section_name(v.s) + " point " + std::to_string(v.i) + at(off) +
                       group_of(v.s) + " x is not a canonical field element (>= p)";
    EXPECT_EQ(open_and_decode(b), want);
  }
  Bytes b = fx().bytes;
  for (int k = 48; k < 96; ++k) b[k] = 0xff;  // alpha_g1.y
  auto f = bp::ParamsFile::from_bytes(b, kName);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), kName + ": section vk point alpha_g1 at offset 0: G1 y is not a canonical field element (>= p)");
}

TEST(BellpersonCorrupt, FlippedFlagBits) {
  struct Case {
    std::uint8_t bit;
    const char* why;
  };
  const Case cases[] = {{0x80, "compression flag is set for an uncompressed encoding"},
                        {0x40, "infinity flag set but other bits are not zero"},
                        {0x20, "sign flag set in an uncompressed encoding"}};
  for (const auto& c : cases) {
    for (const auto& p : kVk) {
      Bytes b = fx().bytes;
      b[p.offset] ^= c.bit;
      auto f = bp::ParamsFile::from_bytes(b, kName);
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.error(), kName + ": section vk point " + p.name + at(p.offset) + (p.bytes == 96 ? "G1" : "G2") +
                               " point: " + c.why);
    }
    {
      Bytes b = fx().bytes;
      std::uint64_t off = point_offset(bp::Section::kIc, 1);
      b[off] ^= c.bit;
      auto f = bp::ParamsFile::from_bytes(b, kName);
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.error(), kName + ": section ic point 1" + at(off) + "G1 point: " + c.why);
    }
    for (const auto& v : kVec) {
      Bytes b = fx().bytes;
      std::uint64_t off = point_offset(v.s, v.i);
      b[off] ^= c.bit;
      EXPECT_EQ(open_and_decode(b), kName + ": section " + bp::section_name(v.s) + " point " + std::to_string(v.i) +
                                        at(off) + group_of(v.s) + " point: " + c.why);
    }
  }
}

TEST(BellpersonCorrupt, IdentityWhereNoneIsAllowed) {
  auto make_identity = [](Bytes& b, std::uint64_t off, std::size_t n) {
    std::memset(b.data() + off, 0, n);
    b[off] = 0x40;
  };
  // ic: rejected at open.
  for (std::size_t i = 0; i < 3; ++i) {
    Bytes b = fx().bytes;
    std::uint64_t off = point_offset(bp::Section::kIc, i);
    make_identity(b, off, 96);
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error(),
              kName + ": section ic point " + std::to_string(i) + at(off) + "point at infinity (not allowed here)");
    auto vk = bp::parse_vk(std::span<const std::uint8_t>(b.data(), fx().lay.vk_bytes()), "t.vk");
    ASSERT_FALSE(vk.ok());
    EXPECT_EQ(vk.error(),
              "t.vk: section ic point " + std::to_string(i) + at(off) + "point at infinity (not allowed here)");
  }
  // h, l, a, b_g1, b_g2: rejected at decode, accepted with allow_identity.
  for (const auto& v : kVec) {
    Bytes b = fx().bytes;
    std::uint64_t off = point_offset(v.s, v.i);
    make_identity(b, off, v.s == bp::Section::kBG2 ? 192 : 96);
    EXPECT_EQ(open_and_decode(b), kName + ": section " + bp::section_name(v.s) + " point " + std::to_string(v.i) +
                                      at(off) + "point at infinity (not allowed here)");
    bp::DecodeOptions allow;
    allow.allow_identity = true;
    EXPECT_EQ(open_and_decode(b, allow), "");
  }
  // alpha..delta: bellperson reads them with from_uncompressed, which accepts the identity.
  for (const auto& p : kVk) {
    Bytes b = fx().bytes;
    make_identity(b, p.offset, p.bytes);
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_TRUE(f.ok()) << p.name << ": " << f.error();
  }
  // ...but the prover refuses an identity delta when the key is assembled.
  Bytes b = fx().bytes;
  make_identity(b, 576, 96);
  auto f = bp::ParamsFile::from_bytes(b, kName);
  ASSERT_TRUE(f.ok());
  auto pk = bp::assemble_proving_key(*f, fx().circuit.shape);
  ASSERT_FALSE(pk.ok());
  EXPECT_EQ(pk.error(), kName + ": proving key: delta is the identity");
}

// Points on the curve outside the prime-order subgroup.
G1Affine g1_outside_subgroup() {
  for (std::uint64_t x = 1;; ++x) {
    Fp fx_ = Fp::from_u64(x);
    auto y = (fx_.square() * fx_ + math::G1Curve::b()).sqrt();
    if (!y) continue;
    G1Affine p = G1Affine::from_xy(fx_, *y);
    if (p.is_on_curve() && !math::in_prime_subgroup(p)) return p;
  }
}
G2Affine g2_outside_subgroup() {
  for (std::uint64_t x = 1;; ++x) {
    Fp2 fx_{Fp::from_u64(x), Fp::one()};
    auto y = (fx_.square() * fx_ + math::G2Curve::b()).sqrt();
    if (!y) continue;
    G2Affine p = G2Affine::from_xy(fx_, *y);
    if (p.is_on_curve() && !math::in_prime_subgroup(p)) return p;
  }
}

TEST(BellpersonCorrupt, SubgroupChecks) {
  auto g1 = math::g1_to_uncompressed(g1_outside_subgroup());
  auto g2 = math::g2_to_uncompressed(g2_outside_subgroup());
  bp::DecodeOptions checked;
  checked.subgroup = math::SubgroupCheck::kCheck;
  for (const auto& v : kVec) {
    Bytes b = fx().bytes;
    std::uint64_t off = point_offset(v.s, v.i);
    if (v.s == bp::Section::kBG2) std::memcpy(b.data() + off, g2.data(), 192);
    else std::memcpy(b.data() + off, g1.data(), 96);
    EXPECT_EQ(open_and_decode(b), "") << "bellperson skips the subgroup check on the big vectors";
    EXPECT_EQ(open_and_decode(b, checked), kName + ": section " + bp::section_name(v.s) + " point " +
                                               std::to_string(v.i) + at(off) + group_of(v.s) +
                                               " point is not in the prime-order subgroup");
  }
  // The vk is subgroup-checked by default.
  for (const auto& p : kVk) {
    Bytes b = fx().bytes;
    if (p.bytes == 192) std::memcpy(b.data() + p.offset, g2.data(), 192);
    else std::memcpy(b.data() + p.offset, g1.data(), 96);
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error(), kName + ": section vk point " + p.name + at(p.offset) + (p.bytes == 96 ? "G1" : "G2") +
                             " point is not in the prime-order subgroup");
    bp::OpenOptions skip;
    skip.vk_subgroup = math::SubgroupCheck::kSkip;
    EXPECT_TRUE(bp::ParamsFile::from_bytes(b, kName, skip).ok());
  }
}

TEST(BellpersonCorrupt, ParallelDecodeReportsTheLowestBadPoint) {
  // A large h (2^15 - 1 points) made by repeating the key's points.
  bp::ParamsContents c;
  c.vk = fx().pk.vk;
  for (std::size_t i = 0; i < (1u << 15) - 1; ++i) c.h.push_back(fx().pk.h[i % fx().pk.h.size()]);
  c.l = fx().pk.l;
  c.a = fx().pk.a;
  c.b_g1 = fx().pk.b_g1;
  c.b_g2 = fx().pk.b_g2;
  Bytes b = bp::encode_params(bp::ParamsRef::of(c)).value();
  auto lay = bp::parse_params_layout(b, kName).value();
  const auto& h = lay.get(bp::Section::kH);
  for (std::size_t idx : {30000u, 9000u, 20000u}) b[h.offset + idx * 96 + 95] ^= 1;
  for (std::size_t threads : {1, 2, 4, 7}) {
    bp::DecodeOptions opt;
    opt.threads = threads;
    auto f = bp::ParamsFile::from_bytes(b, kName);
    ASSERT_TRUE(f.ok());
    auto r = f->h().decode(opt);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), kName + ": section h point 9000" + at(h.offset + 9000 * 96) + "G1 point is not on the curve")
        << threads;
  }
}

TEST(BellpersonCorrupt, RandomByteFlipsNeverCrash) {
  std::mt19937_64 rng(2026);
  const Bytes& full = fx().bytes;
  int rejected = 0, changed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Bytes b = full;
    int flips = 1 + int(rng() % 3);
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] ^= std::uint8_t(1u << (rng() % 8));
    if (rng() % 8 == 0) b.resize(rng() % b.size());
    if (b == full) continue;  // two flips of the same bit
    ++changed;
    std::string e = open_and_decode(b);
    if (!e.empty()) {
      ++rejected;
      EXPECT_TRUE(one_line(e)) << e;
      EXPECT_EQ(e.rfind(kName + ": ", 0), 0u) << e;
    }
  }
  // A flipped bit in a count or a point is always caught (the point encodings are canonical).
  EXPECT_EQ(rejected, changed);
  EXPECT_GT(changed, 2900);
}

}  // namespace
}  // namespace cuzk
