// C1 JSON and Curio wrapper: round trips, serde_json byte layout, field order freedom, and rejection
// of every kind of corruption with the JSON path in the message (filecoin-formats.md §3.1–3.3).
#include <gtest/gtest.h>

#include "c1_test_util.hpp"
#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/testkit/random_c1.hpp"

using cuzk::filecoin::testkit::random_c1_for_tests;

namespace cuzk::filecoin::porep {
namespace {

using testing::marked_2kib;
using testing::replace_once;
using testing::seq32_json;

constexpr const char* kMarkPath =
    "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[1]";

void expect_error(const std::string& json, const std::string& expected_exact) {
  auto r = parse_c1_json(json);
  ASSERT_FALSE(r.ok()) << "accepted: " << expected_exact;
  EXPECT_EQ(r.error(), expected_exact);
}
void expect_error_contains(const std::string& json, const std::string& needle) {
  auto r = parse_c1_json(json);
  ASSERT_FALSE(r.ok()) << "accepted; wanted error containing: " << needle;
  EXPECT_NE(r.error().find(needle), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find('\n'), std::string::npos) << "multi-line error: " << r.error();
}

TEST(C1Json, RoundTripIsIdentity2KiB) {
  for (const char* name :
       {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
        "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg8MiBV1_1", "StackedDrg512MiBV1_1"}) {
    const PorepConfig& cfg = porep_config_by_name(name);
    const C1Output c1 = random_c1_for_tests(cfg, 7);
    ASSERT_TRUE(check_c1_shape(c1, cfg).ok()) << check_c1_shape(c1, cfg).error();
    const std::string json = write_c1_json(c1);
    auto back = parse_c1_json(json);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->registered_proof, name);
    EXPECT_EQ(back->vanilla_key, vanilla_key_for(name));
    EXPECT_EQ(write_c1_json(*back), json);
    EXPECT_EQ(write_c1_bincode(*back), write_c1_bincode(c1));
    EXPECT_TRUE(check_c1_shape(*back).ok());
  }
}

TEST(C1Json, ChunkedAndWholeDocumentParsesAgree) {
  // parse_c1_json cuts the challenge proofs out and parses them one at a time; the reference path
  // parses one DOM. Both must accept the same documents with the same result.
  const std::string json = write_c1_json(marked_2kib());
  auto whole = detail::parse_c1_json_unchunked(json);
  ASSERT_TRUE(whole.ok()) << whole.error();
  EXPECT_EQ(write_c1_json(*whole), json);
  std::string spaced;
  for (char c : json) {
    spaced += c;
    if (c == ',' || c == ':' || c == '[' || c == '{') spaced += " \n";
  }
  auto a = parse_c1_json(spaced), b = detail::parse_c1_json_unchunked(spaced);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(write_c1_json(*a), json);
  EXPECT_EQ(write_c1_json(*b), json);
  // Values that look like the fast path's placeholders (challenge proof indices) are rejected as what
  // they are (in a partition of one challenge proof, so that one more element is within the 2 allowed).
  C1Output one = marked_2kib();
  one.vanilla_proofs[0].pop_back();
  const std::string json1 = write_c1_json(one);
  const std::string head = "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[";
  const std::size_t at = json1.find(head) + head.size();
  expect_error(json1.substr(0, at) + "0," + json1.substr(at),
               "vanilla_proofs.StackedDrg2KiBV1[0][0]: expected object, got integer 0");
  const std::size_t end = json1.find("]]},\"comm_r\"");
  expect_error(json1.substr(0, end) + ",1" + json1.substr(end),
               "vanilla_proofs.StackedDrg2KiBV1[0][1]: expected object, got integer 1");
  expect_error(json1.substr(0, end) + ",\"x\"" + json1.substr(end),
               "vanilla_proofs.StackedDrg2KiBV1[0][1]: expected object, got string \"x\"");
  // One element more than a 2 KiB partition has is refused by both paths before anything is read.
  expect_error(json.substr(0, json.find(head) + head.size()) + "0," + json.substr(json.find(head) + head.size()),
               "vanilla_proofs.StackedDrg2KiBV1[0]: 3 elements, at most 2 expected for 2KiB");
  EXPECT_EQ(detail::parse_c1_json_unchunked(json.substr(0, json.find(head) + head.size()) + "0," +
                                            json.substr(json.find(head) + head.size()))
                .error(),
            "vanilla_proofs.StackedDrg2KiBV1[0]: 3 elements, at most 2 expected for 2KiB");
  // A sign glued to a proof object must not merge with a placeholder into "-0".
  expect_error_contains(json.substr(0, at) + "-" + json.substr(at),
                        "vanilla_proofs.StackedDrg2KiBV1[0][0]: syntax error at byte");
}

TEST(C1Json, FuzzedDocumentsChunkedAndWholeAgree) {
  // Random edits with JSON-significant characters: the fast (chunked) and the reference parse accept
  // and reject the same documents, with the same result or message.
  const std::string json = write_c1_json(random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 8));
  const std::string alphabet = "{}[]\",:0123456789- \\ue.x";
  std::uint64_t st = 99;
  auto next = [&] { return (st = st * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  int accepted = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    std::string s = json;
    const int edits = 1 + int(next() % 3);
    for (int k = 0; k < edits; ++k) {
      const std::size_t at = next() % s.size();
      const char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
        case 0: s[at] = c; break;
        case 1: s.insert(s.begin() + std::ptrdiff_t(at), c); break;
        default: s.erase(at, 1); break;
      }
    }
    auto a = parse_c1_json(s);
    auto b = detail::parse_c1_json_unchunked(s);
    ASSERT_EQ(a.ok(), b.ok()) << (a.ok() ? b.error() : a.error());
    if (a.ok()) {
      ++accepted;
      ASSERT_EQ(write_c1_json(*a), write_c1_json(*b));
    } else {
      ASSERT_EQ(a.error(), b.error());
      ASSERT_EQ(a.error().find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(accepted, 10);  // digit edits inside byte values keep the document valid
}

TEST(C1Json, SerdeLayout) {
  const C1Output c1 = marked_2kib();
  const std::string json = write_c1_json(c1);
  // Field order and encodings as serde_json writes them.
  EXPECT_EQ(json.rfind("{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{"
                       "\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":[",
                       0),
            0u);
  EXPECT_NE(json.find("],\"leaf\":["), std::string::npos);
  EXPECT_NE(json.find(",\"path\":{\"path\":[{\"hashes\":[["), std::string::npos);
  EXPECT_NE(
      json.find(std::string(",") + seq32_json(200) + "],\"_h\":null},\"inclusion_proof\":{\"data\":{\"Single\":{"),
      std::string::npos);
  EXPECT_NE(json.find("},\"labeling_proofs\":[{\"parents\":[["), std::string::npos);
  EXPECT_NE(json.find("],\"layer_index\":1,\"node\":"), std::string::npos);
  EXPECT_NE(json.find("\"encoding_proof\":{\"parents\":[["), std::string::npos);
  const std::size_t tail = json.find("]]},\"comm_r\":[");
  ASSERT_NE(tail, std::string::npos);
  EXPECT_NE(json.find(",\"comm_d\":[", tail), std::string::npos);
  EXPECT_NE(json.find(",\"replica_id\":[", tail), std::string::npos);
  EXPECT_NE(json.find(",\"seed\":[", tail), std::string::npos);
  EXPECT_NE(json.find(",\"ticket\":[", tail), std::string::npos);
  EXPECT_EQ(json.back(), '}');
  EXPECT_EQ(json.find(' '), std::string::npos);
}

TEST(C1Json, SubAndTopProofLayout) {
  for (const char* name : {"StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"}) {
    C1Output c1 = random_c1_for_tests(porep_config_by_name(name), 3);
    c1.vanilla_proofs.resize(1);
    c1.vanilla_proofs[0].resize(1);
    const std::string json = write_c1_json(c1);
    const bool top = std::string(name).find("64") != std::string::npos;
    const std::string head = top ? "\"comm_r_last_proof\":{\"data\":{\"Top\":{\"base_proof\":{\"path\":[{\"hashes\":[["
                                 : "\"comm_r_last_proof\":{\"data\":{\"Sub\":{\"base_proof\":{\"path\":[{\"hashes\":[[";
    EXPECT_NE(json.find(head), std::string::npos) << name;
    EXPECT_NE(json.find("]},\"sub_proof\":{\"path\":[{\"hashes\":[["), std::string::npos);
    if (top) {
      EXPECT_NE(json.find("]},\"top_proof\":{\"path\":[{\"hashes\":[["), std::string::npos);
    }
    EXPECT_NE(json.find("]},\"root\":["), std::string::npos);
    auto back = parse_c1_json(json);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(write_c1_json(*back), json);
  }
}

TEST(C1Json, LargeShapesRoundTrip) {
  for (const char* name : {"StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"}) {
    const PorepConfig& cfg = porep_config_by_name(name);
    const C1Output c1 = random_c1_for_tests(cfg, 11);
    ASSERT_TRUE(check_c1_shape(c1, cfg).ok()) << check_c1_shape(c1, cfg).error();
    const std::string json = write_c1_json(c1);
    EXPECT_GT(json.size(), 30u << 20);
    auto back = parse_c1_json(json);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(check_c1_shape(*back, cfg).ok());
    EXPECT_EQ(back->vanilla_proofs.size(), 10u);
    EXPECT_EQ(back->vanilla_proofs[9].size(), 18u);
    EXPECT_EQ(write_c1_json(*back), json);
    // JSON -> model -> bincode -> model -> JSON.
    const auto bin = write_c1_bincode(*back);
    auto from_bin = parse_c1_bincode(bin, "");
    ASSERT_TRUE(from_bin.ok()) << from_bin.error();
    EXPECT_EQ(from_bin->registered_proof, name);  // inferred from the tree-D depth
    EXPECT_EQ(write_c1_json(*from_bin), json);
  }
}

TEST(C1Json, AcceptsAnyFieldOrderWhitespaceAndAbsentH) {
  const C1Output c1 = marked_2kib();
  const std::string json = write_c1_json(c1);
  auto field = [&](const std::string& name, const std::string& next) {
    const std::size_t b = json.find("\"" + name + "\":");
    const std::size_t e = next.empty() ? json.size() - 1 : json.find(",\"" + next + "\":", b);
    return json.substr(b, e - b);
  };
  // Curio's Go encoder: comm_d, comm_r, registered_proof, replica_id, seed, ticket, vanilla_proofs.
  const std::string go = std::string("{") + field("comm_d", "replica_id") + "," + field("comm_r", "comm_d") + "," +
                         field("registered_proof", "vanilla_proofs") + "," + field("replica_id", "seed") + "," +
                         field("seed", "ticket") + ",\n  " + field("ticket", "") + " , " +
                         field("vanilla_proofs", "comm_r") + "\n}\n";
  auto back = parse_c1_json(go);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(write_c1_json(*back), json);

  std::string no_h = json;
  for (std::size_t p; (p = no_h.find(",\"_h\":null")) != std::string::npos;) no_h.erase(p, 10);
  auto back2 = parse_c1_json(no_h);
  ASSERT_TRUE(back2.ok()) << back2.error();
  EXPECT_EQ(write_c1_json(*back2), json);

  // Nested reordering: the first labeling proof as {"layer_index","node","parents"}.
  std::string reordered = json;
  const std::size_t b = reordered.find("\"labeling_proofs\":[{") + std::string("\"labeling_proofs\":[").size();
  const std::size_t e = reordered.find('}', b);
  const std::string obj = reordered.substr(b, e - b + 1);
  const std::size_t k = obj.find(",\"layer_index\"");
  const std::string swapped =
      std::string("{") + obj.substr(k + 1, obj.size() - k - 2) + "," + obj.substr(1, k - 1) + "}";
  reordered.replace(b, obj.size(), swapped);
  ASSERT_NE(reordered, json);
  auto back3 = parse_c1_json(reordered);
  ASSERT_TRUE(back3.ok()) << back3.error();
  EXPECT_EQ(write_c1_json(*back3), json);
}

TEST(C1Json, RejectsWrongLengthsWithPath) {
  const std::string json = write_c1_json(marked_2kib());
  const std::string mark = seq32_json(200);
  std::string short_row = mark.substr(0, mark.rfind(',')) + "]";  // 31 bytes
  expect_error(replace_once(json, mark, short_row), std::string(kMarkPath) + ": expected 32 bytes, got 31");
  std::string long_row = mark.substr(0, mark.size() - 1) + ",1]";
  expect_error(replace_once(json, mark, long_row), std::string(kMarkPath) + ": expected 32 bytes, got 33");
  expect_error(replace_once(json, mark, "[]"), std::string(kMarkPath) + ": expected 32 bytes, got 0");
  expect_error(replace_once(json, mark, "\"abc\""),
               std::string(kMarkPath) + ": expected array of 32 bytes, got string \"abc\"");
}

TEST(C1Json, RejectsBadByteValuesWithPath) {
  const std::string json = write_c1_json(marked_2kib());
  const std::string mark = seq32_json(200);
  const std::string p31 = std::string(kMarkPath) + "[31]";
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "256]"),
               p31 + ": expected integer 0..255, got integer 256");
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "-1]"),
               p31 + ": expected integer 0..255, got integer -1");
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "1.0]"),
               p31 + ": expected integer 0..255, got number 1.0");
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "null]"),
               p31 + ": expected integer 0..255, got null");
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "\"7\"]"),
               p31 + ": expected integer 0..255, got string \"7\"");
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "[1]]"),
               p31 + ": expected integer 0..255, got array");
  expect_error(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "true]"),
               p31 + ": expected integer 0..255, got boolean true");
  // A flipped digit: syntax error located inside the same value.
  expect_error_contains(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "2x1]"),
                        std::string(kMarkPath) + "[31]: syntax error at byte ");
  expect_error_contains(replace_once(json, mark, mark.substr(0, mark.size() - 4) + "0231]"),
                        std::string(kMarkPath) + "[31]: syntax error at byte ");
}

