#include <gtest/gtest.h>

#include "engine/units.hpp"

namespace cuzk::engine {
namespace {

TEST(Units, Sizes) {
  EXPECT_EQ(*parse_size("0"), 0u);
  EXPECT_EQ(*parse_size("4096"), 4096u);
  EXPECT_EQ(*parse_size("17B"), 17u);
  EXPECT_EQ(*parse_size("1KiB"), 1024u);
  EXPECT_EQ(*parse_size("2MiB"), 2u << 20);
  EXPECT_EQ(*parse_size("64GiB"), 64ull << 30);
  EXPECT_EQ(*parse_size("1TiB"), 1ull << 40);  // the Rust parser turned this into 50 GiB
  EXPECT_EQ(*parse_size("1.5 GiB"), 3ull << 29);
  EXPECT_EQ(*parse_size("500MB"), 500000000u);
  EXPECT_EQ(*parse_size("2GB"), 2000000000u);
  EXPECT_EQ(*parse_size("3KB"), 3000u);
  EXPECT_EQ(*parse_size("1TB"), 1000000000000u);
  EXPECT_EQ(*parse_size(" 8gib "), 8ull << 30);
  EXPECT_FALSE(parse_size(""));
  EXPECT_FALSE(parse_size("GiB"));
  EXPECT_FALSE(parse_size("-1GiB"));
  auto bad = parse_size("12 parsecs");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("unknown unit"), std::string::npos);
  EXPECT_FALSE(parse_size("99999999999TiB"));
}

TEST(Units, Durations) {
  using std::chrono::milliseconds;
  EXPECT_EQ(*parse_duration("300"), milliseconds(300000));
  EXPECT_EQ(*parse_duration("30s"), milliseconds(30000));
  EXPECT_EQ(*parse_duration("5m"), milliseconds(300000));
  EXPECT_EQ(*parse_duration("1h"), milliseconds(3600000));  // the Rust parser made this 300 s
  EXPECT_EQ(*parse_duration("1h30m"), milliseconds(5400000));
  EXPECT_EQ(*parse_duration("250ms"), milliseconds(250));
  EXPECT_EQ(*parse_duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(*parse_duration("2d"), milliseconds(172800000));
  EXPECT_FALSE(parse_duration(""));
  EXPECT_FALSE(parse_duration("5 fortnights"));
  EXPECT_FALSE(parse_duration("-5s"));
  EXPECT_FALSE(parse_duration("5m 3"));
  EXPECT_EQ(format_bytes(17), "17 B");
  EXPECT_EQ(format_bytes(3ull << 29), "1.50 GiB");
}

}  // namespace
}  // namespace cuzk::engine
