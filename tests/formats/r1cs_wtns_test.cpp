// .r1cs and .wtns readers (and writers) against the snarkjs/circom fixtures.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "fixtures.hpp"
#include "formats/binfile.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_wtns.hpp"

namespace cuzk::formats::test {
namespace {

using groth16::CsrMatrix;
using math::Fr;

std::size_t empty_rows(const CsrMatrix& m) {
  std::size_t n = 0;
  for (std::size_t r = 0; r < m.rows(); ++r) n += m.row_ptr[r] == m.row_ptr[r + 1];
  return n;
}

class Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixture, R1csHeaderAndShapeMatchInfo) {
  const std::string c = GetParam();
  auto info = info_of(c);
  auto r = read_r1cs(r1cs_path(c));
  ASSERT_TRUE(r.ok()) << r.error();
  const R1csHeader& h = r->header;
  EXPECT_EQ(h.n_constraints, info["nConstraints"].get<std::uint32_t>());
  EXPECT_EQ(h.n_wires, info["nVars"].get<std::uint32_t>());
  EXPECT_EQ(h.n_pub_out, info["nOutputs"].get<std::uint32_t>());
  EXPECT_EQ(h.n_pub_in, info["nPublicInputs"].get<std::uint32_t>());
  EXPECT_EQ(h.n_prv_in, info["nPrivateInputs"].get<std::uint32_t>());
  EXPECT_EQ(h.n_labels, info["nLabels"].get<std::uint64_t>());
  EXPECT_EQ(h.n_public(), info["nPublic"].get<std::uint32_t>());

