// Hostile C1s (issue 28 item 0): every array of a C1 JSON replaced by ~38 MiB of zeros, every Vec
// length of a C1 bincode patched to a huge value, each parsed in a forked child whose peak RSS is
// measured (filecoin/testkit/peak_rss.hpp): refused with the array's path and the numbers, in bounded
// memory. Also the limits themselves (c1_limits.hpp) against the registered proofs' shapes.
#include <gtest/gtest.h>

#include <cstring>

#include "c1_test_util.hpp"
#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_fields.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_limits.hpp"
#include "filecoin/testkit/peak_rss.hpp"
#include "formats/bincode_fields.hpp"

namespace cuzk::filecoin::porep {
namespace {

using testing::marked_2kib;
using testkit::run_in_child;

constexpr std::size_t kHostileBytes = 38u << 20;
constexpr std::uint64_t kMiB = 1u << 20;

// "[0,0,...,0]" of about `bytes` bytes (19,922,943 zeros for 38 MiB).
std::string zeros(std::size_t bytes) {
  std::string s;
  s.reserve(bytes + 2);
  s += '[';
  while (s.size() + 2 < bytes) s += "0,";
  s += "0]";
  return s;
}
std::size_t zeros_count(std::size_t bytes) { return (zeros(bytes).size() - 1) / 2; }

// The end of the JSON value starting at `at` (arrays / objects by bracket counting; no brackets in keys).
std::size_t value_end(const std::string& s, std::size_t at) {
  int depth = 0;
  for (std::size_t i = at; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '{') ++depth;
    if (s[i] == ']' || s[i] == '}')
      if (--depth == 0) return i + 1;
  }
  return std::string::npos;
}

// `json` with the array that starts right after the `nth` occurrence of `pattern` replaced by `with`.
std::string replace_array(const std::string& json, const std::string& pattern, int nth, const std::string& with) {
  std::size_t at = 0;
  for (int k = 0; k <= nth; ++k) {
    at = json.find(pattern, k == 0 ? 0 : at + 1);
    if (at == std::string::npos) return {};
  }
  at += pattern.size();
  if (json[at] != '[') return {};
  const std::size_t end = value_end(json, at);
  return json.substr(0, at) + with + json.substr(end);
}

struct Hostile {
  const char* pattern;  // the array starts right after the nth occurrence
  int nth;
  const char* path;   // the error's path
  std::uint64_t max;  // what the message says is expected (0: a fixed-size byte array)
};

// Every array of a 2 KiB C1 (field order: comm_d_proofs, comm_r_last_proof, c_x, drg_parents,
// exp_parents, labeling_proofs, encoding_proof).
const Hostile kHostile2KiB[] = {
    {"\"StackedDrg2KiBV1\":", 0, "vanilla_proofs.StackedDrg2KiBV1", 13},
    {"\"StackedDrg2KiBV1\":[", 0, "vanilla_proofs.StackedDrg2KiBV1[0]", 2},
    {"\"path\":{\"path\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Single.path.path", 6},
    {"\"hashes\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Single.path.path[0].hashes", 1},
    {"\"path\":{\"path\":", 1, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_r_last_proof.data.Single.path.path", 2},
    {"\"hashes\":", 6, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_r_last_proof.data.Single.path.path[0].hashes", 7},
    {"\"rows\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column.rows", 2},
    {"\"path\":{\"path\":", 2,
     "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.inclusion_proof.data.Single.path.path", 2},
    {"\"drg_parents\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.drg_parents", 6},
    {"\"rows\":", 1, "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.drg_parents[0].column.rows", 2},
    {"\"exp_parents\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.exp_parents", 8},
    {"\"labeling_proofs\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs", 2},
    {"\"parents\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].parents", 37},
    {"\"encoding_proof\":{\"parents\":", 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].encoding_proof.parents", 37},
    {"\"comm_r\":", 0, "comm_r", 0},
    {"\"ticket\":", 0, "ticket", 0},
};

// Runs parse in a child; returns the error, checks the child's peak RSS against `max_peak`.
std::string refused_in_bounded_memory(const std::function<std::string()>& parse, std::uint64_t max_peak,
                                      std::uint64_t* growth = nullptr) {
  const auto run = run_in_child(parse);
  EXPECT_TRUE(run.exited) << "the child crashed";
  EXPECT_LT(run.peak_rss, max_peak) << "peak RSS " << run.peak_rss / kMiB << " MiB: " << run.result;
  if (growth) *growth = run.growth();
  return run.result;
}

TEST(C1Limits, ShapeMaximaPerSize) {
  const C1Limits k32(32ull << 30), any;
  const formats::JsonPath root = formats::root_path();
  const formats::JsonPath vp = root.child("vanilla_proofs"), key = vp.child("StackedDrg32GiBV1"), part = key.child(0);
  EXPECT_EQ(k32.max_elements(key), 126u);  // NI: 126 partitions (interactive 10)
  EXPECT_EQ(k32.max_elements(part), 18u);
  EXPECT_EQ(k32.max_elements(vp), 126u);  // bincode names the partitions vanilla_proofs
  EXPECT_EQ(k32.max_elements(vp.child(3)), 18u);
  EXPECT_EQ(k32.expected_for(), "32GiB");
  const formats::JsonPath cp = part.child(0), cd = cp.child("comm_d_proofs"), cd_data = cd.child("data"),
                          cd_single = cd_data.child("Single"), cd_seg = cd_single.child("path"),
                          cd_levels = cd_seg.child("path"), cd_level = cd_levels.child(0),
                          cd_hashes = cd_level.child("hashes");
  EXPECT_EQ(k32.max_elements(cd_levels), 30u);
  EXPECT_EQ(k32.max_elements(cd_hashes), 1u);
  const formats::JsonPath rl = cp.child("comm_r_last_proof"), rl_data = rl.child("data"), rl_sub = rl_data.child("Sub"),
                          rl_base = rl_sub.child("base_proof"), rl_base_levels = rl_base.child("path"),
                          rl_sub_seg = rl_sub.child("sub_proof"), rl_sub_levels = rl_sub_seg.child("path"),
                          rl_level = rl_base_levels.child(0), rl_hashes = rl_level.child("hashes");
  EXPECT_EQ(k32.max_elements(rl_base_levels), 9u);
  EXPECT_EQ(k32.max_elements(rl_sub_levels), 1u);
  EXPECT_EQ(k32.max_elements(rl_hashes), 7u);
  const formats::JsonPath rcp = cp.child("replica_column_proofs"), drg = rcp.child("drg_parents"),
                          exp = rcp.child("exp_parents"), col = drg.child(0), colg = col.child("column"),
                          rows = colg.child("rows"), lps = cp.child("labeling_proofs"), lp = lps.child(0),
                          parents = lp.child("parents"), other = cp.child("something_else");
  EXPECT_EQ(k32.max_elements(drg), 6u);
  EXPECT_EQ(k32.max_elements(exp), 8u);
  EXPECT_EQ(k32.max_elements(rows), 11u);
  EXPECT_EQ(k32.max_elements(lps), 11u);
  EXPECT_EQ(k32.max_elements(parents), 37u);
  EXPECT_EQ(k32.max_elements(other), formats::kNoElementLimit);
  // Over every registered proof: 64 GiB's tree D (31 levels), 126 partitions.
  EXPECT_EQ(any.max_elements(cd_levels), 31u);
  EXPECT_EQ(any.max_elements(vp), 126u);
  EXPECT_EQ(any.expected_for(), "any registered PoRep proof");
  EXPECT_EQ(C1Limits::for_vanilla_key("StackedDrg2KiBV1")->max_elements(key), 13u);
  EXPECT_EQ(C1Limits::for_vanilla_key("StackedDrg2KiBV1")->expected_for(), "2KiB");
  EXPECT_EQ(C1Limits::for_vanilla_key("StackedDrg3KiBV1"), nullptr);
}

TEST(C1Limits, ZerosAt32GiBRefusedWithTheExpectedShape) {
  // The document: 38 MiB, a 32 GiB partition of ~20 million zeros.
  std::uint64_t growth = 0;
  const std::string err = refused_in_bounded_memory(
      [] {
        const std::string doc =
            "{\"registered_proof\":\"StackedDrg32GiBV1_1\",\"vanilla_proofs\":{\"StackedDrg32GiBV1\":[" +
            zeros(kHostileBytes) + "]},\"comm_r\":[],\"comm_d\":[],\"replica_id\":[],\"seed\":[],\"ticket\":[]}";
        auto r = parse_c1_json(doc);
        return r.ok() ? std::string("accepted") : r.error();
      },
      1024 * kMiB, &growth);
  EXPECT_EQ(err, "vanilla_proofs.StackedDrg32GiBV1[0]: " + std::to_string(zeros_count(kHostileBytes)) +
                     " elements, at most 18 expected for 32GiB");
  std::printf("38 MiB of zeros as a 32 GiB partition: refused, peak RSS growth %.1f MiB\n", double(growth) / kMiB);
  EXPECT_LT(growth, 128 * kMiB);
}

TEST(C1Limits, EveryArrayOfZerosRefusedWithItsPath) {
  const std::string json = write_c1_json(marked_2kib());
  const std::string big = zeros(kHostileBytes);
  const std::string n = std::to_string(zeros_count(kHostileBytes));
  for (const Hostile& h : kHostile2KiB) {
    SCOPED_TRACE(h.path);
    ASSERT_FALSE(replace_array(json, h.pattern, h.nth, "[]").empty()) << "pattern not found";
    std::uint64_t growth = 0;
    const std::string err = refused_in_bounded_memory(
        [&] {
          auto r = parse_c1_json(replace_array(json, h.pattern, h.nth, big));
          return r.ok() ? std::string("accepted") : r.error();
        },
        1024 * kMiB, &growth);
    if (h.max == 0) EXPECT_EQ(err, std::string(h.path) + ": expected 32 bytes, got " + n);
    else
      EXPECT_EQ(err,
                std::string(h.path) + ": " + n + " elements, at most " + std::to_string(h.max) + " expected for 2KiB");
    std::printf("%-100s peak RSS growth %6.1f MiB\n", h.path, double(growth) / kMiB);
    // The document (38 MiB) and the reader's padded copy of it; no DOM of the zeros.
    EXPECT_LT(growth, 128 * kMiB);
  }
}

TEST(C1Limits, CurioWrapperAroundZerosRefused) {
  CurioC1 w;
  w.sector_num = 1;
  w.sector_size = 2048;
  w.c1 = marked_2kib();
  const std::string inner = replace_array(write_c1_json(w.c1), "\"rows\":", 0, zeros(kHostileBytes));
  std::uint64_t growth = 0;
  const std::string err = refused_in_bounded_memory(
      [&] {
        const std::string doc =
            "{\"SectorNum\":1,\"Phase1Out\":\"" +
            base64_encode(std::span(reinterpret_cast<const std::uint8_t*>(inner.data()), inner.size())) +
            "\",\"SectorSize\":2048}";
        auto r = parse_curio_c1(doc);
        return r.ok() ? std::string("accepted") : r.error();
      },
      1024 * kMiB, &growth);
  EXPECT_EQ(err, "Phase1Out: vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column.rows: " +
                     std::to_string(zeros_count(kHostileBytes)) + " elements, at most 2 expected for 2KiB");
  std::printf("Curio wrapper (%.1f MiB of base64): peak RSS growth %.1f MiB\n", double(inner.size()) * 4 / 3 / kMiB,
              double(growth) / kMiB);
  // Zeros in the wrapper itself: refused before a DOM is built of them.
  const std::string err2 = refused_in_bounded_memory(
      [&] {
        const std::string doc = "{\"SectorNum\":" + zeros(kHostileBytes) + ",\"Phase1Out\":\"\",\"SectorSize\":2048}";
        auto r = parse_curio_c1(doc);
        return r.ok() ? std::string("accepted") : r.error();
      },
      1024 * kMiB, &growth);
  EXPECT_EQ(err2, "(document): " + std::to_string(zeros(kHostileBytes).size() + 47) +
                      " bytes outside the Phase1Out string, a Curio C1 wrapper has at most 65536");
  EXPECT_LT(growth, 128 * kMiB);
}

// Every Vec length of a bincode C1, in reading order: the offset of its u64 and its path.
struct LengthField {
  std::size_t at;
  std::string path;
};
class RecordLengths final : public formats::ElementLimits {
 public:
  const formats::BincodeReader* reader = nullptr;
  mutable std::vector<LengthField> seen;
  std::uint64_t max_elements(const formats::JsonPath& p) const override {
    seen.push_back({reader->pos() - 8, p.str()});
    return formats::kNoElementLimit;
  }
  std::string_view expected_for() const override { return {}; }
};

std::vector<LengthField> length_fields(const std::vector<std::uint8_t>& bin) {
  formats::BincodeReader r(bin);
  RecordLengths rec;
  rec.reader = &r;
  r.limits = &rec;
  std::vector<std::vector<ChallengeProof>> vp;
  EXPECT_TRUE(formats::bincode_read(r, formats::root_path().child("vanilla_proofs"), vp)) << r.err;
  return rec.seen;
}

// The path with every index replaced by [i] (one representative per kind of Vec).
std::string generic(const std::string& path) {
  std::string s;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') {
      s += "[i]";
      i = path.find(']', i);
    } else {
      s += path[i];
    }
  }
  return s;
}

TEST(C1Limits, EveryBincodeLengthPatchedRefused) {
  const auto good = write_c1_bincode(marked_2kib());
  const auto fields = length_fields(good);
  ASSERT_GT(fields.size(), 100u);
  std::vector<std::string> kinds;
  // 38 MiB of zeros after the document: a length of 100,000 fits in the bytes that remain, so it
  // is the shape that refuses it; 2^60 is refused by the bytes that remain.
  for (const LengthField& f : fields) {
    const std::string g = generic(f.path);
    if (std::find(kinds.begin(), kinds.end(), g) != kinds.end()) continue;
    kinds.push_back(g);
    SCOPED_TRACE(f.path);
    for (const std::uint64_t len : {std::uint64_t(100000), std::uint64_t(1) << 60}) {
      std::uint64_t growth = 0;
      const std::string err = refused_in_bounded_memory(
          [&] {
            std::vector<std::uint8_t> b = good;
            b.resize(good.size() + kHostileBytes);
            std::memcpy(&b[f.at], &len, 8);
            auto r = parse_c1_bincode(b, "");
            return r.ok() ? std::string("accepted") : r.error();
          },
          256 * kMiB, &growth);
      const std::string head = "bincode: offset " + std::to_string(f.at) + ": " + f.path + ": ";
      EXPECT_EQ(err.substr(0, head.size()), head) << err;
      if (len == 100000) EXPECT_NE(err.find("100000 elements, at most "), std::string::npos) << err;
      else EXPECT_NE(err.find("length 1152921504606846976 needs at least"), std::string::npos) << err;
      EXPECT_LT(growth, 64 * kMiB) << err;
    }
  }
  for (const auto& k : kinds) std::printf("  %s\n", k.c_str());
  EXPECT_EQ(kinds.size(), 20u);  // every kind of Vec of a 2 KiB C1
  // With the registered proof (or the expected size) the maxima are the size's.
  std::vector<std::uint8_t> b = good;
  std::uint64_t partitions = 14;
  std::memcpy(&b[0], &partitions, 8);
  EXPECT_EQ(parse_c1_bincode(b, "StackedDrg2KiBV1_1").error(),
            "bincode: offset 0: vanilla_proofs: 14 elements, at most 13 expected for 2KiB");
  EXPECT_EQ(parse_c1_any(b, 2048).error(),
            "bincode: bincode: offset 0: vanilla_proofs: 14 elements, at most 13 expected for 2KiB");
  partitions = 127;
  std::memcpy(&b[0], &partitions, 8);
  EXPECT_EQ(parse_c1_bincode(b, "").error(),
            "bincode: offset 0: vanilla_proofs: 127 elements, at most 126 expected for any registered PoRep proof");
}

TEST(C1Limits, ParseMemoryWithinTheEstimate) {
  // A 32 GiB-shaped C1 (10 x 18 challenge proofs) in all three forms, each parsed by parse_c1_any in
  // a child that holds only the input: the peak RSS growth stays within c1_parse_bytes(input size).
  const C1Output c1 = testkit::random_c1_for_tests(porep_config_by_name("StackedDrg32GiBV1_1"), 3);
  CurioC1 w;
  w.sector_num = 1;
  w.sector_size = 32ull << 30;
  w.c1 = c1;
  const std::string json = write_c1_json(c1), curio = write_curio_c1_json(w);
  const std::vector<std::uint8_t> bin = write_c1_bincode(c1);
  auto bytes = [](const std::string& s) {
    return std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  const struct {
    const char* name;
    std::span<const std::uint8_t> input;
  } forms[] = {{"C1 JSON", bytes(json)}, {"Curio wrapper", bytes(curio)}, {"bincode", std::span(bin)}};
  for (const auto& f : forms) {
    const auto run = run_in_child([&] {
      auto r = parse_c1_any(f.input);
      return r.ok() ? std::string() : r.error();
    });
    ASSERT_TRUE(run.exited);
    EXPECT_EQ(run.result, "") << f.name;
    EXPECT_LT(run.growth(), c1_parse_bytes(f.input.size())) << f.name;
    std::printf("%-14s %6.1f MiB input: peak RSS growth %6.1f MiB (%.2f x input), estimate %6.1f MiB\n", f.name,
                double(f.input.size()) / kMiB, double(run.growth()) / kMiB,
                double(run.growth()) / double(f.input.size()), double(c1_parse_bytes(f.input.size())) / kMiB);
  }
}

TEST(C1Limits, ValidDocumentsStillParse) {
  for (const char* name : {"StackedDrg2KiBV1_1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "StackedDrg8MiBV1",
                           "StackedDrg512MiBV1_1", "StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"}) {
    const C1Output c1 = testkit::random_c1_for_tests(porep_config_by_name(name), 5);
    auto j = parse_c1_json(write_c1_json(c1));
    ASSERT_TRUE(j.ok()) << j.error();
    auto b = parse_c1_bincode(write_c1_bincode(c1), name);
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_EQ(write_c1_json(*b), write_c1_json(c1));
  }
}

}  // namespace
}  // namespace cuzk::filecoin::porep
