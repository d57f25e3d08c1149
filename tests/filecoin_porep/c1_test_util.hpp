// Shared helpers for the C1 format tests: generated documents and text surgery.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/testkit/random_c1.hpp"
#include "filecoin/porep/config.hpp"

using cuzk::filecoin::testkit::random_c1_for_tests;

namespace cuzk::filecoin::porep::testing {

// 32 consecutive byte values starting at `first` (a pattern that random data will not contain).
inline Bytes32 seq32(int first) {
  Bytes32 b{};
  for (int i = 0; i < 32; ++i) b[std::size_t(i)] = std::uint8_t((first + i) & 0xff);
  return b;
}

// The JSON text of seq32(first): "[first,first+1,...]".
inline std::string seq32_json(int first) {
  std::string s = "[";
  for (int i = 0; i < 32; ++i) {
    if (i) s += ',';
    s += std::to_string((first + i) & 0xff);
  }
  s += ']';
  return s;
}

// Replace the one occurrence of `from` (which must occur exactly once) by `to`.
inline std::string replace_once(std::string s, std::string_view from, std::string_view to) {
  const std::size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << "pattern not found: " << from;
  if (p == std::string::npos) return s;
  EXPECT_EQ(s.find(from, p + 1), std::string::npos) << "pattern not unique: " << from;
  s.replace(p, from.size(), to);
  return s;
}

// A canonical, shape-valid generated C1 with a marker value at
// vanilla_proofs[0][1].replica_column_proofs.drg_parents[3].column.rows[1] (2 KiB) for text edits.
inline C1Output marked_2kib(std::uint64_t seed = 1) {
  C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), seed);
  c1.vanilla_proofs[0][1].drg_parents[3].rows[1] = seq32(200);
  return c1;
}

}  // namespace cuzk::filecoin::porep::testing
