// Filecoin parameter cache: the 22 stems / 44 file names from code vs the published parameters.json,
// digests, the cache directory, and verify_params_dir on small files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "filecoin/params/cache_names.hpp"
#include "filecoin/params/manifest.hpp"
#include "filecoin/params/verify.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk {
namespace {

namespace fp = filecoin::params;
namespace bp = formats::bellperson;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kJsonPath = std::string(CUZK_SOURCE_DIR) + "/src/filecoin/params/parameters.json";

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> n{0};
    path_ = std::filesystem::temp_directory_path() /
            ("cuzk_fcp_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& n) const { return (path_ / n).string(); }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(FilecoinParamNames, TwentyTwoStemsFortyFourFiles) {
  const auto& all = fp::all_param_configs();
  ASSERT_EQ(all.size(), 22u);
  std::set<std::string> stems, files;
  for (const auto& c : all) {
    stems.insert(c.stem);
    files.insert(c.params_file());
    files.insert(c.vk_file());
    EXPECT_EQ(c.stem.rfind("v28-" + c.cache_prefix + "-", 0), 0u) << c.stem;
    EXPECT_EQ(c.stem.size(), 4 + c.cache_prefix.size() + 1 + 64);
  }
  EXPECT_EQ(stems.size(), 22u);
  EXPECT_EQ(files.size(), 44u);
  std::size_t porep = 0, winning = 0, window = 0, snap = 0, snap_poseidon = 0;
  for (const auto& c : all) {
    porep += c.family == fp::ProofFamily::kPoRep;
    winning += c.family == fp::ProofFamily::kWinningPoSt;
    window += c.family == fp::ProofFamily::kWindowPoSt;
    snap += c.family == fp::ProofFamily::kSnapDeals;
    snap_poseidon += c.family == fp::ProofFamily::kSnapDealsPoseidon;
  }
  EXPECT_EQ(porep, 5u);
  EXPECT_EQ(winning, 5u);
  EXPECT_EQ(window, 5u);
  EXPECT_EQ(snap, 5u);
  EXPECT_EQ(snap_poseidon, 2u);
}

TEST(FilecoinParamNames, NamesEqualTheCommittedParametersJson) {
  std::string text = read_text(kJsonPath);
  ASSERT_FALSE(text.empty()) << kJsonPath;
  auto j = nlohmann::json::parse(text);
  std::set<std::string> published, ours;
  for (auto it = j.begin(); it != j.end(); ++it) published.insert(it.key());
  for (const auto& c : fp::all_param_configs()) {
    ours.insert(c.params_file());
    ours.insert(c.vk_file());
    // sector_size recorded for both files matches the config.
    EXPECT_EQ(j[c.params_file()]["sector_size"].get<std::uint64_t>(), c.sector_size) << c.params_file();
    EXPECT_EQ(j[c.vk_file()]["sector_size"].get<std::uint64_t>(), c.sector_size) << c.vk_file();
  }
  EXPECT_EQ(published.size(), 44u);
  EXPECT_EQ(ours, published);
}

TEST(FilecoinParamNames, EmbeddedManifestIsTheCommittedFile) {
  EXPECT_EQ(std::string(fp::published_parameters_json()), read_text(kJsonPath));
  const auto& m = fp::published_parameters();
  ASSERT_EQ(m.size(), 44u);
  for (const auto& e : m) {
    EXPECT_EQ(e.digest.size(), 32u) << e.file;
    EXPECT_EQ(e.digest.find_first_not_of("0123456789abcdef"), std::string::npos) << e.file;
    EXPECT_FALSE(e.cid.empty());
    auto cfg = fp::find_config_for_file(e.file);
    ASSERT_TRUE(cfg.has_value()) << e.file;
    EXPECT_EQ(cfg->sector_size, e.sector_size);
  }
  // A few published digests (filecoin-formats.md 1.4).
  auto digest = [](const std::string& f) {
    auto* e = fp::find_published(f);
    return e ? e->digest : std::string();
  };
  auto porep2k = fp::make_param_config(fp::ProofFamily::kPoRep, fp::kSectorSize2KiB);
  ASSERT_TRUE(porep2k);
  EXPECT_EQ(digest(porep2k->params_file()), "434fb1338ecfaf0f59256f30dde4968f");
  EXPECT_EQ(digest(porep2k->vk_file()), "dc1ade9929ade1708238f155343044ac");
  auto porep32g = fp::make_param_config(fp::ProofFamily::kPoRep, fp::kSectorSize32GiB);
  EXPECT_EQ(digest(porep32g->params_file()), "6a388072a518cf46ebd661f5cc46900a");
}

TEST(FilecoinParamNames, KnownStemsAndIdentifiers) {
  auto c = fp::make_param_config(fp::ProofFamily::kPoRep, fp::kSectorSize2KiB).value();
  EXPECT_EQ(c.identifier,
            "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
            "drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
            "layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }");
  EXPECT_EQ(c.stem,
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f");
  auto p32 = fp::make_param_config(fp::ProofFamily::kPoRep, fp::kSectorSize32GiB).value();
  EXPECT_EQ(p32.stem,
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
            "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820");
  auto win = fp::make_param_config(fp::ProofFamily::kWinningPoSt, fp::kSectorSize2KiB).value();
  EXPECT_EQ(win.identifier, "FallbackPoSt::PublicParams{sector_size: 2048, challenge_count: 1, sector_count: 66}");
  EXPECT_EQ(win.stem.substr(win.stem.size() - 64, 8), "3ea05428");
  auto window32 = fp::make_param_config(fp::ProofFamily::kWindowPoSt, fp::kSectorSize32GiB).value();
  EXPECT_EQ(window32.identifier,
            "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 10, sector_count: 2349}");
  EXPECT_EQ(window32.stem.substr(window32.stem.size() - 64, 8), "0377ded6");
  auto snap = fp::make_param_config(fp::ProofFamily::kSnapDealsPoseidon, fp::kSectorSize64GiB).value();
  EXPECT_EQ(snap.identifier, "empty_sector_update::PublicParams{ sector_nodes: 2147483648 }");
  EXPECT_EQ(snap.cache_prefix, "empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2");
  EXPECT_FALSE(fp::make_param_config(fp::ProofFamily::kSnapDealsPoseidon, fp::kSectorSize2KiB).has_value());
  EXPECT_FALSE(fp::make_param_config(fp::ProofFamily::kPoRep, 4096).has_value());
  EXPECT_EQ(fp::porep_challenges_per_partition(fp::kSectorSize64GiB), 18);
  EXPECT_EQ(fp::sector_size_name(fp::kSectorSize512MiB), "512MiB");
  EXPECT_EQ(c.label(), "porep 2KiB");
  auto found = fp::find_config_for_file(p32.meta_file());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->stem, p32.stem);
  EXPECT_FALSE(fp::find_config_for_file("v28-nothing.params"));
}

TEST(FilecoinParamDigests, KnownAnswers) {
  EXPECT_EQ(fp::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(fp::blake2b512_hex("abc"),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  TempDir dir;
  std::string content(3 * (8 << 20) + 12345, '\0');  // spans several 8 MiB read chunks
  for (std::size_t i = 0; i < content.size(); ++i) content[i] = char((i * 131) >> 3);
  std::ofstream(dir.file("f.bin"), std::ios::binary) << content;
  auto d = fp::blake2b512_file_hex(dir.file("f.bin"));
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(*d, fp::blake2b512_hex(content));
  EXPECT_FALSE(fp::blake2b512_file_hex(dir.file("missing")).ok());
}

TEST(FilecoinParamCache, DirectoryFromEnvironmentValue) {
  // The apps pass getenv("FIL_PROOFS_PARAMETER_CACHE"); unset and empty both mean the default.
  EXPECT_EQ(fp::parameter_cache_dir(), "/var/tmp/filecoin-proof-parameters");
  EXPECT_EQ(fp::parameter_cache_dir("/data/params/"), "/data/params");
  EXPECT_EQ(fp::parameter_cache_dir(""), "/var/tmp/filecoin-proof-parameters");
}

// A small test key (2 inputs) standing in for a published parameter set in verify tests.
groth16::ProvingKey tiny_key(std::uint64_t seed) {
  groth16::R1csShape s;
  s.num_inputs = 2;  // ONE, x
  s.num_aux = 2;     // t, u
  using T = std::pair<std::uint32_t, math::Fr>;
  auto one = math::Fr::one();
  std::vector<T> a1 = {{1, one}}, b1 = {{1, one}}, c1 = {{2, one}};
  std::vector<T> a2 = {{2, one}}, b2 = {{1, one}}, c2 = {{3, one}};
  s.a.add_row(a1);
  s.b.add_row(b1);
  s.c.add_row(c1);
  s.a.add_row(a2);
  s.b.add_row(b2);
  s.c.add_row(c2);
  s.append_input_rows();
  auto pk = groth16::generate_test_key(s, groth16::HBasis::kMonomialOverZ, groth16::ToxicWaste::from_seed(seed));
  EXPECT_TRUE(pk.ok());
  return std::move(pk).value();
}

const fp::FileCheck* find(const fp::VerifyReport& r, const std::string& file) {
  for (const auto& f : r.files) {
    if (f.file == file) return &f;
  }
  return nullptr;
}

TEST(FilecoinParamVerify, EmptyDirectoryIsAllMissing) {
  TempDir dir;
  auto r = fp::verify_params_dir(dir.str(), false);
  EXPECT_EQ(r.files.size(), 44u);
  EXPECT_EQ(r.missing, 44u);
  EXPECT_EQ(r.ok, 0u);
  EXPECT_EQ(r.bad, 0u);
  EXPECT_TRUE(r.all_good());
  // Order: per config, .params then .vk.
  EXPECT_EQ(r.files[0].file, fp::all_param_configs()[0].params_file());
  EXPECT_EQ(r.files[1].file, fp::all_param_configs()[0].vk_file());
}

TEST(FilecoinParamVerify, FastAndFullChecks) {
  TempDir dir;
  auto win = fp::make_param_config(fp::ProofFamily::kWinningPoSt, fp::kSectorSize2KiB).value();
  auto pk = tiny_key(41);
  ASSERT_TRUE(bp::write_params(dir.file(win.params_file()), pk).ok());
  ASSERT_TRUE(bp::write_vk(dir.file(win.vk_file()), pk.vk).ok());
  ASSERT_TRUE(bp::write_meta(dir.file(win.meta_file()), {2048}).ok());

  std::vector<std::string> seen;
  fp::VerifyOptions opt;
  opt.on_file = [&](const fp::FileCheck& f) { seen.push_back(f.file); };
  auto r = fp::verify_params_dir(dir.str(), opt);
  EXPECT_EQ(seen.size(), 45u);
  EXPECT_EQ(r.ok, 3u);
  EXPECT_EQ(r.missing, 42u);
  EXPECT_EQ(r.bad, 0u);
  ASSERT_NE(find(r, win.params_file()), nullptr);
  EXPECT_EQ(find(r, win.params_file())->status, fp::CheckStatus::kOk);
  EXPECT_EQ(find(r, win.params_file())->reason, "params, domain 2^2, 2 inputs (ONE included), 2 aux");
  EXPECT_EQ(find(r, win.meta_file())->status, fp::CheckStatus::kOk);

  // Full: our test files do not have the published digests.
  fp::VerifyOptions full;
  full.full = true;
  r = fp::verify_params_dir(dir.str(), full);
  EXPECT_EQ(r.bad, 2u);
  const auto* p = find(r, win.params_file());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->status, fp::CheckStatus::kBad);
  EXPECT_TRUE(p->digest_checked);
  EXPECT_NE(p->reason.find("does not match the published 82c88066be968bb550a05e30ff6c2413"), std::string::npos)
      << p->reason;

  // ... and with a manifest that lists their digests, they pass.
  auto manifest = fp::published_parameters();
  for (auto& e : manifest) {
    if (e.file == win.params_file() || e.file == win.vk_file()) {
      e.digest = fp::blake2b512_file_hex(dir.file(e.file)).value().substr(0, 32);
    }
  }
  r = fp::verify_params_dir(dir.str(), full, manifest);
  EXPECT_EQ(r.bad, 0u);
  EXPECT_EQ(r.ok, 3u);
  EXPECT_NE(find(r, win.vk_file())->reason.find("digest matches"), std::string::npos);
}

TEST(FilecoinParamVerify, BadFilesAreReported) {
  TempDir dir;
  auto win = fp::make_param_config(fp::ProofFamily::kWindowPoSt, fp::kSectorSize8MiB).value();
  auto pk = tiny_key(42), other = tiny_key(43);
  ASSERT_TRUE(bp::write_params(dir.file(win.params_file()), pk).ok());
  ASSERT_TRUE(bp::write_vk(dir.file(win.vk_file()), other.vk).ok());    // a different key's vk
  ASSERT_TRUE(bp::write_meta(dir.file(win.meta_file()), {2048}).ok());  // wrong sector size
  auto r = fp::verify_params_dir(dir.str(), false);
  EXPECT_EQ(r.bad, 2u);
  EXPECT_FALSE(r.all_good());
  EXPECT_EQ(find(r, win.params_file())->reason, "its verifying key differs from " + win.vk_file());
  EXPECT_EQ(find(r, win.vk_file())->status, fp::CheckStatus::kOk);
  EXPECT_EQ(find(r, win.meta_file())->reason, "sector_size 2048, expected 8388608");

  // A truncated .params file: the reader's one-line reason, without the path.
  auto bytes = bp::encode_params(bp::ParamsRef::of(pk)).value();
  std::ofstream(dir.file(win.params_file()), std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size() - 10));
  r = fp::verify_params_dir(dir.str(), false);
  const auto* p = find(r, win.params_file());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->status, fp::CheckStatus::kBad);
  EXPECT_EQ(p->reason.rfind("section b_g2 at offset ", 0), 0u) << p->reason;

  // A PoRep file with the wrong number of public inputs (the circuit has 40).
  auto porep = fp::make_param_config(fp::ProofFamily::kPoRep, fp::kSectorSize2KiB).value();
  ASSERT_TRUE(bp::write_vk(dir.file(porep.vk_file()), pk.vk).ok());
  r = fp::verify_params_dir(dir.str(), false);
  EXPECT_EQ(find(r, porep.vk_file())->reason, "has 2 inputs (ONE included), the porep 2KiB circuit has 40");
  EXPECT_EQ(fp::expected_num_inputs(fp::make_param_config(fp::ProofFamily::kPoRep, fp::kSectorSize32GiB).value()),
            328u);

  // A directory where a file should be.
  std::filesystem::create_directory(dir.file(porep.params_file()));
  r = fp::verify_params_dir(dir.str(), false);
  EXPECT_EQ(find(r, porep.params_file())->reason, "not a regular file");
}

}  // namespace
}  // namespace cuzk
