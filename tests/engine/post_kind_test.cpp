// WindowPoSt and WinningPoSt through the engine on the CPU backend (engine/kinds/post_kind.cpp):
// the shared TEST-ONLY 2 KiB PoSt parameters (CUZK_POST_PARAMS_2K, ctest fixture post_params_2k), or,
// when the binary runs alone, keys written here under the official names (seeded toxic waste, the
// recorded partition shape cached beside them as the daemon's loader expects); SYNTHETIC TEST DATA
// vanilla proofs (testkit/post_vanilla.hpp). Window V1 (code 5, partitions 0 and 1, one and two sectors),
// Window V1_1 (code 10) and Winning (code 0) jobs submitted at once all complete with 192 bytes that
// the .vk file accepts (post::verify_post) and that are bound to their partition; malformed requests
// fail naming the field, before any key is loaded, while the engine keeps serving (the key preloaded
// by its id, as srs.preload names it); 64 GiB codes ask
// for the 64 GiB keys (wpost-64g / winning-64g, never a 32 GiB key).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <unistd.h>

#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/post_job.hpp"
#include "filecoin/post/shape.hpp"
#include "filecoin/post/vanilla.hpp"
#include "filecoin/testkit/post_vanilla.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "groth16/test_setup.hpp"
#include "test_executor.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

namespace post = filecoin::post;
namespace params = filecoin::params;
namespace testkit = filecoin::testkit;
using namespace std::chrono_literals;

constexpr std::uint32_t kWindow = static_cast<std::uint32_t>(ProofKind::kWindowPoSt);
constexpr std::uint32_t kWinning = static_cast<std::uint32_t>(ProofKind::kWinningPoSt);

const post::PostConfig& cfg(std::uint32_t code) { return *post::post_config_by_code(code).value(); }

filecoin::Bytes32 randomness(std::uint8_t v) {
  filecoin::Bytes32 r;
  for (std::size_t i = 0; i < 32; ++i) r[i] = std::uint8_t(v + 29 * i);
  r[31] &= 0x3f;
  return r;
}

bool has_keys(const std::string& dir) {
  for (std::uint32_t code : {10u, 0u}) {
    auto paths = params::param_paths(cfg(code).family(), 2048, dir);
    if (!paths || !std::filesystem::is_regular_file(paths->params) || !std::filesystem::is_regular_file(paths->vk))
      return false;
  }
  return true;
}

