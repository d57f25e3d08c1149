// The recorded PoRep partition shapes, pinned byte for byte: the shape_io serialization of the 2 KiB
// and 512 MiB partition shapes must keep the SHA-256 they had before the compact CsrMatrix and the
// fast (parallel) recorder, so any change in row order, variable order, coefficients or the file
// format shows up here.
//
// Expected values recorded on 2026-11-29 from the Fr-valued CsrMatrix and the sequential
// ShapeRecorder (commit 6256fa4), with
//   build/bench/shape_record_bench --save /tmp/shape_old StackedDrg2KiBV1_1 StackedDrg512MiBV1_1
//   sha256sum /tmp/shape_old/*.shape
// (151,781,980 and 251,046,460 bytes).
#include <gtest/gtest.h>

#include <string>

#include "circuit/shape_io.hpp"
#include "filecoin/c2/porep_shape.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/sdr/sha.hpp"

namespace cuzk::filecoin::c2 {
namespace {

std::string hex(const sdr::Bytes32& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (auto b : d) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

void expect_serialization(const char* name, std::size_t size, const char* sha) {
  const auto shape = record_porep_shape(porep::porep_config_by_name(name));
  const auto bytes = circuit::serialize_shape(shape);
  EXPECT_EQ(bytes.size(), size) << name;
  EXPECT_EQ(hex(sdr::sha256(bytes)), sha) << name;
}

TEST(PorepShape, Serialization2KiBUnchanged) {
  expect_serialization("StackedDrg2KiBV1_1", 151'781'980, "a0d3ea5d4fb706989b44693e884ce5b75e276eb29d8a540bbe9d8a495c9ca36f");
}

TEST(PorepShape, Serialization512MiBUnchanged) {
  expect_serialization("StackedDrg512MiBV1_1", 251'046'460, "7147c7a9c4d31dd1125b7cb8701c28f9a697a0bc823d0085c378db2a97554fb8");
}

}  // namespace
}  // namespace cuzk::filecoin::c2