TEST(C1Json, RejectsMissingUnknownDuplicateFieldsAndBadVariants) {
  const C1Output c1 = marked_2kib();
  const std::string json = write_c1_json(c1);
  const std::string lp0 = "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0]";
  // Drop a field (the first labeling proof's layer_index).
  {
    const std::size_t p = json.find(",\"layer_index\":1,");
    std::string s = json;
    s.erase(p, std::string(",\"layer_index\":1").size());
    expect_error(s, lp0 + ": missing field 'layer_index'");
  }
  {
    std::string s = json;
    s.erase(1, std::string("\"registered_proof\":\"StackedDrg2KiBV1_1\",").size());
    expect_error(s, "(document): missing field 'registered_proof'");
  }
  expect_error(
      "{\"foo\":1," + json.substr(1),
      "foo: unknown field (expected registered_proof, vanilla_proofs, comm_r, comm_d, replica_id, seed, ticket)");
  expect_error(json.substr(0, json.size() - 1) + ",\"seed\":" + seq32_json(0) + "}", "seed: duplicate field");
  expect_error(
      replace_once(json, "\"StackedDrg2KiBV1\":", "\"StackedDrg4KiBV1\":"),
      "vanilla_proofs.StackedDrg4KiBV1: unknown VanillaSealProof variant (expected StackedDrg2KiBV1, StackedDrg8MiBV1, "
      "StackedDrg512MiBV1, StackedDrg32GiBV1, StackedDrg64GiBV1)");
  expect_error(replace_once(json, "\"StackedDrg2KiBV1_1\"", "\"StackedDrg2KiBV9\""),
               "registered_proof: unknown registered proof 'StackedDrg2KiBV9'");
  expect_error(replace_once(json, "\"StackedDrg2KiBV1_1\"", "5"), "registered_proof: expected string, got integer 5");
  {
    std::string s = json;
    const std::size_t p = s.find("{\"data\":{\"Single\"");
    s.replace(p, 17, "{\"data\":{\"Double\"");
    expect_error_contains(s,
                          "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Double: unknown ProofData variant");
  }
  {
    std::string s = json;
    const std::size_t p = s.find("{\"data\":{\"Single\"");
    s.replace(p, 17, "{\"data\":{\"Single\":1,\"Sub\"");
    expect_error_contains(
        s, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data: expected ProofData with exactly one variant");
  }
  {
    std::string s = json;
    const std::size_t p = s.find("\"_h\":null");
    s.replace(p, 9, "\"_h\":0");
    expect_error(
        s, "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column._h: expected null, got integer 0");
  }
  {
    std::string s = json;
    const std::size_t p = s.find("{\"column\":{\"index\":");
    const std::size_t e = s.find(',', p);
    s.replace(p, e - p, "{\"column\":{\"index\":4294967296");
    expect_error(s,
                 "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column.index: expected unsigned "
                 "32-bit integer, got integer 4294967296");
  }
  {
    std::string s = json;
    const std::size_t p = s.find("\"node\":");
    const std::size_t e = s.find('}', p);
    s.replace(p, e - p, "\"node\":-3");
    expect_error(s, lp0 + ".node: expected unsigned 64-bit integer, got integer -3");
    s.replace(p, 9, "\"node\":18446744073709551616");
    expect_error_contains(s, lp0 + ".node: syntax error at byte " + std::to_string(p + 7) +
                                 ": integer 18446744073709551616 out of 64-bit range");
  }
  {
    std::string s = json;
    s[s.find("Single") + 2] = char(0xff);
    expect_error(s, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data: syntax error at byte " +
                        std::to_string(json.find("Single") + 2) + ": invalid UTF-8 in string");
  }
  expect_error(replace_once(json, "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[",
                            "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[{},["),
               "vanilla_proofs.StackedDrg2KiBV1[0]: expected array, got object");
  expect_error("[1,2]", "(document): expected object, got array");
  expect_error_contains(json + "x", "(document): syntax error at byte " + std::to_string(json.size()));
  expect_error_contains(json + "{}", "unexpected text after the document");
}

TEST(C1Json, RejectsTruncationAtEveryOffset) {
  const std::string json = write_c1_json(marked_2kib());
  std::size_t checked = 0;
  const std::size_t vp_begin = json.find("\"vanilla_proofs\":{") + 18, vp_end = json.find("},\"comm_r\":");
  for (std::size_t n = 0; n < json.size(); n += (n < 4096 ? 1 : 97)) {
    auto r = parse_c1_json(std::string_view(json).substr(0, n));
    ASSERT_FALSE(r.ok()) << "accepted a truncation at " << n;
    // Every truncation error is a syntax error naming the offset and an enclosing path.
    ASSERT_NE(r.error().find(": syntax error at byte "), std::string::npos) << r.error();
    if (n > vp_begin && n < vp_end) {
      ASSERT_EQ(r.error().rfind("vanilla_proofs", 0), 0u) << r.error();
    }
    ++checked;
  }
  EXPECT_GT(checked, 4000u);
  auto r = parse_c1_json(std::string_view(json).substr(0, json.find(seq32_json(200)) + 10));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(kMarkPath), std::string::npos) << r.error();
}

