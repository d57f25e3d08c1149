// Round trips and layout of bellperson .params/.vk/.meta files.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "bp_test_util.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/point_decode.hpp"
#include "formats/bellperson/writer.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk {
namespace {

namespace bp = formats::bellperson;
using namespace test_bp;
using groth16::ProvingKey;
using math::G1Affine;
using math::G2Affine;

std::vector<std::uint8_t> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::uint8_t> encode(const ProvingKey& pk) {
  auto r = bp::encode_params(bp::ParamsRef::of(pk));
  EXPECT_TRUE(r.ok()) << r.error();
  return std::move(r).value();
}

void expect_same_key_points(const ProvingKey& a, const ProvingKey& b) {
  EXPECT_EQ(a.vk.alpha_g1, b.vk.alpha_g1);
  EXPECT_EQ(a.vk.beta_g1, b.vk.beta_g1);
  EXPECT_EQ(a.vk.beta_g2, b.vk.beta_g2);
  EXPECT_EQ(a.vk.gamma_g2, b.vk.gamma_g2);
  EXPECT_EQ(a.vk.delta_g1, b.vk.delta_g1);
  EXPECT_EQ(a.vk.delta_g2, b.vk.delta_g2);
  EXPECT_EQ(a.vk.ic, b.vk.ic);
  EXPECT_EQ(a.h, b.h);
  EXPECT_EQ(a.l, b.l);
  EXPECT_EQ(a.a, b.a);
  EXPECT_EQ(a.b_g1, b.b_g1);
  EXPECT_EQ(a.b_g2, b.b_g2);
}

TEST(BellpersonParams, SmallCircuitShape) {
  auto c = small_circuit();
  ASSERT_FALSE(groth16::first_unsatisfied_row(c.shape, c.witness).has_value());
  auto d = bp::CircuitDensities::from_shape(c.shape);
  EXPECT_EQ(d.num_inputs, 3u);
  EXPECT_EQ(d.num_aux, 5u);
  EXPECT_EQ(d.domain_log2, 4u);
  EXPECT_EQ(d.a_aux.popcount, 3u);
  EXPECT_EQ(d.b_input.popcount, 3u);
  EXPECT_EQ(d.b_aux.popcount, 1u);
}

TEST(BellpersonParams, LayoutOfTestKey) {
  auto c = small_circuit();
  ProvingKey pk = make_key(c.shape, 11);
  auto bytes = encode(pk);
  // 864 + 6 counts + (3 ic + 15 h + 5 l + 6 a + 4 b_g1) * 96 + 4 * 192
  const std::uint64_t want = 864 + 24 + (3 + 15 + 5 + 6 + 4) * 96 + 4 * 192;
  ASSERT_EQ(bytes.size(), want);
  EXPECT_EQ(bp::params_file_size(bp::ParamsRef::of(pk)), want);
  auto f = bp::ParamsFile::from_bytes(bytes, "x.params");
  ASSERT_TRUE(f.ok()) << f.error();
  const auto& lay = f->layout();
  ASSERT_EQ(lay.sections.size(), 7u);
  EXPECT_EQ(lay.get(bp::Section::kIc).count_offset, 864u);
  EXPECT_EQ(lay.get(bp::Section::kIc).offset, 868u);
  EXPECT_EQ(lay.get(bp::Section::kIc).count, 3u);
  EXPECT_EQ(lay.get(bp::Section::kH).count_offset, 868u + 3 * 96);
  EXPECT_EQ(lay.get(bp::Section::kH).count, 15u);
  EXPECT_EQ(lay.get(bp::Section::kL).count, 5u);
  EXPECT_EQ(lay.get(bp::Section::kA).count, 6u);
  EXPECT_EQ(lay.get(bp::Section::kBG1).count, 4u);
  EXPECT_EQ(lay.get(bp::Section::kBG2).count, 4u);
  EXPECT_EQ(lay.get(bp::Section::kBG2).point_bytes, 192u);
  EXPECT_EQ(lay.get(bp::Section::kBG2).end, want);
  EXPECT_EQ(lay.vk_bytes(), 868u + 3 * 96);
  EXPECT_EQ(f->domain_log2(), 4u);
  EXPECT_EQ(f->num_inputs(), 3u);
  EXPECT_EQ(f->num_aux(), 5u);
  // Counts are big-endian u32.
  EXPECT_EQ(bytes[864], 0);
  EXPECT_EQ(bytes[867], 3);
  EXPECT_FALSE(f->mapped());
}

TEST(BellpersonParams, TestKeyWriteReadIdenticalBytes) {
  auto c = small_circuit();
  ProvingKey pk = make_key(c.shape, 12);
  TempDir dir;
  const std::string path = dir.file("small.params");
  ASSERT_TRUE(bp::write_params(path, pk).ok());
  auto written = read_all(path);
  EXPECT_EQ(written, encode(pk));

  auto f = bp::ParamsFile::open(path);
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_TRUE(f->mapped());
  EXPECT_EQ(f->name(), path);
  EXPECT_EQ(f->file_size(), written.size());

  // read -> decode everything -> write again: identical bytes.
  auto all = bp::decode_all(*f);
  ASSERT_TRUE(all.ok()) << all.error();
  const std::string path2 = dir.file("again.params");
  ASSERT_TRUE(bp::write_params(path2, bp::ParamsRef::of(*all)).ok());
  EXPECT_EQ(read_all(path2), written);

  // The assembled key is the generated key.
  auto pk2 = bp::assemble_proving_key(*f, c.shape);
  ASSERT_TRUE(pk2.ok()) << pk2.error();
  expect_same_key_points(pk, *pk2);
  EXPECT_EQ(pk2->num_inputs, pk.num_inputs);
  EXPECT_EQ(pk2->num_aux, pk.num_aux);
  EXPECT_EQ(pk2->domain_log2, pk.domain_log2);
  EXPECT_EQ(pk2->a_aux_density.bits, pk.a_aux_density.bits);
  EXPECT_EQ(pk2->b_input_density.bits, pk.b_input_density.bits);
  EXPECT_EQ(pk2->b_aux_density.bits, pk.b_aux_density.bits);
  EXPECT_TRUE(pk2->check_consistency().ok());

  auto pk3 = bp::load_proving_key(path, c.shape);
  ASSERT_TRUE(pk3.ok()) << pk3.error();
  expect_same_key_points(pk, *pk3);
  auto wrong = bp::load_proving_key(path, chain_circuit(3).shape);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("do not belong to this circuit"), std::string::npos) << wrong.error();
}

