// The section-by-section TEST-ONLY key writer (test_params_writer.hpp) against the in-memory path:
// write_params(generate_test_key(...)) and write_vk must give the very same bytes, whatever the slice
// size and thread count; a key that bellperson would reject fails without leaving files behind.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "../common/random_shape.hpp"
#include "bp_test_util.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "formats/bellperson/writer.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::test_bp {
namespace {

namespace bp = formats::bellperson;

std::vector<std::uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void expect_same_as_in_memory(const R1csShape& shape, std::uint64_t seed, const bp::TestParamsOptions& opt) {
  TempDir dir;
  auto toxic = groth16::ToxicWaste::from_seed(seed);
  auto pk = groth16::generate_test_key(shape, groth16::HBasis::kMonomialOverZ, toxic);
  ASSERT_TRUE(pk.ok()) << pk.error();
  ASSERT_TRUE(bp::write_params(dir.file("ref.params"), *pk).ok());
  ASSERT_TRUE(bp::write_vk(dir.file("ref.vk"), pk->vk).ok());
  bp::TestParamsReport rep;
  auto st = bp::write_test_params(shape, toxic, dir.file("s.params"), dir.file("s.vk"), opt, &rep);
  ASSERT_TRUE(st.ok()) << st.error();
  auto ref = slurp(dir.file("ref.params")), got = slurp(dir.file("s.params"));
  EXPECT_EQ(got.size(), ref.size());
  EXPECT_TRUE(got == ref) << "chunk " << opt.chunk << " threads " << opt.threads;
  EXPECT_TRUE(slurp(dir.file("s.vk")) == slurp(dir.file("ref.vk")));
  // The report names every section with its size.
  ASSERT_EQ(rep.sections.size(), 6u);
  EXPECT_EQ(rep.sections[1].name, "h");
  EXPECT_EQ(rep.sections[1].points, pk->h.size());
  EXPECT_EQ(rep.sections[2].points, pk->l.size());
  EXPECT_EQ(rep.sections[3].points, pk->a.size());
  EXPECT_EQ(rep.sections[5].points, pk->b_g2.size());
  for (auto e : std::filesystem::directory_iterator(dir.str())) {
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

// Options without progress (designated initializers would leave `progress` to a warning).
bp::TestParamsOptions options(std::size_t threads, groth16::FixedBaseMultiplier* multiplier, std::size_t chunk) {
  bp::TestParamsOptions o;
  o.threads = threads;
  o.multiplier = multiplier;
  o.chunk = chunk;
  return o;
}

TEST(TestParamsWriter, SmallCircuitMatchesInMemoryKey) {
  auto c = small_circuit();
  expect_same_as_in_memory(c.shape, 11, {});
  expect_same_as_in_memory(c.shape, 11, options(1, nullptr, 1));
}

TEST(TestParamsWriter, RandomShapeAnySliceSize) {
  auto shape = test::random_shape(700, 4, 600, 5);  // 704 rows: domain 1024, h = 1023
  for (std::size_t chunk : {std::size_t(1) << 22, std::size_t(7), std::size_t(256), std::size_t(1023)}) {
    expect_same_as_in_memory(shape, 12, options(3, nullptr, chunk));
  }
}

TEST(TestParamsWriter, ExplicitMultiplierAndReadBack) {
  auto shape = test::random_shape(300, 3, 250, 6);
  auto mul = groth16::make_cpu_fixed_base_multiplier(2);
  expect_same_as_in_memory(shape, 13, options(2, mul.get(), 64));
  // The file loads as a proving key for its shape.
  TempDir dir;
  ASSERT_TRUE(bp::write_test_params(shape, groth16::ToxicWaste::from_seed(13), dir.file("k.params"), "").ok());
  auto pk = bp::load_proving_key(dir.file("k.params"), shape);
  ASSERT_TRUE(pk.ok()) << pk.error();
  EXPECT_EQ(pk->l.size(), 250u);
}

TEST(TestParamsWriter, RefusesIdentityAndLeavesNoFile) {
  // Variable 3 (aux) appears nowhere: its l point would be the identity.
  R1csShape s;
  s.num_inputs = 2;
  s.num_aux = 2;
  std::vector<Term> a = {{1, Fr::one()}}, b = {{2, Fr::one()}}, c = {{2, Fr::one()}};
  s.a.add_row(a);
  s.b.add_row(b);
  s.c.add_row(c);
  s.append_input_rows();
  TempDir dir;
  auto st = bp::write_test_params(s, groth16::ToxicWaste::from_seed(1), dir.file("x.params"), dir.file("x.vk"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("cannot write section l: point 1 is the identity"), std::string::npos) << st.error();
  EXPECT_TRUE(one_line(st.error()));
  EXPECT_TRUE(std::filesystem::is_empty(dir.str()));
}

TEST(TestParamsWriter, ThreadCountDoesNotChangeTheKey) {
  auto shape = test::random_shape(5000, 5, 4000, 8);
  TempDir dir;
  auto toxic = groth16::ToxicWaste::from_seed(21);
  ASSERT_TRUE(
      bp::write_test_params(shape, toxic, dir.file("1.params"), "", options(1, nullptr, std::size_t(1) << 23)).ok());
  ASSERT_TRUE(bp::write_test_params(shape, toxic, dir.file("4.params"), "", options(4, nullptr, 999)).ok());
  EXPECT_TRUE(slurp(dir.file("1.params")) == slurp(dir.file("4.params")));
}

// Progress (`cuzk setup`'s lines): multiplier calls split into progress_points pieces give the same
// bytes; the reports run "QAP at tau" (0, 0), then every section in order with a count that only
// grows, to done == total == every point of the key.
TEST(TestParamsWriter, ProgressPiecesKeepTheBytesAndCountEveryPoint) {
  auto shape = test::random_shape(700, 4, 600, 5);
  struct Report {
    std::string stage;
    std::size_t done, total;
  };
  std::vector<Report> reports;
  bp::TestParamsOptions opt = options(2, nullptr, 256);
  opt.progress = [&](const char* stage, std::size_t done, std::size_t total) {
    reports.push_back({stage, done, total});
  };
  opt.progress_points = 7;  // 256-point slices in pieces of 7, 7, ..., 4
  expect_same_as_in_memory(shape, 12, opt);
  ASSERT_GE(reports.size(), 3u);
  EXPECT_EQ(reports[0].stage, "QAP at tau");
  EXPECT_EQ(reports[0].total, 0u);
  EXPECT_EQ(reports[1].stage, "vk");
  const std::size_t total = reports.back().total;
  EXPECT_EQ(reports.back().done, total);
  EXPECT_EQ(reports.back().stage, "b_g2");
  std::vector<std::string> order;
  std::size_t pieces_h = 0;
  for (std::size_t i = 1; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].total, total);
    if (i > 1) {
      EXPECT_GT(reports[i].done, reports[i - 1].done);
    }
    if (order.empty() || order.back() != reports[i].stage) order.push_back(reports[i].stage);
    if (reports[i].stage == "h") ++pieces_h;
  }
  EXPECT_EQ(order, (std::vector<std::string>{"vk", "h", "l", "a", "b_g1", "b_g2"}));
  // h = 1023 points: slices of 256 (4 slices), each in ceil(256 / 7) = 37 pieces (the last 255: 37).
  EXPECT_EQ(pieces_h, 4u * 37u);
  // Every point of the key: vk (6 + ic) + h + l + a + b_g1 + b_g2, the report's section sizes.
  bp::TestParamsReport rep;
  TempDir dir;
  ASSERT_TRUE(
      bp::write_test_params(shape, groth16::ToxicWaste::from_seed(12), dir.file("r.params"), "", {}, &rep).ok());
  std::size_t points = 0;
  for (const auto& sec : rep.sections) points += sec.points;
  EXPECT_EQ(total, points);
}

}  // namespace
}  // namespace cuzk::test_bp