  const auto& s = r->shape;
  EXPECT_TRUE(s.has_c);
  EXPECT_EQ(s.num_inputs, 1 + info["nPublic"].get<std::uint32_t>());
  EXPECT_EQ(s.num_variables(), info["nVars"].get<std::size_t>());
  EXPECT_EQ(s.num_constraints(), info["nConstraints"].get<std::size_t>());
  EXPECT_EQ(s.b.rows(), s.num_constraints());
  EXPECT_EQ(s.c.rows(), s.num_constraints());
  // circom writes no duplicate or zero terms, so the term counts survive merging unchanged.
  ASSERT_EQ(info["r1cs"]["zeroCoefficientTerms"].get<int>(), 0);
  EXPECT_EQ(s.a.nnz(), info["r1cs"]["nTerms"]["A"].get<std::size_t>());
  EXPECT_EQ(s.b.nnz(), info["r1cs"]["nTerms"]["B"].get<std::size_t>());
  EXPECT_EQ(s.c.nnz(), info["r1cs"]["nTerms"]["C"].get<std::size_t>());
  EXPECT_EQ(empty_rows(s.a), info["r1cs"]["aEmpty"].get<std::size_t>());
  EXPECT_EQ(empty_rows(s.b), info["r1cs"]["bEmpty"].get<std::size_t>());
}

TEST_P(Fixture, SectionOrderIsAsRecorded) {
  const std::string c = GetParam();
  auto info = info_of(c);
  auto f = BinFile::open(r1cs_path(c), "r1cs", 1, 1);
  ASSERT_TRUE(f.ok()) << f.error();
  std::vector<std::uint32_t> order;
  for (const auto& s : f->sections()) order.push_back(s.id);
  EXPECT_EQ(order, info["r1cs"]["sectionOrder"].get<std::vector<std::uint32_t>>());
  EXPECT_EQ(order, (std::vector<std::uint32_t>{2, 1, 3}));  // circom's order: not sorted by id
}

TEST_P(Fixture, WitnessesSatisfyTheR1cs) {
  const std::string c = GetParam();
  auto info = info_of(c);
  auto r = read_r1cs(r1cs_path(c));
  ASSERT_TRUE(r.ok()) << r.error();
  for (const char* wf : {"witness.wtns", "witness_other.wtns"}) {
    SCOPED_TRACE(wf);
    auto w = read_wtns(fixture(c, wf));
    ASSERT_TRUE(w.ok()) << w.error();
    ASSERT_EQ(w->size(), info["witness"]["n"].get<std::size_t>());
    ASSERT_EQ(w->size(), r->shape.num_variables());
    EXPECT_TRUE((*w)[0].is_one());
    EXPECT_EQ(groth16::first_unsatisfied_row(r->shape, *w), std::nullopt);
    // Still satisfied with the input rows appended (x_i * 0 = 0).
    auto with_inputs = r->shape;
    with_inputs.append_input_rows();
    EXPECT_EQ(groth16::first_unsatisfied_row(with_inputs, *w), std::nullopt);
  }
  auto w = read_wtns(fixture(c, "witness.wtns"));
  ASSERT_TRUE(w.ok());
  std::size_t zeros = 0, ones = 0;
  for (const auto& v : *w) {
    zeros += v.is_zero();
    ones += v.is_one();
  }
  EXPECT_EQ(zeros, info["witness"]["zeros"].get<std::size_t>());
  EXPECT_EQ(ones, info["witness"]["ones"].get<std::size_t>());
}

TEST_P(Fixture, TamperedWitnessIsUnsatisfied) {
  // Guards the test above against a vacuous checker: changing the last internal signal that any
  // constraint uses must break some row.
  const std::string c = GetParam();
  auto r = read_r1cs(r1cs_path(c));
  auto w = read_wtns(fixture(c, "witness.wtns"));
  ASSERT_TRUE(r.ok() && w.ok());
  auto used = groth16::variable_density(r->shape.a, w->size());
  auto usedb = groth16::variable_density(r->shape.b, w->size());
  auto usedc = groth16::variable_density(r->shape.c, w->size());
  std::size_t v = w->size();
  while (v-- > 1 && !(used[v] || usedb[v] || usedc[v])) {}
  ASSERT_GT(v, 0u);
  auto bad = *w;
  bad[v] += Fr::one();
  EXPECT_NE(groth16::first_unsatisfied_row(r->shape, bad), std::nullopt);
}

TEST_P(Fixture, PublicJsonIsTheWitnessPublicPart) {
  const std::string c = GetParam();
  auto info = info_of(c);
  std::size_t n_public = info["nPublic"].get<std::size_t>();
  for (auto [wf, pf] :
       {std::pair{"witness.wtns", "public.json"}, std::pair{"witness_other.wtns", "public_other.json"}}) {
    SCOPED_TRACE(pf);
    auto w = read_wtns(fixture(c, wf));
    auto p = read_public_json(fixture(c, pf));
    ASSERT_TRUE(w.ok()) << w.error();
    ASSERT_TRUE(p.ok()) << p.error();
    ASSERT_EQ(p->size(), n_public);
    for (std::size_t i = 0; i < n_public; ++i) EXPECT_EQ((*p)[i], (*w)[i + 1]) << i;
    // and writing w[1..nPublic] reproduces snarkjs' bytes
    EXPECT_EQ(public_to_json(std::span(*w).subspan(1, n_public)), text_of(fixture(c, pf)));
  }
}

TEST_P(Fixture, R1csAndWitnessRoundTrip) {
  const std::string c = GetParam();
  auto r = read_r1cs(r1cs_path(c));
  auto w = read_wtns(fixture(c, "witness.wtns"));
  ASSERT_TRUE(r.ok() && w.ok());
  std::string rp = scratch(c + "_rt.r1cs"), wp = scratch(c + "_rt.wtns");
  ASSERT_TRUE(write_r1cs(rp, r->shape, r->header).ok());
  ASSERT_TRUE(write_wtns(wp, *w).ok());
  auto r2 = read_r1cs(rp);
  auto w2 = read_wtns(wp);
  ASSERT_TRUE(r2.ok()) << r2.error();
  ASSERT_TRUE(w2.ok()) << w2.error();
  EXPECT_EQ(*w2, *w);
  // The witness file is byte-identical to snarkjs' (same header, same plain encoding).
  EXPECT_EQ(bytes_of(wp), bytes_of(fixture(c, "witness.wtns")));
  EXPECT_EQ(r2->header.n_wires, r->header.n_wires);
  EXPECT_EQ(r2->header.n_pub_out, r->header.n_pub_out);
  EXPECT_EQ(r2->header.n_pub_in, r->header.n_pub_in);
  EXPECT_EQ(r2->header.n_prv_in, r->header.n_prv_in);
  EXPECT_EQ(r2->header.n_constraints, r->header.n_constraints);
  for (auto m : {&groth16::R1csShape::a, &groth16::R1csShape::b, &groth16::R1csShape::c}) {
    EXPECT_EQ((r2->shape.*m).row_ptr, (r->shape.*m).row_ptr);
    EXPECT_EQ((r2->shape.*m).cols, (r->shape.*m).cols);
    EXPECT_EQ((r2->shape.*m).values(), (r->shape.*m).values());
  }
}

TEST_P(Fixture, MmapAndReadGiveTheSameBytes) {
  const std::string c = GetParam();
  auto a = BinFile::open(zkey_path(c), "zkey", 1, 1, LoadMode::kMmap);
  auto b = BinFile::open(zkey_path(c), "zkey", 1, 1, LoadMode::kRead);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_TRUE(a->mapped());
  EXPECT_FALSE(b->mapped());
  ASSERT_EQ(a->bytes().size(), b->bytes().size());
  EXPECT_TRUE(std::equal(a->bytes().begin(), a->bytes().end(), b->bytes().begin()));
  ASSERT_EQ(a->sections().size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(a->sections()[i].id, b->sections()[i].id);
    EXPECT_EQ(a->sections()[i].size, b->sections()[i].size);
  }
}

INSTANTIATE_TEST_SUITE_P(Snarkjs, Fixture, ::testing::ValuesIn(circuits()),
                         [](const auto& info) { return info.param; });

TEST(R1csMerge, DuplicateWiresAreMergedByAdding) {
  // Hand-built r1cs: one constraint, A = 2*w1 + 3*w1 + w2 (-> 5*w1 + w2), B = w0, C = w3 - w3 (-> empty).
  auto r = read_r1cs(r1cs_path("multi_public"));
  ASSERT_TRUE(r.ok());
  R1csHeader h = r->header;
  groth16::R1csShape s;
  s.num_inputs = r->shape.num_inputs;
  s.num_aux = r->shape.num_aux;
  // Bypass add_row's "already merged" precondition by writing the duplicate terms directly.
  auto put_row = [](CsrMatrix& m, std::vector<std::pair<std::uint32_t, Fr>> t) {
    for (auto& [v, x] : t) m.push_entry(v, x);
    m.end_row();
  };
  put_row(s.a, {{1, Fr::from_u64(2)}, {2, Fr::one()}, {1, Fr::from_u64(3)}});
  put_row(s.b, {{0, Fr::one()}});
  put_row(s.c, {{3, Fr::one()}, {3, -Fr::one()}});
  h.n_constraints = 1;
  std::string p = scratch("dups.r1cs");
  ASSERT_TRUE(write_r1cs(p, s, h).ok());
  auto back = read_r1cs(p);
  ASSERT_TRUE(back.ok()) << back.error();
  const auto& a = back->shape.a;
  ASSERT_EQ(a.nnz(), 2u);
  EXPECT_EQ(a.cols[0], 1u);
  EXPECT_EQ(a.val(0), Fr::from_u64(5));
  EXPECT_EQ(a.cols[1], 2u);
  EXPECT_EQ(back->shape.c.nnz(), 0u);
  EXPECT_EQ(back->shape.b.nnz(), 1u);
}

// Untrusted paths (issue 28): a device, a FIFO and a directory are refused at once — never read to
// an end that does not come, never waited on for a writer; /proc/self/pagemap (a regular file that
// reports 0 bytes) reads as empty and fails as a truncated witness; a file over the limit is refused.
TEST(BoundedReads, DevicesFifosAndProcFilesFailWithOneLine) {
  char dir_tmpl[] = "/tmp/cuzk-bounded-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_tmpl), nullptr);
  const std::string dir = dir_tmpl, fifo = dir + "/fifo", big = dir + "/big";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& p : {std::string("/dev/zero"), std::string("/dev/urandom"), fifo}) {
    auto r = read_file_bytes(p);
    ASSERT_FALSE(r) << p;
    EXPECT_EQ(r.error(), p + ": not a regular file");
    auto w = read_wtns(p);
    ASSERT_FALSE(w) << p;
    EXPECT_NE(w.error().find("not a regular file"), std::string::npos) << w.error();
    EXPECT_EQ(w.error().find('\n'), std::string::npos);
  }
  EXPECT_NE(read_file_bytes(dir).error().find("is a directory"), std::string::npos);
  auto pagemap = read_file_bytes("/proc/self/pagemap");
  if (pagemap) {
    EXPECT_TRUE(pagemap->empty());  // its reported size
  }
  auto w = read_wtns("/proc/self/pagemap");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().find('\n'), std::string::npos) << w.error();
  {
    std::FILE* f = std::fopen(big.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("0123456789", f);
    std::fclose(f);
  }
  auto over = read_file_bytes(big, 9);
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().find("10 bytes, more than the 9"), std::string::npos) << over.error();
  ASSERT_TRUE(read_file_bytes(big, 10));
  std::remove(big.c_str());
  std::remove(fifo.c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace cuzk::formats::test