TEST(BellpersonParams, ChainCircuitRoundTripParallel) {
  auto c = chain_circuit(3000);  // 3002 rows -> domain 4096
  ProvingKey pk = make_key(c.shape, 13);
  auto bytes = encode(pk);
  auto f = bp::ParamsFile::from_bytes(bytes, "chain.params");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->domain_log2(), 12u);
  for (std::size_t threads : {1, 2, 3, 8}) {
    bp::DecodeOptions opt;
    opt.threads = threads;
    auto h = f->h().decode(opt);
    ASSERT_TRUE(h.ok()) << h.error();
    EXPECT_EQ(*h, pk.h) << threads;
    auto b2 = f->b_g2().decode(opt);
    ASSERT_TRUE(b2.ok()) << b2.error();
    EXPECT_EQ(*b2, pk.b_g2);
  }
  // Subgroup-checked decode agrees.
  bp::DecodeOptions checked;
  checked.subgroup = math::SubgroupCheck::kCheck;
  auto l = f->l().decode(checked);
  ASSERT_TRUE(l.ok()) << l.error();
  EXPECT_EQ(*l, pk.l);
  // Partial decode and single points.
  std::vector<G1Affine> part(100);
  ASSERT_TRUE(f->a().decode_into(std::span<G1Affine>(part), 50).ok());
  for (std::size_t i = 0; i < part.size(); ++i) EXPECT_EQ(part[i], pk.a[50 + i]);
  auto one = f->a().at(7);
  ASSERT_TRUE(one.ok()) << one.error();
  EXPECT_EQ(*one, pk.a[7]);
  EXPECT_EQ(f->b_g1().size(), 1u);  // B holds only the aux variable b
  auto out_of_range = f->h().at(f->h().size());
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().find("out of range"), std::string::npos) << out_of_range.error();

  auto pk2 = bp::assemble_proving_key(*f, c.shape);
  ASSERT_TRUE(pk2.ok()) << pk2.error();
  expect_same_key_points(pk, *pk2);
  auto again = bp::encode_params(bp::ParamsRef::of(*pk2));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, bytes);
}

