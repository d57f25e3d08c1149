// The renderers on hand-built snapshots: the Rust daemon's Prometheus names and /status fields are
// present with the values they stand for, the duration histogram is cumulative with +Inf = _count,
// unknown kinds share one label, and devices come out per device (or as "cpu" slots without any).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/kinds/builtin_kinds.hpp"
#include "server/status_render.hpp"

namespace cuzk::server {
namespace {

using Json = nlohmann::json;

engine::KindRegistry registry() {
  engine::KindRegistry r;
  engine::kinds::register_builtin_kinds(r);
  return r;
}

std::uint32_t wire(const engine::KindRegistry& r, const char* name) {
  const engine::KindRow* row = r.find(name);
  EXPECT_NE(row, nullptr) << name;
  return row ? row->wire : 0;
}

// `stage` as the status shows it: "backend", "synthesis-urgent", ...
engine::WorkerSnapshot worker(std::string stage, std::uint32_t id, std::uint32_t device, std::string job = "",
                              std::uint32_t kind = 0, std::uint32_t partition = 0, std::uint64_t busy_ms = 0) {
  engine::WorkerSnapshot w;
  w.urgent = stage.size() > 7 && stage.ends_with("-urgent");
  if (w.urgent) stage.resize(stage.size() - 7);
  using engine::WorkerStage;
  for (WorkerStage st : {WorkerStage::kPrepare, WorkerStage::kSynthesis, WorkerStage::kBackend, WorkerStage::kLane,
                         WorkerStage::kFinalize})
    if (stage == engine::to_string(st)) w.stage = st;
  EXPECT_EQ(w.stage_name(), stage + (w.urgent ? "-urgent" : ""));
  w.id = id;
  w.device = device;
  w.job_id = std::move(job);
  w.kind = kind;
  w.partition = partition;
  w.busy_ms = busy_ms;
  return w;
}

// Sample lines of the text as name{labels} -> value.
std::map<std::string, std::string> samples(const std::string& text) {
  std::map<std::string, std::string> m;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.rfind(' ');
    m[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return m;
}

class StatusRender : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::uint32_t porep = wire(reg, "porep-c2"), winning = wire(reg, "winning-post");
    s.uptime_s = 42;
    s.backend = "cuda";
    s.completed = 6;
    s.failed = 2;
    s.budget_bytes = 1000;
    s.used_bytes = 300;
    auto& w = s.by_kind[winning];
    w.completed = 5;
    w.failed = 1;
    for (double d : {0.08, 3.0, 4.0, 700.0, 5000.0}) w.observe_duration(d);
    auto& p = s.by_kind[porep];
    p.completed = 1;
    p.failed = 1;
    p.observe_duration(95.5);
    s.backend_workers = 3;
    s.jobs_running = 2;
    s.backend_queue = 2;
    s.finalize_queue = 1;
    s.workers = {worker("synthesis", 0, 0, "job-a", porep, 3),
                 worker("synthesis", 1, 0),
                 worker("backend", 0, 0),
                 worker("backend", 1, 1, "job-b", winning, 0, 2500),
                 worker("backend", 2, 1),
                 worker("finalize", 0, 0, "job-a", porep, 1)};
    engine::SrsInfo k;
    k.id = "porep-32g";
    k.bytes = 123;
    k.idle_ms = 4500;
    k.tier = engine::SrsTier::kDevice;
    k.copies = {
        {{0, false}, engine::SrsTier::kDevice, false, 5000, 0, "resident: 5 MiB + 9 MiB <= 80 MiB free"},
        {{1, false},
         engine::SrsTier::kPinned,
         true,
         64,
         4000,
         "streamed: 5 MiB resident + 9 MiB > 10 MiB free; from its file: the memory budget refused the pinned copy"}};
    s.srs = {k};
    devices = {{0, "NVIDIA H200", 150000000000ull, 100000000000ull, 9, 0},
               {1, "NVIDIA H200", 150000000000ull, 7000000000ull, 9, 0}};
  }
  engine::KindRegistry reg = registry();
  engine::StatusSnapshot s;
  std::vector<DeviceInfo> devices;
};

TEST_F(StatusRender, RustSeriesNamesAndLabels) {
  const std::string t = prometheus_text(s, reg, devices);
  for (const char* f :
       {"cuzk_proofs_completed_total counter", "cuzk_proofs_failed_total counter", "cuzk_uptime_seconds gauge",
        "cuzk_queue_depth gauge", "cuzk_proofs_completed untyped", "cuzk_proofs_failed untyped",
        "cuzk_proof_duration_seconds histogram", "cuzk_running_jobs gauge", "cuzk_gpu_workers gauge",
        "cuzk_gpu_info gauge", "cuzk_gpu_memory_total_bytes gauge", "cuzk_gpu_memory_free_bytes gauge",
        "cuzk_gpu_busy gauge"}) {
    EXPECT_NE(t.find(std::string("\n# TYPE ") + f + "\n"), std::string::npos) << f;
  }
  auto m = samples(t);
  EXPECT_EQ(m["cuzk_proofs_completed_total"], "6");
  EXPECT_EQ(m["cuzk_proofs_failed_total"], "2");
  EXPECT_EQ(m["cuzk_uptime_seconds"], "42");
  EXPECT_EQ(m["cuzk_gpu_workers"], "3");
  EXPECT_EQ(m["cuzk_proofs_completed{proof_kind=\"winning_post\"}"], "5");
  EXPECT_EQ(m["cuzk_proofs_failed{proof_kind=\"winning_post\"}"], "1");
  EXPECT_EQ(m["cuzk_proofs_completed{proof_kind=\"porep_c2\"}"], "1");
  // Every served kind has its series from the start, under the Rust label values.
  for (const char* l : {"porep_c2", "snap_update", "window_post", "winning_post"}) {
    EXPECT_EQ(m.count(std::string("cuzk_proofs_completed{proof_kind=\"") + l + "\"}"), 1u) << l;
    EXPECT_EQ(m.count(std::string("cuzk_proof_duration_seconds_count{proof_kind=\"") + l + "\"}"), 1u) << l;
  }
  EXPECT_EQ(m["cuzk_proofs_completed{proof_kind=\"snap_update\"}"], "0");
  // Ours stay beside them.
  EXPECT_EQ(m["cuzk_proofs_completed_by_kind_total{proof_kind=\"winning_post\"}"], "5");
  EXPECT_EQ(m["cuzk_proof_duration_seconds_count{proof_kind=\"winning_post\"}"], "5");
  EXPECT_EQ(m["cuzk_proof_duration_seconds_sum{proof_kind=\"winning_post\"}"], "5707.080");
  EXPECT_EQ(m["cuzk_proof_duration_seconds_sum{proof_kind=\"porep_c2\"}"], "95.500");
  EXPECT_EQ(t.find("# TYPE cuzk_proof_duration_seconds summary"), std::string::npos);
}

TEST_F(StatusRender, DurationHistogramIsCumulativeWithInfEqualToCount) {
  const std::string t = prometheus_text(s, reg, devices);
  auto m = samples(t);
  const std::string k = "cuzk_proof_duration_seconds_bucket{proof_kind=\"winning_post\",le=\"";
  EXPECT_EQ(m[k + "0.05\"}"], "0");
  EXPECT_EQ(m[k + "0.1\"}"], "1");
  EXPECT_EQ(m[k + "2.5\"}"], "1");
  EXPECT_EQ(m[k + "5\"}"], "3");
  EXPECT_EQ(m[k + "600\"}"], "3");
  EXPECT_EQ(m[k + "1200\"}"], "4");
  EXPECT_EQ(m[k + "3600\"}"], "4");
  EXPECT_EQ(m[k + "+Inf\"}"], "5");
  // For every kind: buckets in increasing le, counts never decreasing, +Inf last and equal to _count.
  std::regex bucket(R"re(^cuzk_proof_duration_seconds_bucket\{proof_kind="([a-z_0-9]+)",le="([^"]+)"\} (\d+)$)re");
  std::map<std::string, std::vector<std::pair<std::string, std::uint64_t>>> per;
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);) {
    std::smatch x;
    if (std::regex_match(line, x, bucket)) per[x[1]].push_back({x[2], std::stoull(x[3])});
  }
  EXPECT_EQ(per.size(), reg.rows().size());
  for (auto& [kind, b] : per) {
    ASSERT_EQ(b.size(), engine::kDurationBuckets.size() + 1) << kind;
    for (std::size_t i = 1; i < b.size(); ++i) {
      EXPECT_LE(b[i - 1].second, b[i].second) << kind << " le=" << b[i].first;
      if (i + 1 < b.size()) {
        EXPECT_LT(std::stod(b[i - 1].first), std::stod(b[i].first)) << kind;
      }
    }
    EXPECT_EQ(b.back().first, "+Inf");
    EXPECT_EQ(std::to_string(b.back().second), m["cuzk_proof_duration_seconds_count{proof_kind=\"" + kind + "\"}"]);
  }
  EXPECT_EQ(per["porep_c2"][engine::kDurationBuckets.size() - 1].second, 1u);  // 95.5 s <= 3600
  EXPECT_EQ(per["porep_c2"][9].second, 0u);                                    // le=30
  EXPECT_EQ(per["porep_c2"][11].second, 1u);                                   // le=120
}