TEST(C1Json, ShapeErrorsComeFromCheckC1Shape) {
  // The parser accepts any counts up to the size's maximum (c1_limits.hpp); check_c1_shape names the
  // wrong one. One row fewer parses; one more than the 2 layers is refused by the parser.
  const std::string json = write_c1_json(marked_2kib());
  const std::string mark = seq32_json(200);
  auto fewer = parse_c1_json(replace_once(json, "," + mark, ""));
  ASSERT_TRUE(fewer.ok()) << fewer.error();
  auto st = check_c1_shape(*fewer);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error(),
            "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows: expected 2 rows "
            "(layers), got 1");
  expect_error(
      replace_once(json, mark, mark + "," + mark),
      "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows: 3 elements, at most 2 "
      "expected for 2KiB");
}

TEST(CurioWrapper, RoundTripAndSampleBase64) {
  CurioC1 w;
  w.sector_num = 3751;
  w.sector_size = 2048;
  w.c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 5);
  const std::string text = write_curio_c1_json(w);
  EXPECT_EQ(
      text.rfind("{\"SectorNum\":3751,\"Phase1Out\":\"eyJyZWdpc3RlcmVkX3Byb29mIjoiU3RhY2tlZERyZzJLaUJWMV8xIiwid", 0),
      0u);
  EXPECT_EQ(text.substr(text.size() - 20), "\",\"SectorSize\":2048}");
  auto back = parse_curio_c1(text);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->sector_num, 3751);
  EXPECT_EQ(back->sector_size, 2048u);
  EXPECT_EQ(write_c1_json(back->c1), write_c1_json(w.c1));
  EXPECT_EQ(write_curio_c1_json(*back), text);
  // An escaped character ("\u0065" for 'e') in the base64 string is legal JSON: read through the DOM path.
  const std::size_t e = text.find('e', text.find("Phase1Out"));
  ASSERT_NE(e, std::string::npos);
  auto escaped = parse_curio_c1(text.substr(0, e) + "\\u0065" + text.substr(e + 1));
  ASSERT_TRUE(escaped.ok()) << escaped.error();
  EXPECT_EQ(write_curio_c1_json(*escaped), text);

  // filecoin-formats.md §3.1 public sample prefix.
  const std::string sample = "eyJyZWdpc3RlcmVkX3Byb29mIjoiU3RhY2tlZERyZzUxMk1pQlYxIiwid";
  const std::string expected = "{\"registered_proof\":\"StackedDrg512MiBV1\",\"v";
  auto dec = base64_decode(sample.substr(0, sample.size() / 4 * 4));
  ASSERT_TRUE(dec.ok()) << dec.error();
  EXPECT_EQ(std::string(dec->begin(), dec->end()), expected.substr(0, dec->size()));
  const std::string enc =
      base64_encode(std::span(reinterpret_cast<const std::uint8_t*>(expected.data()), expected.size()));
  EXPECT_EQ(enc.substr(0, sample.size()), sample);  // the 57th character carries the top bits of 'v'
}

