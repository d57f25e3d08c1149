// SnapDeals through the engine on the CPU backend (engine/kinds/snap_kind.cpp): the shared TEST-ONLY
// 2 KiB update parameters (CUZK_SNAP_PARAMS_2K, ctest fixture snap_params_2k), or, when the binary
// runs alone, a key written here under the official name (seeded toxic waste, the recorded partition
// shape cached beside it as the daemon's loader expects); STRUCTURED SYNTHETIC TEST DATA partition
// proofs (testkit/snap_vanilla.hpp). Two 2 KiB jobs submitted at once complete with 192 bytes the .vk
// file accepts (snap::verify_snap) and that are bound to their commitments; malformed requests fail
// naming the field, before any key is loaded (8 MiB requests, P = 4, are refused by their vanilla
// checks without its key), while the engine keeps serving.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <unistd.h>

#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/shape.hpp"
#include "filecoin/snap/snap_job.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/testkit/snap_vanilla.hpp"
#include "formats/bellperson/test_params_writer.hpp"
#include "groth16/test_setup.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

namespace snap = filecoin::snap;
namespace params = filecoin::params;
namespace testkit = filecoin::testkit;
using namespace std::chrono_literals;

constexpr std::uint32_t kSnap = static_cast<std::uint32_t>(ProofKind::kSnapUpdate);

const snap::UpdateConfig& cfg(std::uint32_t code) { return *snap::update_config_by_code(code).value(); }

bool has_key(const std::string& dir) {
  auto paths = params::param_paths(cfg(0).family(), 2048, dir);
  return paths && std::filesystem::is_regular_file(paths->params) && std::filesystem::is_regular_file(paths->vk);
}