TEST_F(StatusRender, UnknownKindsShareOneLabel) {
  s.by_kind[77].completed = 3;
  s.by_kind[77].observe_duration(1.0);
  s.by_kind[78].failed = 4;
  auto m = samples(prometheus_text(s, reg, devices));
  EXPECT_EQ(m["cuzk_proofs_completed{proof_kind=\"unknown\"}"], "3");
  EXPECT_EQ(m["cuzk_proofs_failed{proof_kind=\"unknown\"}"], "4");
  EXPECT_EQ(m["cuzk_proof_duration_seconds_count{proof_kind=\"unknown\"}"], "1");
  for (auto& [k, v] : m) EXPECT_EQ(k.find("kind_7"), std::string::npos) << k;
}

TEST_F(StatusRender, PerDeviceSeries) {
  auto m = samples(prometheus_text(s, reg, devices));
  EXPECT_EQ(m["cuzk_gpu_info{device=\"0\",name=\"NVIDIA H200\"}"], "1");
  EXPECT_EQ(m["cuzk_gpu_info{device=\"1\",name=\"NVIDIA H200\"}"], "1");
  EXPECT_EQ(m["cuzk_gpu_memory_total_bytes{device=\"1\"}"], "150000000000");
  EXPECT_EQ(m["cuzk_gpu_memory_free_bytes{device=\"1\"}"], "7000000000");
  EXPECT_EQ(m["cuzk_gpu_busy{device=\"0\"}"], "0");
  EXPECT_EQ(m["cuzk_gpu_busy{device=\"1\"}"], "1");
  // No provider: the CPU backend's device slot, named "cpu", busy from its backend workers.
  s.workers[3].device = 0;
  auto c = samples(prometheus_text(s, reg, {}));
  EXPECT_EQ(c["cuzk_gpu_info{device=\"0\",name=\"cpu\"}"], "1");
  EXPECT_EQ(c["cuzk_gpu_busy{device=\"0\"}"], "1");
  EXPECT_EQ(c["cuzk_gpu_memory_total_bytes{device=\"0\"}"], "0");
  EXPECT_EQ(c.count("cuzk_gpu_busy{device=\"1\"}"), 1u);  // worker 2 is still on slot 1
}