// A key held without its bases (Bases::kFromFile, issue 27): counts and densities as decoded, every
// query read from the mapped file in pieces equal to the decoded one, load_bases() gives the decoded
// key, and a corrupt point is reported by the piece that reads it.
TEST(BellpersonParams, KeyFromFileReadsTheSameBasesInPieces) {
  auto c = chain_circuit(3000);
  ProvingKey pk = make_key(c.shape, 13);
  TempDir dir;
  const std::string path = dir.file("chain.params");
  ASSERT_TRUE(bp::write_params(path, pk).ok());
  auto lazy = bp::load_proving_key(path, c.shape, {}, {}, bp::Bases::kFromFile);
  ASSERT_TRUE(lazy.ok()) << lazy.error();
  EXPECT_FALSE(lazy->holds_bases());
  EXPECT_TRUE(lazy->h.empty() && lazy->l.empty() && lazy->a.empty() && lazy->b_g1.empty() && lazy->b_g2.empty());
  EXPECT_TRUE(lazy->check_consistency().ok());
  using groth16::Query;
  EXPECT_EQ(lazy->query_size(Query::kH), pk.h.size());
  EXPECT_EQ(lazy->query_size(Query::kA), pk.a.size());
  EXPECT_EQ(lazy->query_size(Query::kBG2), pk.b_g2.size());
  EXPECT_EQ(lazy->source->size(Query::kL), pk.l.size());
  // pieces of 777 points (not a divisor of any query's length)
  for (auto [q, want] :
       {std::pair{Query::kH, &pk.h}, {Query::kL, &pk.l}, {Query::kA, &pk.a}, {Query::kBG1, &pk.b_g1}}) {
    std::vector<G1Affine> got(want->size());
    for (std::size_t first = 0; first < got.size(); first += 777) {
      const std::size_t n = std::min<std::size_t>(777, got.size() - first);
      ASSERT_TRUE(lazy->source->read(q, first, std::span<G1Affine>(got.data() + first, n)).ok());
    }
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want->begin())) << groth16::query_name(q);
  }
  ProvingKey full = *lazy;  // shares the source
  ASSERT_TRUE(full.load_bases().ok());
  EXPECT_TRUE(full.holds_bases());
  expect_same_key_points(pk, full);
  EXPECT_FALSE(lazy->source->read(Query::kBG2, 0, std::span<G1Affine>()).ok());  // G2 through read_b_g2 only
  auto past = lazy->source->read(Query::kL, pk.l.size(), std::span<G1Affine>(full.l.data(), 1));
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().find("out of range"), std::string::npos) << past.error();
  // A point off the curve in L: the lazy key opens (nothing is decoded), the piece holding it fails.
  auto bytes = read_all(path);
  auto f = bp::ParamsFile::from_bytes(bytes, "x.params");
  ASSERT_TRUE(f.ok());
  const std::uint64_t at = f->l().info().offset + 5 * bp::kG1Bytes + 50;
  bytes[at] ^= 0x01;
  const std::string bad_path = dir.file("bad.params");
  {
    std::ofstream out(bad_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  auto bad = bp::load_proving_key(bad_path, c.shape, {}, {}, bp::Bases::kFromFile);
  ASSERT_TRUE(bad.ok()) << bad.error();
  std::vector<G1Affine> piece(10);
  auto e = bad->source->read(Query::kL, 0, std::span<G1Affine>(piece));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("section l point 5"), std::string::npos) << e.error();
  ProvingKey bad_full = *bad;
  EXPECT_FALSE(bad_full.load_bases().ok());
}

TEST(BellpersonParams, RawViewsAreTheFileBytes) {
  auto c = small_circuit();
  ProvingKey pk = make_key(c.shape, 14);
  auto bytes = encode(pk);
  auto f = bp::ParamsFile::from_bytes(bytes, "x.params");
  ASSERT_TRUE(f.ok());
  auto raw = f->l().raw(2);
  auto enc = math::g1_to_uncompressed(pk.l[2]);
  ASSERT_EQ(raw.size(), enc.size());
  EXPECT_TRUE(std::equal(raw.begin(), raw.end(), enc.begin()));
  EXPECT_EQ(f->b_g2().raw_all().size(), 4u * 192);
}

