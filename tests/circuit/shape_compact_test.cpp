// The dictionary-coded CsrMatrix, the streaming shape checksum, the shape_io checks added with the
// compact form, and parallel recording of repeated sub-circuits (SliceRecorder) against the
// sequential recorder.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstring>
#include <fstream>

#include "circuit/gadgets/boolean.hpp"
#include "circuit/gadgets/num.hpp"
#include "circuit/shape_io.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

Fr f(std::uint64_t x) { return Fr::from_u64(x); }

TEST(CompactCsr, StoresEachDistinctCoefficientOnce) {
  groth16::CsrMatrix m;
  std::vector<std::pair<std::uint32_t, Fr>> r0 = {{0, f(1)}, {3, f(7)}, {4, Fr::zero()}, {5, f(7)}};
  std::vector<std::pair<std::uint32_t, Fr>> r1 = {{1, -f(1)}, {2, f(1)}};
  m.add_row(r0);
  m.add_empty_row();
  m.add_row(r1);
  EXPECT_EQ(m.rows(), 3u);
  EXPECT_EQ(m.nnz(), 5u);  // the zero term is dropped
  EXPECT_EQ(m.row_ptr, (std::vector<std::uint64_t>{0, 3, 3, 5}));
  EXPECT_EQ(m.cols, (std::vector<std::uint32_t>{0, 3, 5, 1, 2}));
  EXPECT_EQ(m.coeffs, (std::vector<Fr>{f(1), f(7), -f(1)}));
  EXPECT_EQ(m.coeff_ids, (std::vector<std::uint32_t>{0, 1, 1, 2, 0}));
  EXPECT_EQ(m.val(4), f(1));
  EXPECT_EQ(m.values(), (std::vector<Fr>{f(1), f(7), f(7), -f(1), f(1)}));
  // 4 row pointers x 8 + 5 entries x (4 + 4) + 3 coefficients x 32.
  EXPECT_EQ(m.memory_bytes(), 4u * 8 + 5u * 8 + 3u * 32);
  m.set_val(1, f(9));
  EXPECT_EQ(m.val(1), f(9));
  EXPECT_EQ(m.val(2), f(7));
  EXPECT_EQ(m.coeffs.size(), 4u);
  // A table filled directly (as loaders do) is found by later lookups, not duplicated.
  groth16::CsrMatrix d;
  d.coeffs = {f(5), f(6)};
  d.push_entry(0, f(6));
  d.end_row();
  EXPECT_EQ(d.coeff_ids, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(d.coeffs.size(), 2u);
}

TEST(ShapeChecksum, StreamingEqualsOneShotForAnySplit) {
  std::vector<std::uint8_t> bytes(1000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::uint8_t(i * 37 + 11);
  for (std::size_t len : {0u, 5u, 8u, 13u, 999u, 1000u}) {
    const auto whole = std::span(bytes.data(), len);
    const std::uint64_t expect = shape_checksum(whole);
    for (std::size_t step : {1u, 3u, 7u, 8u, 9u, 64u}) {
      ShapeChecksum s(len);
      for (std::size_t k = 0; k < len; k += step) s.update(whole.subspan(k, std::min(step, len - k)));
      EXPECT_EQ(s.finish(), expect) << len << " in pieces of " << step;
    }
  }
}

// A small circuit with shared variables, inputs and aux in each repeated part.
struct RepeatedCircuit {
  template <class CS>
  static AllocatedNum prefix(CS& cs) {
    AllocatedNum x = alloc_num(cs, f(3));
    inputize(cs, x);
    return x;
  }
  template <class CS>
  static void part(CS& cs, const AllocatedNum& x, std::size_t i) {
    AllocatedNum y = alloc_num(cs, f(10 + i));
    AllocatedNum p = num_mul(cs, x, y);
    inputize(cs, p);
    auto bits = to_bits_le(cs, p);
    typename CS::LC lc;
    if constexpr (CS::LC::kActive) lc.add(y.var, f(2 + i % 2)).add(x.var, -Fr::one());
    cs.enforce("mix", lc, typename CS::LC(Var::one()), lc);
  }
};

RecordedCircuit record_sequential(std::size_t parts) {
  return record_shape(
      [&](auto& cs) {
        const AllocatedNum x = RepeatedCircuit::prefix(cs);
        for (std::size_t i = 0; i < parts; ++i) RepeatedCircuit::part(cs, x, i);
      },
      RecordOptions{.values = false, .densities = true});
}

// Prefix and part 0 sequentially, parts 1.. as slices (recorded in reverse order, to show the order
// of recording does not matter), as porep::record_porep_shape does.
RecordedCircuit record_sliced(std::size_t parts, bool corrupt_size = false) {
  ShapeRecorder rec(RecordOptions{.values = false, .densities = true});
  const AllocatedNum x = RepeatedCircuit::prefix(rec);
  const SliceSize before = rec.recorded_size();
  RepeatedCircuit::part(rec, x, 0);
  const SliceSize after = rec.recorded_size();
  SliceSize one{after.rows - before.rows,
                {after.nnz[0] - before.nnz[0], after.nnz[1] - before.nnz[1], after.nnz[2] - before.nnz[2]},
                after.inputs - before.inputs,
                after.aux - before.aux};
  if (corrupt_size) one.nnz[0] -= 1;
  auto slices = rec.append_slices(one, parts - 1);
  for (std::size_t k = slices.size(); k-- > 0;) {
    RepeatedCircuit::part(slices[k], x, k + 1);
    if (!corrupt_size) EXPECT_EQ(slices[k].size(), one) << k;
    else EXPECT_FALSE(slices[k].size() == one) << k;
  }
  rec.merge_slices(slices);
  return std::move(rec).finish();
}

TEST(SliceRecorder, ParallelPartsGiveTheSequentialShapeByteForByte) {
  const auto seq = record_sequential(5);
  const auto par = record_sliced(5);
  EXPECT_EQ(serialize_shape(par.shape), serialize_shape(seq.shape));
  EXPECT_EQ(par.shape.num_inputs, seq.shape.num_inputs);
  EXPECT_EQ(par.shape.num_aux, seq.shape.num_aux);
  EXPECT_EQ(par.shape.a.cols, seq.shape.a.cols);
  EXPECT_EQ(par.shape.c.values(), seq.shape.c.values());
  EXPECT_EQ(par.densities.a, seq.densities.a);
  EXPECT_EQ(par.densities.b_aux_count, seq.densities.b_aux_count);
  // A slice larger than its window stops writing and says so (its size differs from the window's).
  record_sliced(3, true);
}

groth16::R1csShape small_shape() { return record_sequential(2).shape; }

TEST(ShapeIo, RejectsRepeatedCoefficientsAndBadIndicesWithReasons) {
  const auto s = small_shape();
  auto bytes = serialize_shape(s);
  const std::uint64_t ncoeffs = s.a.coeffs.size() + 1;  // >= 2 distinct values in this circuit
  ASSERT_GE(ncoeffs, 2u);
  auto refix = [](std::vector<std::uint8_t>& b) {
    const std::uint64_t sum = shape_checksum(std::span(b.data(), b.size() - 8));
    std::memcpy(b.data() + b.size() - 8, &sum, 8);
  };
  // Coefficient 1 made equal to coefficient 0.
  auto dup = bytes;
  std::memcpy(dup.data() + 40 + 32, dup.data() + 40, 32);
  refix(dup);
  auto r = deserialize_shape(dup);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "shape file: coefficient 1 repeats coefficient 0");
  // A's first coefficient index out of the table.
  std::uint64_t nc;
  std::memcpy(&nc, bytes.data() + 32, 8);
  const std::size_t rows = s.num_constraints(), nnz_a = s.a.nnz();
  const std::size_t ids_a = 40 + 32 * nc + 8 + 4 * rows + 4 * nnz_a;
  auto bad = bytes;
  const std::uint32_t big = std::uint32_t(nc);
  std::memcpy(bad.data() + ids_a, &big, 4);
  refix(bad);
  r = deserialize_shape(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "shape file: matrix A entry 0 has a bad coefficient index");
  // A column naming a variable that does not exist.
  bad = bytes;
  const std::uint32_t var = std::uint32_t(s.num_variables());
  std::memcpy(bad.data() + ids_a - 4 * nnz_a + 4, &var, 4);
  refix(bad);
  r = deserialize_shape(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "shape file: matrix A entry 1 names variable " + std::to_string(var) + " of " + std::to_string(var));
  // A's first entry given another valid coefficient (global id 0 -> 1), checksum left alone: only
  // the checksum can tell.
  bad = bytes;
  const std::uint32_t other = 1;
  std::memcpy(bad.data() + ids_a, &other, 4);
  ASSERT_NE(bad, bytes);
  r = deserialize_shape(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "shape file: checksum mismatch (corrupt or truncated)");
}

TEST(ShapeIo, LoadReadsTheFileItselfAndNamesIt) {
  const auto s = small_shape();
  const auto path = (std::filesystem::temp_directory_path() / "cuzk_shape_compact_test.shape").string();
  ASSERT_TRUE(save_shape(s, path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(file, serialize_shape(s));  // the streamed file is the in-memory serialization
  auto back = load_shape(path);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(serialize_shape(*back), file);
  EXPECT_EQ(back->b.values(), s.b.values());
  // Truncated by one byte: named, with the path.
  std::filesystem::resize_file(path, file.size() - 1);
  auto t = load_shape(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().rfind(path + ": shape file: ", 0), 0u) << t.error();
  // A directory that does not exist: save fails with a reason, nothing is left behind.
  auto st = save_shape(s, "/nonexistent-cuzk-dir/x.shape");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error(), "cannot create /nonexistent-cuzk-dir/x.shape.tmp: No such file or directory");
  std::filesystem::remove(path);
}

}  // namespace