// CUZK_SNAP_PARAMS_2K when it names a folder with the 2 KiB key; else a folder of this process
// (removed at exit) where write_test_key writes it.
std::string key_dir() {
  struct Dir {
    std::string path;
    bool own = false;
    Dir() {
      const char* env = std::getenv("CUZK_SNAP_PARAMS_2K");
      if (env && *env && has_key(env)) {
        path = env;
      } else {
        own = true;
        path =
            (std::filesystem::temp_directory_path() / ("cuzk_engine_snap_test_" + std::to_string(::getpid()))).string();
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

void write_test_key() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::filesystem::create_directories(key_dir());
    const snap::UpdateConfig& c = cfg(0);
    auto paths = params::param_paths(c.family(), c.sector_size, key_dir());
    ASSERT_TRUE(paths) << paths.error();
    if (std::filesystem::is_regular_file(paths->params) && std::filesystem::is_regular_file(paths->vk)) return;
    auto load = snap::load_or_record_update_shape(c.geometry, c.name, filecoin::shape_cache_path(paths->params));
    EXPECT_EQ(load.source, filecoin::ShapeLoad::Source::kRecordedSaved) << load.note;
    auto st = formats::bellperson::write_test_params(load.shape, groth16::ToxicWaste::from_seed(25), paths->params,
                                                     paths->vk);
    ASSERT_TRUE(st) << st.error();
  });
}

EngineOptions snap_options() {
  std::filesystem::create_directories(key_dir());
  EngineOptions o;
  kinds::register_builtin_kinds(o.kinds);
  o.memory_budget_bytes = std::uint64_t(4) << 30;
  o.param_cache = key_dir();
  o.srs_min_idle = 0ms;
  o.workers_per_device = 1;
  return o;
}

std::string bytes_of(const filecoin::Bytes32& b) { return std::string(reinterpret_cast<const char*>(b.data()), 32); }

std::vector<std::string> blobs_of(const std::vector<snap::PartitionProof>& proofs) {
  std::vector<std::string> out;
  for (const auto& p : proofs) {
    auto b = snap::write_partition_proof(p);
    out.emplace_back(b.begin(), b.end());
  }
  return out;
}

// A request as Curio's ProveUpdateCuzk sends it.
struct SnapCase {
  ProofRequest req;
  testkit::SyntheticSnap vanilla;
};
SnapCase snap_case(std::uint32_t code, std::uint64_t seed) {
  const snap::UpdateConfig& c = cfg(code);
  SnapCase sc;
  sc.vanilla = testkit::synthetic_snap_vanilla(c.geometry, seed);
  ProofRequest& r = sc.req;
  r.request_id = "snap-1000-" + std::to_string(seed);
  r.proof_kind = kSnap;
  r.registered_proof = code;
  r.sector_size = c.sector_size;
  r.sector_number = seed;
  r.miner_id = 1000;
  r.comm_r_old = bytes_of(sc.vanilla.comms.comm_r_old);
  r.comm_r_new = bytes_of(sc.vanilla.comms.comm_r_new);
  r.comm_d_new = bytes_of(sc.vanilla.comms.comm_d_new);
  r.vanilla_proofs = blobs_of(sc.vanilla.partitions);
  return sc;
}

// snap::verify_snap with the .vk file (not the key the engine loaded).
Result<bool> verify_with_vk(const snap::SnapCommitments& comms, const std::string& proof) {
  const snap::UpdateConfig& c = cfg(0);
  auto paths = params::param_paths(c.family(), c.sector_size, key_dir());
  if (!paths) return Error{paths.error()};
  auto vk = params::load_verifying_key(*paths);
  if (!vk) return Error{vk.error()};
  return snap::verify_snap(c.geometry, comms, *vk,
                           std::span(reinterpret_cast<const std::uint8_t*>(proof.data()), proof.size()));
}

std::optional<SrsInfo> key_info(Engine& e, const std::string& id) {
  for (const auto& info : e.srs().list())
    if (info.id == id) return info;
  return std::nullopt;
}

TEST(SnapKind, TwoJobsCompleteAtOnceWithProofsTheVkAccepts) {
  write_test_key();
  Engine e(snap_options());
  std::vector<SnapCase> cases = {snap_case(0, 1), snap_case(0, 2)};
  std::vector<std::shared_ptr<Job>> jobs;
  for (const auto& sc : cases) {
    auto s = e.submit(sc.req);
    ASSERT_TRUE(s) << s.error();
    jobs.push_back(s->job);
  }
  std::vector<JobResult> results;
  for (auto& j : jobs) results.push_back(e.wait(j));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].req.request_id);
    const JobResult& r = results[i];
    ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
    ASSERT_EQ(r.proof.size(), 192u);
    EXPECT_EQ(r.num_partitions, 1u);
    auto ok = verify_with_vk(cases[i].vanilla.comms, r.proof);
    ASSERT_TRUE(ok) << ok.error();
    EXPECT_TRUE(*ok);
  }
  // Bound to its commitments: sector 1's proof does not verify as sector 2's.
  auto other = verify_with_vk(cases[1].vanilla.comms, results[0].proof);
  ASSERT_TRUE(other) << other.error();
  EXPECT_FALSE(*other);
  auto info = key_info(e, "snap-2k");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->tier, SrsTier::kHost);
  EXPECT_TRUE(test::eventually([&] { return key_info(e, "snap-2k")->refs == 0; }));
  const auto st = e.status();
  ASSERT_EQ(st.sizing.count("snap-update/snap-2k"), 1u);
  const auto sizing = st.sizing.at("snap-update/snap-2k");
  std::printf("snap-update/snap-2k partition on the cpu backend: model %llu bytes, measured %llu bytes\n",
              (unsigned long long)sizing.model_bytes, (unsigned long long)sizing.measured_bytes);
}