TEST(BellpersonParams, CircuitMismatchIsReported) {
  auto c = small_circuit();
  ProvingKey pk = make_key(c.shape, 15);
  auto f = bp::ParamsFile::from_bytes(encode(pk), "x.params");
  ASSERT_TRUE(f.ok());
  // Another circuit: the chain has different counts everywhere.
  auto other = chain_circuit(4);
  auto st = bp::check_params_match(*f, bp::CircuitDensities::from_shape(other.shape));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(one_line(st.error()));
  EXPECT_NE(st.error().find("x.params: section ic count at offset 864: 3 points, but the circuit needs 2"),
            std::string::npos)
      << st.error();
  EXPECT_NE(st.error().find("do not belong to this circuit"), std::string::npos);
  // Same counts except one density bit moved: a's count no longer matches.
  auto d = bp::CircuitDensities::from_shape(c.shape);
  auto bits = d.a_aux.bits;
  bits[3] = true;  // w "used in A"
  d.a_aux = groth16::Density::from_bits(bits);
  auto r = bp::assemble_proving_key(*f, d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("section a count"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("3 inputs + 4 aux variables used in A"), std::string::npos) << r.error();
  // Domain mismatch.
  d = bp::CircuitDensities::from_shape(c.shape);
  d.domain_log2 = 5;
  auto h = bp::check_params_match(*f, d);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().find("section h count"), std::string::npos) << h.error();
}

TEST(BellpersonParams, VkFileIsTheParamsPrefix) {
  auto c = small_circuit();
  ProvingKey pk = make_key(c.shape, 16);
  auto params = encode(pk);
  auto vk = bp::encode_vk(pk.vk);
  ASSERT_TRUE(vk.ok());
  ASSERT_EQ(vk->size(), 868u + 3 * 96);
  EXPECT_TRUE(std::equal(vk->begin(), vk->end(), params.begin()));

  TempDir dir;
  ASSERT_TRUE(bp::write_vk(dir.file("k.vk"), pk.vk).ok());
  EXPECT_EQ(read_all(dir.file("k.vk")), *vk);
  auto parsed = bp::read_vk_file(dir.file("k.vk"));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->vk.ic, pk.vk.ic);
  EXPECT_EQ(parsed->vk.delta_g2, pk.vk.delta_g2);
  EXPECT_EQ(parsed->layout.file_size, vk->size());
  auto again = bp::encode_vk(parsed->vk);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *vk);

  auto f = bp::ParamsFile::from_bytes(params, "x.params");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(std::equal(f->vk_bytes().begin(), f->vk_bytes().end(), vk->begin(), vk->end()));

  // A .params file is not a .vk file (and vice versa).
  auto as_vk = bp::parse_vk(params, "x.params");
  ASSERT_FALSE(as_vk.ok());
  EXPECT_NE(as_vk.error().find("unexpected bytes after section ic"), std::string::npos) << as_vk.error();
  auto as_params = bp::ParamsFile::from_bytes(*vk, "k.vk");
  ASSERT_FALSE(as_params.ok());
  EXPECT_EQ(as_params.error(), "k.vk: section h count at offset " + std::to_string(vk->size()) +
                                   ": truncated: the file ends at byte " + std::to_string(vk->size()));
}