// The shared TEST-ONLY 2 KiB PoSt parameters (ctest fixture post_params_2k, `cuzk setup`) when
// CUZK_POST_PARAMS_2K names a folder that has them; else a folder of this process (removed at exit)
// where write_test_keys writes them.
std::string key_dir() {
  struct Dir {
    std::string path;
    bool own = false;
    Dir() {
      const char* env = std::getenv("CUZK_POST_PARAMS_2K");
      if (env && *env && has_keys(env)) {
        path = env;
      } else {
        own = true;
        path =
            (std::filesystem::temp_directory_path() / ("cuzk_engine_post_test_" + std::to_string(::getpid()))).string();
      }
    }
    ~Dir() {
      std::error_code ec;
      if (own) std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

// TEST-ONLY keys for the 2 KiB Window (codes 5 and 10 share them) or Winning circuit, written once
// per process under the official file names, the shape cached as "<params>.shape" (where the daemon's
// loader looks for it). Winning's 2^17-row key takes most of the test's time.
void write_test_keys(post::PostType type) {
  static std::mutex mu;
  static bool written[2] = {false, false};
  std::lock_guard<std::mutex> g(mu);
  if (written[int(type)]) return;
  written[int(type)] = true;
  std::filesystem::create_directories(key_dir());
  const post::PostConfig& c = cfg(type == post::PostType::kWinning ? 0 : 10);
  auto paths = params::param_paths(c.family(), c.sector_size, key_dir());
  ASSERT_TRUE(paths) << paths.error();
  if (std::filesystem::is_regular_file(paths->params) && std::filesystem::is_regular_file(paths->vk)) return;
  auto load = post::load_or_record_post_shape(c, filecoin::shape_cache_path(paths->params));
  EXPECT_EQ(load.source, filecoin::ShapeLoad::Source::kRecordedSaved) << load.note;
  const groth16::R1csShape& shape = load.shape;
  const std::uint64_t bytes = shape.a.memory_bytes() + shape.b.memory_bytes() + shape.c.memory_bytes();
  std::printf("%s: %zu rows, 2^%u domain, shape %llu bytes = %.1f B per domain row\n", c.name.c_str(),
              shape.num_constraints(), shape.domain_log2(), (unsigned long long)bytes,
              double(bytes) / double(std::uint64_t(1) << shape.domain_log2()));
  auto st = formats::bellperson::write_test_params(shape, groth16::ToxicWaste::from_seed(11 + int(type)), paths->params,
                                                   paths->vk);
  ASSERT_TRUE(st) << st.error();
}

EngineOptions post_options() {
  std::filesystem::create_directories(key_dir());
  EngineOptions o;
  kinds::register_builtin_kinds(o.kinds);
  o.memory_budget_bytes = std::uint64_t(4) << 30;
  o.param_cache = key_dir();
  o.srs_min_idle = 0ms;
  o.workers_per_device = 1;
  return o;
}

std::vector<std::string> blobs_of(const std::vector<post::FallbackPostSectorProof>& proofs) {
  std::vector<std::string> out;
  for (const auto& p : proofs) {
    auto b = post::write_sector_proof(p);
    out.emplace_back(b.begin(), b.end());
  }
  return out;
}

// A request as Curio sends it, for SYNTHETIC sectors first_id, first_id + 1, ... of partition k.
struct PostCase {
  ProofRequest req;
  std::vector<post::FallbackPostSectorProof> proofs;
};
PostCase post_case(std::uint32_t code, std::size_t sectors, std::uint32_t k, std::uint64_t first_id, std::uint8_t rnd) {
  const post::PostConfig& c = cfg(code);
  PostCase pc;
  pc.proofs = testkit::synthetic_post_vanilla(c, sectors, randomness(rnd), k, first_id, first_id * 7 + rnd);
  ProofRequest& r = pc.req;
  r.request_id = std::string(c.type == post::PostType::kWinning ? "winpost-" : "wdpost-") + std::to_string(code) + "-" +
                 std::to_string(k) + "-" + std::to_string(first_id);
  r.proof_kind = c.type == post::PostType::kWinning ? kWinning : kWindow;
  r.registered_proof = code;
  r.sector_size = c.sector_size;
  r.miner_id = 1000;
  r.partition_index = k;
  const auto rb = randomness(rnd);
  r.randomness.assign(reinterpret_cast<const char*>(rb.data()), rb.size());
  r.vanilla_proofs = blobs_of(pc.proofs);
  return pc;
}

// post::verify_post with the .vk file (not the key the engine loaded) and the public sectors.
Result<bool> verify_with_vk(const PostCase& pc, const std::string& proof, std::optional<std::uint32_t> k = {}) {
  const post::PostConfig& c = cfg(std::uint32_t(pc.req.registered_proof));
  auto paths = params::param_paths(c.family(), c.sector_size, key_dir());
  if (!paths) return Error{paths.error()};
  auto vk = params::load_verifying_key(*paths);
  if (!vk) return Error{vk.error()};
  std::vector<post::PublicSector> pub;
  for (const auto& p : pc.proofs) pub.push_back({p.sector_id, p.comm_r});
  filecoin::Bytes32 rnd;
  std::copy(pc.req.randomness.begin(), pc.req.randomness.end(), rnd.begin());
  return post::verify_post(c, rnd, k.value_or(pc.req.partition_index), pub, *vk,
                           std::span(reinterpret_cast<const std::uint8_t*>(proof.data()), proof.size()));
}

std::optional<SrsInfo> key_info(Engine& e, const std::string& id) {
  for (const auto& info : e.srs().list())
    if (info.id == id) return info;
  return std::nullopt;
}

TEST(PostKind, WindowAndWinningJobsCompleteAtOnceWithProofsTheVkAccepts) {
  write_test_keys(post::PostType::kWindow);
  write_test_keys(post::PostType::kWinning);
  Engine e(post_options());
  // Two window-post jobs of one kind and priority, and the others, all queued at once: no queue-key
  // collision drops one (the Rust daemon's (0, 0) key, post-snap.md §9.4).
  std::vector<PostCase> cases;
  cases.push_back(post_case(5, 2, 0, 100, 1));   // V1, partition 0
  cases.push_back(post_case(5, 2, 1, 200, 2));   // V1, partition 1 (the Rust pipeline fails for k > 0)
  cases.push_back(post_case(10, 2, 0, 300, 3));  // V1_1
  cases.push_back(post_case(10, 1, 0, 400, 4));  // V1_1, one sector (the block repeated)
  cases.push_back(post_case(0, 1, 0, 500, 5));   // Winning
  std::vector<std::shared_ptr<Job>> jobs;
  for (const auto& pc : cases) {
    auto s = e.submit(pc.req);
    ASSERT_TRUE(s) << s.error();
    EXPECT_FALSE(s->joined);
    jobs.push_back(s->job);
  }
  std::vector<JobResult> results;
  for (auto& j : jobs) results.push_back(e.wait(j));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const JobResult& r = results[i];
    SCOPED_TRACE(cases[i].req.request_id);
    ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
    ASSERT_EQ(r.proof.size(), 192u);
    EXPECT_EQ(r.num_partitions, 1u);
    EXPECT_EQ(r.proof_kind, cases[i].req.proof_kind);
    auto ok = verify_with_vk(cases[i], r.proof);
    ASSERT_TRUE(ok) << ok.error();
    EXPECT_TRUE(*ok);
  }
  // Bound to its partition (V1 challenges depend on k) and to its sectors.
  auto p1_as_p0 = verify_with_vk(cases[1], results[1].proof, 0);
  ASSERT_TRUE(p1_as_p0) << p1_as_p0.error();
  EXPECT_FALSE(*p1_as_p0);
  auto other_sectors = verify_with_vk(cases[2], results[0].proof);
  ASSERT_TRUE(other_sectors) << other_sectors.error();
  EXPECT_FALSE(*other_sectors);

  // The keys: decoded (host tier), one per family and size, released by the jobs.
  for (const char* id : {"wpost-2k", "winning-2k"}) {
    auto info = key_info(e, id);
    ASSERT_TRUE(info) << id;
    EXPECT_EQ(info->tier, SrsTier::kHost) << id;
    EXPECT_TRUE(test::eventually([&] { return key_info(e, id)->refs == 0; })) << id;
  }
  const auto st = e.status();
  EXPECT_EQ(st.completed, cases.size());
  for (const char* s : {"window-post/wpost-2k", "winning-post/winning-2k"}) {
    ASSERT_EQ(st.sizing.count(s), 1u) << s;
    const auto sizing = st.sizing.at(s);
    std::printf("%s partition on the cpu backend: model %llu bytes, measured %llu bytes (%llu samples)\n", s,
                (unsigned long long)sizing.model_bytes, (unsigned long long)sizing.measured_bytes,
                (unsigned long long)sizing.samples);
  }
}

TEST(PostKind, MalformedRequestsFailNamingTheFieldAndTheEngineKeepsServing) {
  Engine e(post_options());
  auto expect_failed = [&](ProofRequest r, const std::string& prefix, const std::string& needle = "") {
    r.request_id.clear();  // a fresh id each (a reused id with other fields is refused)
    JobResult res = e.prove(std::move(r));
    EXPECT_EQ(res.status, ResultStatus::kFailed) << prefix;
    EXPECT_EQ(res.error.rfind(prefix, 0), 0u) << "expected \"" << prefix << "\"; error was: " << res.error;
    if (!needle.empty()) {
      EXPECT_NE(res.error.find(needle), std::string::npos) << res.error;
    }
    EXPECT_EQ(res.error.find('\n'), std::string::npos) << res.error;
    EXPECT_EQ(res.num_partitions, 0u) << "a refused request must not reach the partition pipeline";
  };
  const PostCase good = post_case(5, 2, 0, 10, 9);
  const PostCase win = post_case(0, 1, 0, 20, 8);

  ProofRequest r = good.req;
  r.registered_proof = 0;
  expect_failed(
      r, "window-post: registered_proof 0 is StackedDrgWinning2KiBV1, a winning-post proof (window-post takes 5-14)");
  r = win.req;
  r.registered_proof = 5;
  expect_failed(
      r, "winning-post: registered_proof 5 is StackedDrgWindow2KiBV1, a window-post proof (winning-post takes 0-4)");
  r = good.req;
  r.registered_proof = 15;
  expect_failed(r, "window-post: registered_proof: registered PoSt proof 15 is unknown");
  r = good.req;
  r.sector_size = 8u << 20;
  expect_failed(r, "window-post: sector_size 8388608 disagrees with registered_proof 5 (StackedDrgWindow2KiBV1: 2048)");
  r = good.req;
  r.randomness.resize(31);
  expect_failed(r, "window-post: randomness must be 32 bytes, got 31");
  r = good.req;
  r.randomness.assign(32, '\xff');
  expect_failed(r, "window-post: randomness: not a field element");
  r = good.req;
  r.vanilla_proofs.clear();
  expect_failed(r, "window-post: vanilla_proofs is empty");
  r = good.req;
  r.vanilla_proofs.push_back(r.vanilla_proofs[0]);
  expect_failed(r, "window-post: vanilla_proofs: 3 sectors, more than the 2 of one StackedDrgWindow2KiBV1 partition");
  r = good.req;
  r.vanilla_proofs[1].clear();
  expect_failed(r, "window-post: vanilla_proofs[1] is empty");
  r = good.req;
  r.vanilla_proofs[1].resize(r.vanilla_proofs[1].size() - 9);  // truncated
  expect_failed(r, "window-post: vanilla_proofs[1]: ");
  {
    auto proofs = good.proofs;  // one sibling of one inclusion path flipped
    proofs[0].sectors[0].inclusion_proofs[2].base[0].hashes[3][0] ^= 0x01;
    r = good.req;
    r.vanilla_proofs = blobs_of(proofs);
    expect_failed(r,
                  "window-post: vanilla_proofs[0] (sector 10).inclusion_proofs[2]: the path does not hash to its root");
  }
  r = good.req;
  std::swap(r.vanilla_proofs[0], r.vanilla_proofs[1]);
  expect_failed(
      r, "window-post: vanilla_proofs[1] (sector 10): follows sector 11; sectors must be in strictly ascending order");
  r = good.req;  // a V1 partition-0 proof sent as partition 1: its leaves are not partition 1's challenges
  r.partition_index = 1;
  expect_failed(r, "window-post: vanilla_proofs[0] (sector 10): challenge ", "the proof opens leaf");
  r = win.req;
  r.vanilla_proofs.push_back(r.vanilla_proofs[0]);
  expect_failed(r, "winning-post: vanilla_proofs: 2 sector proofs, WinningPoSt proves exactly one sector");
  r = win.req;
  r.partition_index = 1;
  expect_failed(r, "winning-post: partition_index 1: WinningPoSt has one partition");
  r = win.req;  // a window proof under a winning code: the shape check names the inclusion-proof count
  r.vanilla_proofs = {good.req.vanilla_proofs[0]};
  expect_failed(r, "winning-post: vanilla_proofs[0] (sector 10).inclusion_proofs: 10 inclusion proofs");

  for (const char* id : {"wpost-2k", "winning-2k"}) {
    auto info = key_info(e, id);
    EXPECT_TRUE(!info || info->tier == SrsTier::kCold) << id << ": no key is touched by a refused request";
  }
  // Still serving: the good request completes, with the key preloaded by its id as `srs.preload`
  // names it (the Rust daemon's wpost-<size> ids).
  write_test_keys(post::PostType::kWindow);
  auto pre = e.srs().preload("wpost-2k");
  ASSERT_TRUE(pre) << pre.error();
  EXPECT_EQ(key_info(e, "wpost-2k")->tier, SrsTier::kHost);
  JobResult ok = e.prove(good.req);
  ASSERT_EQ(ok.status, ResultStatus::kCompleted) << ok.error;
  auto v = verify_with_vk(good, ok.proof);
  ASSERT_TRUE(v) << v.error();
  EXPECT_TRUE(*v);
  // The generic kind proves registered .zkey circuits only: the loaded Filecoin key, named as a
  // circuit, is refused by its format (LoadedKey::format), not tried with the witness.
  ProofRequest g;
  g.proof_kind = static_cast<std::uint32_t>(ProofKind::kGenericGroth16);
  g.circuit_id = "wpost-2k";
  g.witness_wtns = std::string("wtns") + std::string(60, '\0');
  expect_failed(g, "generic-groth16: circuit \"wpost-2k\" is a Filecoin parameter set, not a .zkey");
}

// A key only GPUs prove is never decoded on the host, so its load reserves the shape and a GPU
// upload's pieces alone (the 32 GiB WindowPoSt key: ~12 GB instead of ~136 GB, more than a 128 GiB
// host's budget). With a budget between the two, the copy-only placement loads the key and a host backend's
// placement is refused, naming what it needs.
TEST(PostKind, AKeyOnlyGpusProveReservesNoDecodedBases) {
  write_test_keys(post::PostType::kWindow);
  auto paths = params::param_paths(cfg(10).family(), 2048, key_dir());
  ASSERT_TRUE(paths) << paths.error();
  const LoadEstimate est = kinds::params_load_estimate(paths->params, 80);
  ASSERT_GT(est.decode, std::filesystem::file_size(paths->params));  // the file mapped and its points decoded
  ASSERT_GT(est.load, 0u);
  KindRegistry kinds;
  kinds::register_builtin_kinds(kinds);
  for (bool gpu_only : {true, false}) {
    SCOPED_TRACE(gpu_only ? "copies only" : "a host backend too");
    MemoryBudget budget(est.load + est.decode / 2);
    SrsManager::Options o;
    o.loaders = kinds.loaders();
    o.param_cache = key_dir();
    o.executor = std::make_shared<test::CopyExecutor>(test::CopyExecutor::Options{});
    o.placement = [gpu_only](const LoadedKey&) { return KeyPlacement{!gpu_only, {{0, false}}}; };
    o.may_decode_bases = [gpu_only] { return !gpu_only; };
    SrsManager srs(budget, std::move(o));
    auto pre = srs.preload("wpost-2k");
    if (gpu_only) {
      ASSERT_TRUE(pre) << pre.error();
      auto lease = srs.acquire("wpost-2k");
      ASSERT_TRUE(lease) << lease.error();
      EXPECT_FALSE((*lease)->pk.holds_bases());  // the bases stayed in the file
      EXPECT_NE(lease->copies().find({0, false}), nullptr);
      EXPECT_LT(budget.used(), est.load);  // the load's peak given back: the shape and the copy remain
    } else {
      ASSERT_FALSE(pre);
      EXPECT_NE(pre.error().find("cannot load proving key wpost-2k: needs"), std::string::npos) << pre.error();
      EXPECT_EQ(budget.used(), 0u);
    }
  }
}

TEST(PostKind, SixtyFourGiBCodesUseTheSixtyFourGiBKeys) {
  Engine e(post_options());
  // SYNTHETIC 64 GiB sectors pass the vanilla checks; the job then asks for the 64 GiB key, whose
  // file (tree 8-8-2) is not in the test's cache.
  for (std::uint32_t code : {9u, 14u, 4u}) {
    const post::PostConfig& c = cfg(code);
    PostCase pc = post_case(code, 1, 0, 1000 + code, std::uint8_t(code));
    JobResult r = e.prove(pc.req);
    ASSERT_EQ(r.status, ResultStatus::kFailed) << code;
    auto paths = params::param_paths(c.family(), std::uint64_t(64) << 30, key_dir());
    ASSERT_TRUE(paths);
    EXPECT_NE(paths->params.find("-8-8-2-"), std::string::npos) << paths->params;
    EXPECT_EQ(r.error, std::string(c.kind_name()) + ": parameter file not found: " + paths->params) << code;
  }
  EXPECT_TRUE(key_info(e, "wpost-64g"));
  EXPECT_TRUE(key_info(e, "winning-64g"));
  EXPECT_FALSE(key_info(e, "wpost-32g")) << "a 64 GiB request must never use the 32 GiB key";
  EXPECT_FALSE(key_info(e, "winning-32g"));
}

}  // namespace
}  // namespace cuzk::engine
