// The daemon's TOML config (apps/cuzk-daemon/config.hpp): the Rust daemon's schema, our keys, errors
// that name the key, and the engine options made from it.
#include <gtest/gtest.h>

#include "apps/cuzk-daemon/config.hpp"
#include "engine/process_memory.hpp"
#include "engine/units.hpp"
#include "server/listen_address.hpp"

namespace cuzk::apps {
namespace {

using namespace cuzk::engine;
using server::check_listen_address;

TEST(Config, DefaultsWhenEmpty) {
  auto c = parse_config("", "empty.toml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->listen, std::vector<std::string>{"unix:///run/curio/cuzk.sock"});
  EXPECT_TRUE(c->budget_auto);
  EXPECT_EQ(c->safety_margin, 5ull << 30);
  EXPECT_EQ(c->eviction_min_idle, std::chrono::minutes(5));
  EXPECT_EQ(c->gpu_workers_per_device, 2u);
  EXPECT_EQ(c->key_residency, "auto");
  EXPECT_EQ(c->max_resident_key_bytes, 0u);
  EXPECT_EQ(c->memory_limit, 0u);  // the whole card
  EXPECT_EQ(c->max_parallel_synthesis, 18u);
  EXPECT_TRUE(c->self_verify);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(Config, RustDaemonExampleParses) {
  // The keys of the Rust daemon's cuzk.example.toml, deprecated ones included.
  const char* text = R"(
[daemon]
listen = "0.0.0.0:9820"
status_listen = "127.0.0.1:9821"
[memory]
total_budget = "200GiB"
safety_margin = "5GiB"
eviction_min_idle = "5m"
pinned_budget = "50GiB"
[gpus]
devices = [0, 1]
gpu_threads = 32
gpu_workers_per_device = 2
[scheduler]
max_batch_size = 1
max_batch_wait_ms = 10000
sort_by_type = true
[synthesis]
threads = 0
partition_workers = 12
[pipeline]
enabled = true
synthesis_lookahead = 1
synthesis_concurrency = 1
max_parallel_synthesis = 18
max_gpu_queue_depth = 0
[srs]
param_cache = "/data/zk/params"
preload = ["porep-32g"]
[logging]
level = "debug"
)";
  auto c = parse_config(text, "cuzk.toml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->listen, std::vector<std::string>{"0.0.0.0:9820"});
  EXPECT_EQ(c->status_listen, "127.0.0.1:9821");
  EXPECT_FALSE(c->budget_auto);
  EXPECT_EQ(c->total_budget, 200ull << 30);
  EXPECT_EQ(c->devices, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(c->gpu_threads, 32u);
  EXPECT_EQ(c->preload, std::vector<std::string>{"porep-32g"});
  EXPECT_EQ(c->log_level, "debug");
  // pinned_budget, sort_by_type, partition_workers, synthesis_lookahead: accepted with a warning.
  EXPECT_EQ(c->warnings.size(), 4u);
  auto o = engine_options_from(*c, 2);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->memory_budget_bytes, 200ull << 30);
  EXPECT_EQ(o->synthesis_workers, 2u);  // capped by the hardware threads
  EXPECT_EQ(o->devices.size(), 2u);
}

TEST(Config, OurKeys) {
  const char* text = R"(
[daemon]
listen = ["unix:///tmp/cuzk-test.sock", "127.0.0.1:0"]
max_message_size = "1GiB"
shutdown = "cancel"
drain_timeout = "1h"
[memory]
total_budget = 1073741824
partition_memory_factor = 1.5
[gpus]
key_residency = "streamed"
max_resident_key_bytes = "20GiB"
memory_limit = "24GiB"
stream_chunk_bases = 8388608
h_copies = 3
[scheduler]
max_active_jobs = 64
result_ttl = "30s"
[pipeline]
finalizer_threads = 3
self_verify = false
timeline = true
[srs]
allow_witness_paths = false
[[srs.circuits]]
id = "mulchain"
zkey = "/x/mulchain.zkey"
preload = true
[[srs.circuits]]
id = "bits"
zkey = "/x/bits.zkey"
)";
  auto c = parse_config(text, "t.toml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->listen.size(), 2u);
  EXPECT_EQ(c->max_message_bytes, 1ull << 30);
  EXPECT_FALSE(c->shutdown_drain);
  EXPECT_EQ(c->drain_timeout, std::chrono::hours(1));
  EXPECT_EQ(c->total_budget, 1ull << 30);
  EXPECT_DOUBLE_EQ(c->partition_memory_factor, 1.5);
  EXPECT_EQ(c->key_residency, "streamed");
  EXPECT_EQ(c->max_resident_key_bytes, 20ull << 30);
  EXPECT_EQ(c->memory_limit, 24ull << 30);
  EXPECT_EQ(c->stream_chunk_bases, 8388608u);
  EXPECT_EQ(c->h_copies, 3u);
  EXPECT_EQ(c->max_active_jobs, 64u);
  EXPECT_EQ(c->result_ttl, std::chrono::seconds(30));
  EXPECT_EQ(c->finalizer_threads, 3u);
  EXPECT_FALSE(c->self_verify);
  EXPECT_TRUE(c->timeline);
  EXPECT_FALSE(c->allow_witness_paths);
  ASSERT_EQ(c->circuits.size(), 2u);
  EXPECT_EQ(c->circuits[0].id, "mulchain");
  EXPECT_TRUE(c->circuits[0].preload);
  EXPECT_FALSE(c->circuits[1].preload);
}

TEST(Config, ErrorsNameTheKey) {
  auto expect_error = [](const char* text, const char* needle) {
    auto c = parse_config(text, "bad.toml");
    ASSERT_FALSE(c) << "accepted: " << text;
    EXPECT_NE(c.error().find(needle), std::string::npos) << c.error();
  };
  expect_error("[memory]\ntotal_budget = \"lots\"\n", "bad.toml:2: memory.total_budget");
  expect_error("[memory]\nsafety_margin = \"5 GiBs\"\n", "memory.safety_margin");
  expect_error("[memory]\neviction_min_idle = \"soon\"\n", "memory.eviction_min_idle");
  expect_error("[memory]\nrequest_budget = \"lots\"\n", "memory.request_budget");
  expect_error("[gpus]\ngpu_workers_per_device = \"two\"\n", "gpus.gpu_workers_per_device: expected an integer");
  expect_error("[gpus]\ngpu_workers_per_device = -1\n", "gpus.gpu_workers_per_device: must be between");
  // Floats where integers belong, even past int64's range, are refused by type (found by fuzzing:
  // toml++'s conversion of 1.0e35 to int64 was undefined behaviour); so are seconds whose milliseconds
  // overflow.
  expect_error("[scheduler]\nmax_results = 1.0e35\n", "scheduler.max_results: expected an integer");
  expect_error("[gpus]\ndevices = [0, 1.5e300]\n", "gpus.devices: expected an array of device numbers");
  expect_error("[daemon]\ndrain_timeout = 9223372036854775807\n", "daemon.drain_timeout: must be at most 100 years");
  expect_error("[gpus]\nkey_residency = \"host\"\n",
               "gpus.key_residency: expected \"auto\", \"resident\", \"streamed\" or \"file\"");
  expect_error("[gpus]\nmax_resident_key_bytes = \"lots\"\n", "gpus.max_resident_key_bytes");
  expect_error("[gpus]\nmemory_limit = -1\n", "gpus.memory_limit");
  expect_error("[gpus]\nstream_chunk_bases = -5\n", "gpus.stream_chunk_bases: must be between");
  expect_error("[gpus]\nh_copies = 5\n", "gpus.h_copies: must be between");
  expect_error("[daemon]\nlisten = \"localhost\"\n", "daemon.listen");
  expect_error("[daemon]\nlisten = \"unix://relative.sock\"\n", "absolute path");
  expect_error("[daemon]\nmax_message_size = \"128MiB\"\n", "at least 256MiB");
  expect_error("[daemon]\nshutdown = \"later\"\n", "daemon.shutdown");
  expect_error("[logging]\nlevel = \"loud\"\n", "logging.level");
  expect_error("[[srs.circuits]]\nzkey = \"/x.zkey\"\n", "srs.circuits[0].id");
  expect_error("daemon = 5\n", "[daemon] must be a table");
  expect_error("[daemon\n", "bad.toml:1:");  // TOML syntax error with line and column
}

TEST(Config, UnknownKeysWarn) {
  auto c = parse_config("[daemon]\nlisten = \"127.0.0.1:1\"\nlisen = \"x\"\n[extras]\na = 1\n", "w.toml");
  ASSERT_TRUE(c) << c.error();
  ASSERT_EQ(c->warnings.size(), 2u);
  std::string all = c->warnings[0] + "\n" + c->warnings[1];
  EXPECT_NE(all.find("w.toml:3: daemon.lisen: unknown key"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown section [extras]"), std::string::npos) << all;
}

TEST(Config, ListenAddresses) {
  EXPECT_TRUE(check_listen_address("unix:///run/curio/cuzk.sock"));
  EXPECT_TRUE(check_listen_address("unix:/tmp/x.sock"));
  EXPECT_TRUE(check_listen_address("0.0.0.0:9820"));
  EXPECT_TRUE(check_listen_address("[::1]:9820"));
  EXPECT_TRUE(check_listen_address("localhost:9820"));
  EXPECT_FALSE(check_listen_address("9820"));
  EXPECT_FALSE(check_listen_address("host:port"));
  EXPECT_FALSE(check_listen_address("host:99999"));
}

TEST(Config, AutoBudgetUsesMemTotal) {
  DaemonConfig c;
  c.safety_margin = 1 << 20;
  auto o = engine_options_from(c, 4);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->memory_budget_bytes + c.safety_margin, system_memory_bytes());
  c.backend = "cuda";
  EXPECT_FALSE(engine_options_from(c, 4));
}

TEST(Config, BackendSelection) {
  const BackendAvailability none{}, built_no_gpu{true, 0, {}}, one_gpu{true, 1, {}}, two_gpus{true, 2, {}};
  // "auto" takes the GPU only when the build has CUDA and a device is present.
  EXPECT_EQ(*resolve_backend("auto", none), BackendKind::kCpu);
  EXPECT_EQ(*resolve_backend("auto", built_no_gpu), BackendKind::kCpu);
  EXPECT_EQ(*resolve_backend("auto", one_gpu), BackendKind::kCuda);
  EXPECT_EQ(*resolve_backend("cpu", two_gpus), BackendKind::kCpu);
  EXPECT_EQ(*resolve_backend("cuda", one_gpu), BackendKind::kCuda);
  // "cuda" without it is a one-line error that says what is missing.
  EXPECT_EQ(resolve_backend("cuda", none).error(),
            "backend.kind = \"cuda\": this build has no CUDA backend; use \"cpu\" or \"auto\"");
  EXPECT_EQ(resolve_backend("cuda", built_no_gpu).error(),
            "backend.kind = \"cuda\": no CUDA device found; use \"cpu\" or \"auto\"");
  EXPECT_FALSE(resolve_backend("opencl", one_gpu));

  DaemonConfig c;
  c.budget_auto = false;
  c.total_budget = std::uint64_t(8) << 30;
  c.backend = "cuda";
  c.gpu_workers_per_device = 3;
  auto cpu_only = engine_options_from(c, 4);  // the default availability: a CPU-only build
  ASSERT_FALSE(cpu_only);
  EXPECT_EQ(cpu_only.error(), "backend.kind = \"cuda\": this build has no CUDA backend; use \"cpu\" or \"auto\"");
  auto o = engine_options_from(c, 4, two_gpus);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->backend, BackendKind::kCuda);
  EXPECT_EQ(o->workers_per_device, 3u);
  // gpus.devices = [] means every device (the Rust daemon's default), or every usable one when the
  // daemon checked them (device 0 not loadable here: only device 1 serves).
  EXPECT_EQ(o->devices, (std::vector<std::uint32_t>{0, 1}));
  BackendAvailability second_usable = two_gpus;
  second_usable.usable_devices = {1};
  auto only1 = engine_options_from(c, 4, second_usable);
  ASSERT_TRUE(only1) << only1.error();
  EXPECT_EQ(only1->devices, std::vector<std::uint32_t>{1});
  c.devices = {0, 2};
  auto missing = engine_options_from(c, 4, two_gpus);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "gpus.devices: device 2 does not exist (2 CUDA device(s) present)");
  c.backend = "auto";
  auto fallback = engine_options_from(c, 4, built_no_gpu);
  ASSERT_TRUE(fallback) << fallback.error();
  EXPECT_EQ(fallback->backend, BackendKind::kCpu);
  // A config file selects it with [backend] kind.
  auto parsed = parse_config("[backend]\nkind = \"cpu\"\n", "t.toml");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->backend, "cpu");
  EXPECT_FALSE(parse_config("[backend]\nkind = \"gpu\"\n", "t.toml"));
}

// Several GPUs (docs/daemon.md, "Several GPUs"): every usable device by default, each with its
// backend workers, and preparers for their number (N/2, at least 2 or pipeline.synthesis_concurrency).
TEST(Config, EveryUsableDeviceServesByDefaultWithPreparersForTheirNumber) {
  DaemonConfig c;
  c.budget_auto = false;
  c.total_budget = std::uint64_t(64) << 30;
  c.backend = "cuda";
  BackendAvailability eight{true, 8, {0, 1, 2, 3, 4, 5, 6, 7}};
  auto o = engine_options_from(c, 64, eight);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->devices, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(o->prepare_workers, 4u);
  EXPECT_EQ(o->lane_devices, o->devices);  // a GPU lane beside every device
  BackendAvailability one{true, 1, {0}};
  auto single = engine_options_from(c, 16, one);
  ASSERT_TRUE(single) << single.error();
  EXPECT_EQ(single->prepare_workers, 2u);  // as before for one device
  EXPECT_EQ(single->synthesis_workers, 16u);
  c.devices = {1, 0};  // a list is kept as given
  c.synthesis_concurrency = 6;
  auto listed = engine_options_from(c, 64, eight);
  ASSERT_TRUE(listed) << listed.error();
  EXPECT_EQ(listed->devices, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(listed->prepare_workers, 6u);
}

// Urgent work and its lane (docs/daemon.md, "Deadlines under load").
TEST(Config, UrgentKeysAndTheLane) {
  auto c = parse_config(R"([memory]
total_budget = "64GiB"
urgent_reserve = "2GiB"
[gpus]
urgent_lane = "cpu"
urgent_lane_max_domain_log2 = 20
[scheduler]
urgent_priority = "CRITICAL"
[pipeline]
urgent_synthesis_workers = 3
)",
                        "u.toml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_TRUE(c->warnings.empty());
  EXPECT_FALSE(c->urgent_reserve_auto);
  EXPECT_EQ(c->urgent_reserve, 2ull << 30);
  EXPECT_EQ(c->urgent_lane, "cpu");
  EXPECT_EQ(c->urgent_lane_max_domain_log2, 20u);
  EXPECT_EQ(c->urgent_priority, "critical");
  EXPECT_EQ(c->urgent_synthesis_workers, 3u);
  const BackendAvailability one_gpu{true, 1, {}};
  auto o = engine_options_from(*c, 4, one_gpu);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->urgent_priority, Priority::kCritical);
  EXPECT_EQ(o->urgent_synthesis_workers, 3u);
  EXPECT_EQ(o->urgent_memory_reserve, 2ull << 30);
  EXPECT_EQ(o->lane_devices, std::vector<std::uint32_t>{0});
  EXPECT_EQ(o->lane, LaneKind::kCpu);
  EXPECT_EQ(o->lane_max_domain_log2, 20u);
  EXPECT_TRUE(o->lane_only_when_devices_busy);  // the CPU lane beside a GPU: only while it is busy

  // The defaults: HIGH and above, learned headroom, the lane "auto": GPU on CUDA, CPU on the CPU backend.
  DaemonConfig d;
  d.budget_auto = false;
  d.total_budget = std::uint64_t(8) << 30;
  d.devices = {0, 1};
  auto cuda = engine_options_from(d, 4, {true, 2, {}});
  ASSERT_TRUE(cuda) << cuda.error();
  EXPECT_EQ(cuda->urgent_priority, Priority::kHigh);
  EXPECT_EQ(cuda->urgent_synthesis_workers, 1u);
  EXPECT_FALSE(cuda->urgent_memory_reserve);
  EXPECT_EQ(cuda->lane, LaneKind::kGpu);
  EXPECT_EQ(cuda->lane_devices, (std::vector<std::uint32_t>{0, 1}));  // one lane per device
  EXPECT_EQ(cuda->lane_max_domain_log2, 22u);
  EXPECT_FALSE(cuda->lane_only_when_devices_busy);
  auto cpu = engine_options_from(d, 4);
  ASSERT_TRUE(cpu) << cpu.error();
  EXPECT_EQ(cpu->lane, LaneKind::kCpu);
  EXPECT_EQ(cpu->lane_devices, std::vector<std::uint32_t>{0});
  EXPECT_FALSE(cpu->lane_only_when_devices_busy);
  // "gpu" needs the CUDA backend; "off" and urgent_priority = "off" leave no lane.
  d.urgent_lane = "gpu";
  auto no_gpu = engine_options_from(d, 4);
  ASSERT_FALSE(no_gpu);
  EXPECT_EQ(no_gpu.error(),
            "gpus.urgent_lane = \"gpu\" needs the CUDA backend (backend.kind resolved to \"cpu\"); use \"cpu\", "
            "\"off\" or \"auto\"");
  d.urgent_lane = "off";
  EXPECT_TRUE(engine_options_from(d, 4, {true, 2, {}})->lane_devices.empty());
  d.urgent_lane = "auto";
  d.urgent_priority = "off";
  auto off = engine_options_from(d, 4, {true, 2, {}});
  ASSERT_TRUE(off) << off.error();
  EXPECT_FALSE(off->urgent_priority);
  EXPECT_TRUE(off->lane_devices.empty());
  // A fixed headroom must leave room for the rest.
  d.urgent_reserve_auto = false;
  d.urgent_reserve = std::uint64_t(8) << 30;
  auto big = engine_options_from(d, 4);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error(), "memory.urgent_reserve: 8.00 GiB is not below the memory budget (8.00 GiB)");
}

TEST(Config, UrgentKeyErrorsNameTheKey) {
  auto expect_error = [](const char* text, const char* needle) {
    auto c = parse_config(text, "bad.toml");
    ASSERT_FALSE(c) << "accepted: " << text;
    EXPECT_NE(c.error().find(needle), std::string::npos) << c.error();
  };
  expect_error("[scheduler]\nurgent_priority = \"NORMAL\"\n",
               "bad.toml:2: scheduler.urgent_priority: expected \"high\", \"critical\" or \"off\", got \"normal\"");
  expect_error("[gpus]\nurgent_lane = \"fpga\"\n", "gpus.urgent_lane: expected \"auto\", \"gpu\", \"cpu\" or \"off\"");
  expect_error("[gpus]\nurgent_lane_max_domain_log2 = 31\n",
               "gpus.urgent_lane_max_domain_log2: must be between 1 and 30");
  expect_error("[gpus]\nurgent_lane_max_domain_log2 = 0\n",
               "gpus.urgent_lane_max_domain_log2: must be between 1 and 30");
  expect_error("[pipeline]\nurgent_synthesis_workers = 65\n",
               "pipeline.urgent_synthesis_workers: must be between 0 and 64");
  expect_error("[memory]\nurgent_reserve = \"some\"\n", "memory.urgent_reserve");
  auto a = parse_config("[memory]\nurgent_reserve = \"auto\"\n", "ok.toml");
  ASSERT_TRUE(a) << a.error();
  EXPECT_TRUE(a->urgent_reserve_auto);
}

// memory.request_budget (issue 41 item 4): auto is an eighth of the budget, at most 4 GiB; a fixed
// slice above half the budget is refused, naming the key.
// Hung devices (issue 41 item 7): gpus.hang_multiple / hang_min / probe_interval reach the engine
// with the CUDA backend only; the CPU backend's one slot is never watched nor probed.
TEST(Config, HangWatchIsForGpusOnly) {
  auto c = parse_config("[gpus]\nhang_multiple = 6\nhang_min = \"90s\"\nprobe_interval = \"2m\"\n", "t.toml");
  ASSERT_TRUE(c) << c.error();
  c->budget_auto = false;
  c->total_budget = std::uint64_t(8) << 30;
  c->backend = "cuda";
  auto gpu = engine_options_from(*c, 4, BackendAvailability{true, 1, {}});
  ASSERT_TRUE(gpu) << gpu.error();
  EXPECT_EQ(gpu->hang_multiple, 6.0);
  EXPECT_EQ(gpu->hang_min, std::chrono::seconds(90));
  EXPECT_EQ(gpu->probe_after, std::chrono::minutes(2));
  c->backend = "cpu";
  auto cpu = engine_options_from(*c, 4);
  ASSERT_TRUE(cpu) << cpu.error();
  EXPECT_EQ(cpu->hang_multiple, 0.0);
  EXPECT_EQ(cpu->probe_after.count(), 0);
  EXPECT_EQ(DaemonConfig{}.hang_multiple, 10.0);  // the defaults: 10 x, at least 60 s, probe every 5 min
  EXPECT_EQ(DaemonConfig{}.hang_min, std::chrono::seconds(60));
  EXPECT_EQ(DaemonConfig{}.probe_interval, std::chrono::minutes(5));
  auto bad = parse_config("[gpus]\nhang_multiple = 1.5\n", "t.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("hang_multiple: must be 0 (off) or at least 2"), std::string::npos) << bad.error();
}

TEST(Config, RequestBudgetAutoAndItsLimit) {
  DaemonConfig c;
  c.budget_auto = false;
  c.total_budget = std::uint64_t(8) << 30;
  auto o = engine_options_from(c, 4);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->request_budget_bytes, std::uint64_t(1) << 30);
  c.total_budget = std::uint64_t(100) << 30;
  EXPECT_EQ(engine_options_from(c, 4)->request_budget_bytes, std::uint64_t(4) << 30);
  c.request_budget_auto = false;
  c.request_budget = 0;
  EXPECT_EQ(engine_options_from(c, 4)->request_budget_bytes, 0u);  // "0": requests are not charged
  c.request_budget = std::uint64_t(51) << 30;
  auto big = engine_options_from(c, 4);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().find("memory.request_budget (51.00 GiB) is more than half the budget"), std::string::npos)
      << big.error();
}

}  // namespace
}  // namespace cuzk::apps