TEST(BellpersonParams, MetaFiles) {
  EXPECT_EQ(bp::encode_meta({2048}), "{\"sector_size\":2048}");
  EXPECT_EQ(bp::encode_meta({34359738368ULL}), "{\"sector_size\":34359738368}");
  TempDir dir;
  ASSERT_TRUE(bp::write_meta(dir.file("a.meta"), {536870912}).ok());
  auto bytes = read_all(dir.file("a.meta"));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "{\"sector_size\":536870912}");
  auto m = bp::read_meta_file(dir.file("a.meta"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->sector_size, 536870912u);

  EXPECT_EQ(bp::parse_meta(" { \"sector_size\" : 8388608 , \"extra\": 1 }\n", "m")->sector_size, 8388608u);
  for (const char* bad : {"", "{", "[]", "{\"sector_size\":-1}", "{\"sector_size\":\"2048\"}", "{\"size\":2048}",
                          "{\"sector_size\":1.5}"}) {
    auto r = bp::parse_meta(bad, "x.meta");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(one_line(r.error()));
    EXPECT_EQ(r.error().rfind("x.meta: ", 0), 0u) << r.error();
  }
  auto missing = bp::read_meta_file(dir.file("nope.meta"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("cannot open"), std::string::npos);
}

TEST(BellpersonParams, WriterRefusesWhatReadersReject) {
  auto c = small_circuit();
  ProvingKey pk = make_key(c.shape, 17);
  ProvingKey bad = pk;
  bad.l[1] = G1Affine::identity();
  auto r = bp::encode_params(bp::ParamsRef::of(bad));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "cannot write section l: point 1 is the identity, which bellperson's reader rejects");
  bp::WriteOptions allow;
  allow.allow_identity = true;
  EXPECT_TRUE(bp::encode_params(bp::ParamsRef::of(bad), allow).ok());

  bad = pk;
  bad.vk.ic[0] = G1Affine::identity();
  EXPECT_FALSE(bp::encode_vk(bad.vk).ok());
  EXPECT_FALSE(bp::encode_params(bp::ParamsRef::of(bad), allow).ok());  // ic identity is never written

  bad = pk;
  bad.b_g2.pop_back();
  EXPECT_FALSE(bp::encode_params(bp::ParamsRef::of(bad)).ok());
  bad = pk;
  bad.h.pop_back();
  auto h = bp::encode_params(bp::ParamsRef::of(bad));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().find("not 2^k - 1"), std::string::npos);

  bad = pk;
  bad.h_basis = groth16::HBasis::kOddCosetLagrange;
  TempDir dir;
  EXPECT_FALSE(bp::write_params(dir.file("x.params"), bad).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.params")));
  // An unwritable path: one-line error, no file left behind.
  auto w = bp::write_params(dir.file("no/such/dir/x.params"), pk);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(one_line(w.error()));
}

TEST(BellpersonParams, FastDecodeAgreesWithGenericDecoder) {
  auto c = chain_circuit(200);
  ProvingKey pk = make_key(c.shape, 18);
  auto bytes = encode(pk);
  auto f = bp::ParamsFile::from_bytes(bytes, "x.params");
  ASSERT_TRUE(f.ok());
  for (std::size_t i = 0; i < f->h().size(); ++i) {
    auto raw = f->h().raw(i);
    auto g = math::g1_from_uncompressed(raw, math::SubgroupCheck::kSkip);
    ASSERT_TRUE(g.ok());
    G1Affine fast;
    ASSERT_FALSE(bp::detail::decode_g1_points(raw.data(), 1, &fast, {}).has_value());
    EXPECT_EQ(fast, *g);
  }
  for (std::size_t i = 0; i < f->b_g2().size(); ++i) {
    auto raw = f->b_g2().raw(i);
    auto g = math::g2_from_uncompressed(raw, math::SubgroupCheck::kSkip);
    ASSERT_TRUE(g.ok());
    G2Affine fast;
    ASSERT_FALSE(bp::detail::decode_g2_points(raw.data(), 1, &fast, {}).has_value());
    EXPECT_EQ(fast, *g);
  }
}

TEST(BellpersonParams, OpenErrorsForMissingFiles) {
  TempDir dir;
  auto r = bp::ParamsFile::open(dir.file("missing.params"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), dir.file("missing.params") + ": cannot open: No such file or directory");
  auto d = bp::ParamsFile::open(dir.str());
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(one_line(d.error()));
  std::ofstream(dir.file("empty.params")).close();
  auto e = bp::ParamsFile::open(dir.file("empty.params"));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(),
            dir.file("empty.params") + ": section vk point alpha_g1 at offset 0: truncated: the file ends at byte 0");
  auto v = bp::read_vk_file(dir.file("empty.params"));
  ASSERT_FALSE(v.ok());
}

}  // namespace
}  // namespace cuzk