TEST(CurioWrapper, RejectsBadWrappers) {
  CurioC1 w;
  w.sector_num = 1;
  w.sector_size = 2048;
  w.c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 5);
  const std::string text = write_curio_c1_json(w);
  auto err = [](const std::string& t) {
    auto r = parse_curio_c1(t);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error();
  };
  const std::size_t b64 = text.find("\"Phase1Out\":\"") + 13;
  {
    std::string s = text;
    s[b64 + 100] = '!';
    EXPECT_EQ(err(s), "Phase1Out: base64: invalid character '!' at offset 100");
  }
  {
    std::string s = text;
    s.erase(b64 + 100, 1);
    EXPECT_NE(err(s).find("Phase1Out: base64: length "), std::string::npos);
  }
  {
    std::string s = text;
    s[b64 + 8] = '=';
    EXPECT_EQ(err(s), "Phase1Out: base64: invalid character '=' at offset 8");
  }
  {
    // Valid base64 of a broken C1: the inner path is reported under Phase1Out.
    CurioC1 bad = w;
    std::string inner = write_c1_json(bad.c1);
    inner = inner.substr(0, inner.size() - 1) + ",\"x\":1}";
    const std::string t = "{\"SectorNum\":1,\"Phase1Out\":\"" +
                          base64_encode(std::span(reinterpret_cast<const std::uint8_t*>(inner.data()), inner.size())) +
                          "\",\"SectorSize\":2048}";
    EXPECT_EQ(err(t).rfind("Phase1Out: x: unknown field", 0), 0u) << err(t);
  }
  EXPECT_EQ(err(replace_once(text, "\"SectorSize\":2048", "\"SectorSize\":4096")),
            "SectorSize: 4096 does not match registered_proof StackedDrg2KiBV1_1 (2048 bytes)");
  EXPECT_EQ(err(replace_once(text, "\"SectorSize\":2048", "\"SectorSize\":\"2048\"")),
            "SectorSize: expected unsigned 64-bit integer, got string \"2048\"");
  EXPECT_EQ(err(replace_once(text, ",\"SectorSize\":2048", "")), "(document): missing field 'SectorSize'");
  EXPECT_EQ(err(replace_once(text, "\"SectorNum\":1", "\"SectorNum\":1,\"Extra\":0")),
            "Extra: unknown field (expected SectorNum, Phase1Out, SectorSize)");
  EXPECT_NE(err(text.substr(0, text.size() / 2)).find("Phase1Out: syntax error at byte"), std::string::npos);
}

TEST(Base64, StrictDecoding) {
  for (std::size_t n = 0; n < 10; ++n) {
    std::vector<std::uint8_t> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(std::uint8_t(0xf0 + i));
    const std::string e = base64_encode(v);
    auto d = base64_decode(e);
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(*d, v);
  }
  EXPECT_EQ(base64_encode(std::vector<std::uint8_t>{'f', 'o', 'o', 'b'}), "Zm9vYg==");
  EXPECT_FALSE(base64_decode("Zm9vYh==").ok());  // non-zero unused bits
  EXPECT_FALSE(base64_decode("Zm9vY===").ok());
  EXPECT_FALSE(base64_decode("Zm9v Yg=").ok());
  EXPECT_FALSE(base64_decode("Zm9vYg=").ok());
  EXPECT_FALSE(base64_decode("Zm=vYg==").ok());
  EXPECT_FALSE(base64_decode("Zm9vYg-_").ok());  // URL alphabet is not accepted
}

}  // namespace
}  // namespace cuzk::filecoin::porep
