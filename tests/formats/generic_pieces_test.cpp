// The generic pieces of formats/ that the vanilla-proof readers share: JSON paths and the syntax-error
// locator, the outline scanner, bincode cursors (lengths checked before allocating), base64, hex.
#include <gtest/gtest.h>

#include "base/hex.hpp"
#include "formats/base64.hpp"
#include "formats/bincode.hpp"
#include "formats/bincode_fields.hpp"
#include "formats/fields.hpp"
#include "formats/json_outline.hpp"
#include "formats/json_path.hpp"

namespace cuzk::formats {
namespace fields_test {

// serde: Outer { a: u32, inner: Inner { b: Vec<[u8; 2]>, _h: PhantomData }, items: Vec<Item> }, Item { x: u64 }.
struct Item {
  std::uint64_t x = 0;
};
constexpr auto fields(const Item*) { return std::make_tuple(field("x", &Item::x)); }
struct Outer {
  std::uint32_t a = 0;
  std::vector<std::array<std::uint8_t, 2>> b;
  std::vector<Item> items;
};
constexpr auto fields(const Outer*) {
  return std::make_tuple(field("a", &Outer::a), group("inner", field("b", &Outer::b), phantom("_h")),
                         field("items", &Outer::items));
}

}  // namespace fields_test

namespace {

TEST(BincodeFields, OneDeclarationDrivesReadWriteSizeAndBounds) {
  using fields_test::Outer;
  static_assert(bincode_min_size<Outer>() == 4 + 8 + 8);
  Outer o;
  o.a = 5;
  o.b = {{1, 2}, {3, 4}};
  o.items = {{7}, {8}};
  EXPECT_EQ(bincode_size(o), 4u + 8 + 4 + 8 + 16);
  BincodeWriter w(bincode_size(o));
  bincode_write(w, o);
  const auto bytes = std::move(w).finish();
  BincodeReader r(bytes);
  Outer back;
  ASSERT_TRUE(bincode_read(r, root_path(), back)) << r.err;
  EXPECT_EQ(back.a, 5u);
  EXPECT_EQ(back.b, o.b);
  ASSERT_EQ(back.items.size(), 2u);
  EXPECT_EQ(back.items[1].x, 8u);
  EXPECT_TRUE(r.end(root_path(), "Outer"));
  // The path of a failure names the group and the element.
  std::vector<std::uint8_t> cut(bytes.begin(), bytes.end() - 4);
  BincodeReader short_r(cut);
  Outer partial;
  ASSERT_FALSE(bincode_read(short_r, root_path(), partial));
  EXPECT_EQ(short_r.err, "bincode: offset 16: items: length 2 needs at least 16 bytes, 12 left");
  std::vector<std::uint8_t> cut2(bytes.begin(), bytes.begin() + 14);
  BincodeReader short_b(cut2);
  ASSERT_FALSE(bincode_read(short_b, root_path(), partial));
  EXPECT_EQ(short_b.err, "bincode: offset 4: inner.b: length 2 needs at least 4 bytes, 2 left");
}

TEST(JsonPath, RendersKeysAndIndices) {
  const JsonPath root = root_path();
  EXPECT_EQ(root.str(), "(document)");
  const JsonPath a = root.child("vanilla_proofs");
  const JsonPath b = a.child(std::uint64_t(3));
  const JsonPath c = b.child("comm_r");
  EXPECT_EQ(c.str(), "vanilla_proofs[3].comm_r");
}

TEST(JsonSyntaxLocator, NamesByteAndEnclosingPath) {
  EXPECT_EQ(locate_json_syntax_error(R"({"a":[1,2,]})"), "a[2]: syntax error at byte 10: unexpected character ']'");
  EXPECT_EQ(locate_json_syntax_error(R"({"a":01})"), "a: syntax error at byte 6: invalid number: leading zero");
  EXPECT_EQ(locate_json_syntax_error(R"({"a":1} x)"),
            "(document): syntax error at byte 8: unexpected text after the document");
  EXPECT_NE(locate_json_syntax_error(R"({"a":99999999999999999999})").find("out of 64-bit range"), std::string::npos);
  EXPECT_EQ(locate_json_syntax_error(R"({"a":[1,{"b":null}]})"), "");
}

TEST(JsonOutline, FindsValueBoundsWithoutValidating) {
  const std::string_view doc = R"({"k":[{"x":"]"},{"y":[1,2]}],"z":3})";
  JsonOutline o(doc);
  std::vector<JsonRange> ranges;
  ASSERT_TRUE(o.members([&](std::string_view key) {
    if (key != "k") return o.value();
    return o.elements([&] {
      JsonRange r;
      r.begin = o.pos();
      if (!o.value()) return false;
      r.end = o.pos();
      ranges.push_back(r);
      return true;
    });
  }));
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(doc.substr(ranges[0].begin, ranges[0].end - ranges[0].begin), R"({"x":"]"})");
  EXPECT_EQ(doc.substr(ranges[1].begin, ranges[1].end - ranges[1].begin), R"({"y":[1,2]})");
}

TEST(Bincode, LengthsAreCheckedAgainstTheRemainingBytesBeforeAllocating) {
  BincodeWriter w(8 + 2 * 4 + 4);
  w.u64(2);
  w.u32(7);
  w.u32(9);
  w.u32(0xdeadbeef);
  const std::vector<std::uint8_t> bytes = std::move(w).finish();
  BincodeReader r(bytes);
  const JsonPath root = root_path();
  const JsonPath v = root.child("v");
  std::vector<std::uint32_t> out;
  ASSERT_TRUE(r.vec(v, 4, out, [&](const JsonPath& p, std::uint32_t& x) { return r.u32(p, x); })) << r.err;
  EXPECT_EQ(out, (std::vector<std::uint32_t>{7, 9}));
  std::uint32_t tail = 0;
  ASSERT_TRUE(r.u32(root.child("tail"), tail));
  EXPECT_EQ(tail, 0xdeadbeefu);
  EXPECT_TRUE(r.end(root, "the value"));

  std::vector<std::uint8_t> huge(8, 0xff);  // length 2^64-1 with nothing behind it
  BincodeReader h(huge);
  std::vector<std::array<std::uint8_t, 32>> never;
  ASSERT_FALSE(h.fixed_vec(v, never));
  EXPECT_EQ(h.err, "bincode: offset 0: v: length 18446744073709551615 needs at least 2^64 bytes, 0 left");
  EXPECT_TRUE(never.empty());
}

TEST(Base64AndHex, StrictAndWrittenOnce) {
  const std::vector<std::uint8_t> foob = {'f', 'o', 'o', 'b'};
  EXPECT_EQ(base64_encode(foob), "Zm9vYg==");
  auto d = base64_decode("Zm9vYg==");
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(*d, foob);
  auto bad = base64_decode("Zm9v!g==");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "base64: invalid character '!' at offset 4");
  EXPECT_FALSE(base64_decode("Zm9vYh==").ok());  // non-zero unused bits

  EXPECT_EQ(hex_encode(foob), "666f6f62");
  std::uint8_t out[4];
  EXPECT_TRUE(hex_decode_into("0x666F6f62", out));
  EXPECT_EQ(std::vector<std::uint8_t>(out, out + 4), foob);
  auto e = hex_decode_into("666f6g62", out);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "invalid hex digit at position 5");
}

}  // namespace
}  // namespace cuzk::formats