TEST(SnapKind, MalformedRequestsFailNamingTheFieldAndTheEngineKeepsServing) {
  Engine e(snap_options());
  auto expect_failed = [&](ProofRequest r, const std::string& prefix, const std::string& needle = "") {
    r.request_id.clear();
    JobResult res = e.prove(std::move(r));
    EXPECT_EQ(res.status, ResultStatus::kFailed) << prefix;
    EXPECT_EQ(res.error.rfind(prefix, 0), 0u) << "expected \"" << prefix << "\"; error was: " << res.error;
    if (!needle.empty()) {
      EXPECT_NE(res.error.find(needle), std::string::npos) << res.error;
    }
    EXPECT_EQ(res.error.find('\n'), std::string::npos) << res.error;
    EXPECT_EQ(res.num_partitions, 0u) << "a refused request must not reach the partition pipeline";
  };
  const SnapCase good = snap_case(0, 7);
  const SnapCase big = snap_case(1, 8);  // 8 MiB: 4 partitions

  ProofRequest r = good.req;
  r.registered_proof = 5;
  expect_failed(r, "snap-update: registered_proof: registered update proof 5 is unknown");
  r = good.req;
  r.sector_size = 8u << 20;
  expect_failed(r, "snap-update: sector_size 8388608 disagrees with registered_proof 0 (StackedDrg2KiBV1: 2048)");
  r = good.req;
  r.comm_r_new.resize(31);
  expect_failed(r, "snap-update: comm_r_new must be 32 bytes, got 31");
  r = good.req;
  r.comm_d_new.assign(32, '\xff');
  expect_failed(r, "snap-update: comm_d_new", "field element");
  r = good.req;
  r.vanilla_proofs.clear();
  expect_failed(r, "snap-update: vanilla_proofs: 0 partition proofs, StackedDrg2KiBV1 has 1 partitions");
  r = good.req;
  r.vanilla_proofs[0].clear();
  expect_failed(r, "snap-update: vanilla_proofs[0] is empty");
  r = good.req;
  r.vanilla_proofs[0].resize(r.vanilla_proofs[0].size() - 5);
  expect_failed(r, "snap-update: vanilla_proofs[0]");
  r = good.req;  // another sector's commitments
  r.comm_r_old = big.req.comm_r_old;
  expect_failed(r, "snap-update: ", "comm_r_old");
  r = big.req;  // partition order
  std::swap(r.vanilla_proofs[1], r.vanilla_proofs[2]);
  expect_failed(r, "snap-update: vanilla_proofs[1]: challenge_proofs[0].proof_r_old: opens node ");
  r = big.req;
  r.vanilla_proofs.pop_back();
  expect_failed(r, "snap-update: vanilla_proofs: 3 partition proofs, StackedDrg8MiBV1 has 4 partitions");
  {
    auto proofs = big.vanilla.partitions;  // one apex leaf of partition 2
    proofs[2].apex_leafs[5][0] ^= 1;
    r = big.req;
    r.vanilla_proofs = blobs_of(proofs);
    expect_failed(r, "snap-update: ", "apex");
  }
  // The 8 MiB request whose vanilla proofs are intact reaches the key, which is not in the test's cache.
  JobResult nokey = e.prove(big.req);
  ASSERT_EQ(nokey.status, ResultStatus::kFailed);
  auto paths8 = params::param_paths(cfg(1).family(), cfg(1).sector_size, key_dir());
  ASSERT_TRUE(paths8);
  EXPECT_EQ(nokey.error, "snap-update: parameter file not found: " + paths8->params);
  EXPECT_TRUE(!key_info(e, "snap-2k") || key_info(e, "snap-2k")->tier == SrsTier::kCold)
      << "no key is touched by a refused request";

  write_test_key();
  auto pre = e.srs().preload("snap-2k");
  ASSERT_TRUE(pre) << pre.error();
  JobResult ok = e.prove(good.req);
  ASSERT_EQ(ok.status, ResultStatus::kCompleted) << ok.error;
  auto v = verify_with_vk(good.vanilla.comms, ok.proof);
  ASSERT_TRUE(v) << v.error();
  EXPECT_TRUE(*v);
}

}  // namespace
}  // namespace cuzk::engine
