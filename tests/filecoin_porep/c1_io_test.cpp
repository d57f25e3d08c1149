// c1_io: format detection, load_c1_file for the three forms, hex helpers.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "c1_test_util.hpp"
#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/testkit/random_c1.hpp"

using cuzk::filecoin::testkit::random_c1_for_tests;

namespace cuzk::filecoin::porep {
namespace {

std::string write_temp(const std::string& name, const void* data, std::size_t n) {
  const std::string path = ::testing::TempDir() + "/cuzk_c1_io_" + name;
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), std::streamsize(n));
  return path;
}

TEST(C1Io, LoadsAllThreeForms) {
  CurioC1 w;
  w.sector_num = 42;
  w.sector_size = 8u << 20;
  w.c1 = random_c1_for_tests(porep_config_by_name("StackedDrg8MiBV1_1"), 3);
  const std::string json = write_c1_json(w.c1);
  const std::string curio = write_curio_c1_json(w);
  const auto bin = write_c1_bincode(w.c1);

  const std::string pj = write_temp("raw.json", json.data(), json.size());
  const std::string pc = write_temp("curio.json", curio.data(), curio.size());
  const std::string pb = write_temp("c1.bin", bin.data(), bin.size());
  auto a = load_c1_file_detailed(pj);
  auto b = load_c1_file_detailed(pc);
  auto c = load_c1_file_detailed(pb);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(a->format, C1Format::kJson);
  EXPECT_EQ(b->format, C1Format::kCurioJson);
  EXPECT_EQ(c->format, C1Format::kBincode);
  EXPECT_EQ(b->sector_num, 42);
  for (const auto* r : {&a.value(), &b.value(), &c.value()}) {
    EXPECT_EQ(write_c1_json(r->c1), json);
    EXPECT_EQ(r->sector_size, 8u << 20);
  }
  auto plain = load_c1_file(pb);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->registered_proof, "StackedDrg8MiBV1_1");

  // From memory, with leading whitespace.
  const std::string spaced = "\n \t" + json + "\n";
  auto m = parse_c1_any(std::span(reinterpret_cast<const std::uint8_t*>(spaced.data()), spaced.size()));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(write_c1_json(m->c1), json);

  // Errors name the file and the format.
  const std::string broken = json.substr(0, json.size() - 1);
  const std::string pbad = write_temp("broken.json", broken.data(), broken.size());
  auto e = load_c1_file(pbad);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().rfind(pbad + ": C1 JSON: (document): syntax error at byte", 0), 0u) << e.error();
  const std::string pbin = write_temp("short.bin", bin.data(), 100);
  auto eb = load_c1_file(pbin);
  ASSERT_FALSE(eb.ok());
  EXPECT_EQ(eb.error().rfind(pbin + ": bincode: bincode: offset ", 0), 0u) << eb.error();
  auto missing = load_c1_file("/nonexistent/c1.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().rfind("/nonexistent/c1.json: cannot open: ", 0), 0u);
  for (const char* p : {pj.c_str(), pc.c_str(), pb.c_str(), pbad.c_str(), pbin.c_str()}) std::remove(p);
}

TEST(C1Io, DetectFormat) {
  auto d = [](std::string_view s) {
    return detect_c1_format(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
  };
  EXPECT_EQ(d("{\"SectorNum\":1"), C1Format::kCurioJson);
  EXPECT_EQ(d(" {\n \"Phase1Out\":\""), C1Format::kCurioJson);
  EXPECT_EQ(d("{\"registered_proof\":"), C1Format::kJson);
  EXPECT_EQ(d("{\"comm_d\":["), C1Format::kJson);
  EXPECT_EQ(d(std::string_view("\x0a\0\0\0\0\0\0\0", 8)), C1Format::kBincode);  // P = 10 starts with '\n'
  EXPECT_EQ(d(""), C1Format::kBincode);
}

TEST(C1Io, Bytes32Hex) {
  Bytes32 b = testing::seq32(0xf0);
  const std::string h = bytes32_hex(b);
  EXPECT_EQ(h, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f");
  auto back = bytes32_from_hex(h);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, b);
  auto upper = bytes32_from_hex("0xF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF000102030405060708090A0B0C0D0E0F");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, b);
  EXPECT_EQ(bytes32_from_hex("abc").error(), "expected 64 hex digits, got 3 characters");
  EXPECT_EQ(bytes32_from_hex(h.substr(0, 63) + "g").error(), "invalid hex digit at position 63");
}

}  // namespace
}  // namespace cuzk::filecoin::porep