TEST_F(StatusRender, LabelValuesAreEscaped) {
  s.srs[0].id = "odd\"id\\x";
  const std::string t = prometheus_text(s, reg, devices);
  EXPECT_NE(t.find("cuzk_srs_references{circuit_id=\"odd\\\"id\\\\x\"} 0\n"), std::string::npos) << t;
  EXPECT_NE(t.find("cuzk_srs_copy_bytes{circuit_id=\"odd\\\"id\\\\x\",device=\"1\",lane=\"0\",tier=\"pinned\","
                   "memory=\"host\"} 4000\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("cuzk_srs_copy_from_file{circuit_id=\"odd\\\"id\\\\x\",device=\"1\",lane=\"0\"} 1\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("cuzk_srs_copy_from_file{circuit_id=\"odd\\\"id\\\\x\",device=\"0\",lane=\"0\"} 0\n"),
            std::string::npos)
      << t;
}

// The reserved urgent workers: by stage (an enum), never by their names; the synthesis counts agree
// with the in-flight buffers, and the gRPC-style entry list keeps one GPU entry per normal worker.
TEST_F(StatusRender, UrgentWorkersAreCountedBesideThePools) {
  const std::uint32_t winning = wire(reg, "winning-post");
  s.workers.push_back(worker("synthesis-urgent", 2, 0, "job-u", winning, 0));
  s.workers.push_back(worker("synthesis-urgent", 3, 0));
  s.workers.push_back(worker("backend-urgent", 3, 1, "job-u", winning, 0));
  s.workers.push_back(worker("finalize-urgent", 1, 0));
  Json j = Json::parse(status_json(s, reg, devices));
  EXPECT_EQ(j["synthesis"]["active"], 1);
  EXPECT_EQ(j["synthesis"]["urgent_workers"], 2);
  EXPECT_EQ(j["synthesis"]["urgent_active"], 1);
  EXPECT_EQ(j["buffers"]["synth_in_flight"], 2);  // job-a's and job-u's
  ASSERT_EQ(j["gpu_workers"].size(), 4u);
  EXPECT_EQ(j["gpu_workers"][3]["stage"], "backend-urgent");
  EXPECT_EQ(j["gpu_workers"][3]["state"], "proving");
  EXPECT_EQ(j["workers"][6]["stage"], "synthesis-urgent");
  auto m = samples(prometheus_text(s, reg, devices));
  EXPECT_EQ(m["cuzk_workers_busy{stage=\"synthesis\"}"], "1");
  EXPECT_EQ(m["cuzk_workers_busy{stage=\"synthesis-urgent\"}"], "1");
  EXPECT_EQ(m["cuzk_workers_busy{stage=\"backend-urgent\"}"], "1");
  EXPECT_EQ(m["cuzk_workers_busy{stage=\"finalize-urgent\"}"], "0");
}

TEST_F(StatusRender, StatusJsonHasTheRustFields) {
  Json j = Json::parse(status_json(s, reg, devices));
  EXPECT_EQ(j["uptime_secs"], 42);
  EXPECT_EQ(j["memory"]["available_bytes"], 700);
  EXPECT_EQ(j["synthesis"]["active"], 1);
  // gpu_workers: the backend workers in the Rust shape.
  ASSERT_EQ(j["gpu_workers"].size(), 3u);
  const Json& busy = j["gpu_workers"][1];
  EXPECT_EQ(busy["worker_id"], 1);
  EXPECT_EQ(busy["gpu_ordinal"], 1);
  EXPECT_EQ(busy["state"], "proving");
  EXPECT_EQ(busy["current_job"], "job-b");
  EXPECT_EQ(busy["current_partition"], 0);
  EXPECT_DOUBLE_EQ(busy["busy_secs"].get<double>(), 2.5);
  const Json& idle = j["gpu_workers"][0];
  EXPECT_EQ(idle["state"], "idle");
  EXPECT_TRUE(idle["current_job"].is_null());
  EXPECT_TRUE(idle["current_partition"].is_null());
  EXPECT_TRUE(idle["busy_secs"].is_null());
  // counters: {kind name: n}, every served kind.
  EXPECT_EQ(j["counters"]["total_completed"], 6);
  EXPECT_EQ(j["counters"]["completed_by_kind"]["winning-post"], 5);
  EXPECT_EQ(j["counters"]["completed_by_kind"]["porep-c2"], 1);
  EXPECT_EQ(j["counters"]["completed_by_kind"]["snap-update"], 0);
  EXPECT_EQ(j["counters"]["failed_by_kind"]["winning-post"], 1);
  EXPECT_EQ(j["counters"]["failed_by_kind"].size(), reg.rows().size());
  // allocations
  ASSERT_EQ(j["allocations"]["srs"].size(), 1u);
  EXPECT_DOUBLE_EQ(j["allocations"]["srs"][0]["last_used_secs_ago"].get<double>(), 4.5);
  EXPECT_EQ(j["allocations"]["srs"][0]["evictable"], true);
  // where the key lives, per device (issue 27)
  EXPECT_EQ(j["allocations"]["srs"][0]["tier"], "device");
  ASSERT_EQ(j["allocations"]["srs"][0]["copies"].size(), 2u);
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][1]["device"], 1);
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][1]["tier"], "pinned");
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][1]["host_bytes"], 4000);
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][1]["from_file"], true);  // H pinned, the rest read from the file
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][0]["from_file"], false);
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][1]["reason"],
            "streamed: 5 MiB resident + 9 MiB > 10 MiB free; from its file: the memory budget refused the pinned copy");
  EXPECT_EQ(j["allocations"]["srs"][0]["copies"][0]["device_bytes"], 5000);
  EXPECT_TRUE(j["allocations"]["pce"].is_array());
  // buffers: 1 synthesizing; 2 queued + 1 on a device; 1 queued for + 1 in finalize.
  EXPECT_EQ(j["buffers"]["synth_in_flight"], 1);
  EXPECT_EQ(j["buffers"]["provers_in_flight"], 3);
  EXPECT_EQ(j["buffers"]["pending_handles"], 2);
  EXPECT_EQ(j["buffers"]["shells_in_flight"], 2);
  EXPECT_EQ(j["buffers"]["aux_in_flight"], 5);
  // gpus
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][1]["ordinal"], 1);
  EXPECT_EQ(j["gpus"][1]["name"], "NVIDIA H200");
  EXPECT_EQ(j["gpus"][1]["vram_total_bytes"], 150000000000ull);
  EXPECT_EQ(j["gpus"][1]["vram_free_bytes"], 7000000000ull);
  EXPECT_EQ(j["gpus"][1]["busy"], true);
  EXPECT_EQ(j["gpus"][1]["current_job"], "job-b");
  EXPECT_EQ(j["gpus"][1]["compute_capability"], "9.0");
  EXPECT_EQ(j["gpus"][0]["busy"], false);
  // Ours are kept.
  EXPECT_EQ(j["workers"].size(), s.workers.size());
  EXPECT_EQ(j["counters"]["by_kind"]["winning-post"]["completed"], 5);
  // Without devices: the slots, named "cpu", with no compute capability.
  Json c = Json::parse(status_json(s, reg));
  ASSERT_EQ(c["gpus"].size(), 2u);
  EXPECT_EQ(c["gpus"][0]["name"], "cpu");
  EXPECT_TRUE(c["gpus"][0]["compute_capability"].is_null());
}

TEST(DurationHistogram, ObserveCountsEveryBucketAtOrAboveTheValue) {
  engine::KindCounters c;
  c.observe_duration(5.0);  // on a bound: counted in it (le is <=)
  c.observe_duration(1e6);  // above every bound: only in +Inf (the count)
  EXPECT_EQ(c.duration_count, 2u);
  for (std::size_t i = 0; i < engine::kDurationBuckets.size(); ++i)
    EXPECT_EQ(c.duration_le[i], engine::kDurationBuckets[i] >= 5.0 ? 1u : 0u) << engine::kDurationBuckets[i];
}

}  // namespace
}  // namespace cuzk::server
