// Where the host's CPUs stop feeding more GPUs (issue 29, item 2): the engine as the daemon sizes it
// for this machine (engine_options_from of the default config), proving 32 GiB PoRep C2 jobs whose
// host work is real — each job parses a SYNTHETIC TEST DATA C1 JSON and runs every vanilla check
// (PorepJob::prepare, what the daemon's PoRep kind does), each partition synthesizes its real
// 130M-variable witness (partition_values + build_witness), each partition proof is finished and
// verified (one multi-pairing, as the real self-check) — on N simulated devices that hold each
// partition for --device-ms (default 1073 ms: one H200's measured time per 32 GiB partition,
// bench/RESULTS_daemon.md) without using a CPU. What the devices receive is the small `mulchain`
// fixture's witness, so that finish() and the verification are real Groth16 work.
//
//   device_scaling_bench [--devices 1,2,4,8,16] [--proofs-per-device 3] [--device-ms 1073] [--zkey PATH]
//
// Per N: wall time, proofs and partitions per second against the ideal N / device time, the devices'
// busy share and the host's CPU use. Scaling below ~90 % with the host CPU near 100 % is the CPU
// bound; below it with the CPU idle, the engine's sizing is. Results: bench/RESULTS_daemon.md.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "apps/cuzk-daemon/config.hpp"
#include "engine/engine.hpp"
#include "engine/job_kind.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_values.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/testkit/synthetic_c1.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "groth16/verifier.hpp"
#include "harness.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;
namespace bench = cuzk::bench;
namespace porep = cuzk::filecoin::porep;

constexpr std::uint32_t kBenchKind = 6000;

// What every job shares: the C1 as the daemon receives it, the stand-in key's witness and one
// PendingProof of it (what a device would hand back).
struct Shared {
  std::string c1_json;
  std::vector<math::Fr> witness;
  groth16::PendingProof pending;
  std::atomic<std::uint64_t> synth_us{0}, prepare_us{0};
};

class BenchPrepared final : public PreparedJob {
 public:
  BenchPrepared(porep::PorepJob job, SrsLease lease, Shared& sh)
      : job_(std::move(job)), lease_(std::move(lease)), sh_(sh) {}
  std::uint32_t num_partitions() const override { return job_.partitions(); }
  // The compact witness (83 MiB) and synthesis transients (~120 MiB) of a 32 GiB partition.
  PartitionMemory partition_memory(std::uint32_t) const override { return {256u << 20, 1u << 20}; }
  Result<SynthesizedPartition> synthesize(std::uint32_t k, const CancelToken&) override {
    const auto t0 = std::chrono::steady_clock::now();
    auto values = porep::partition_values(job_.c1(), job_.config(), k);
    if (!values) return Error{values.error()};
    const auto params = porep::StackedCircuitParams::from_config(job_.config());
    circuit::Witness w =
        circuit::build_witness([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, *values); });
    if (w.num_aux == 0) return Error{"empty witness"};
    sh_.synth_us += std::uint64_t(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    SynthesizedPartition s;
    s.shape = &lease_->shape;
    s.key = &lease_->pk;
    s.witness = sh_.witness;
    return s;
  }
  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_->pk; }
  Status verify(std::span<const groth16::Proof> proofs) override {
    std::vector<math::Fr> pub(sh_.witness.begin() + 1, sh_.witness.begin() + 1 + lease_->n_public);
    for (const auto& p : proofs) {
      auto ok = groth16::verify(lease_->pk.vk, pub, p);
      if (!ok || !*ok) return Error{"a partition proof does not verify"};
    }
    return ok_status();
  }

 private:
  porep::PorepJob job_;
  SrsLease lease_;
  Shared& sh_;
};

class BenchKind final : public JobKind {
 public:
  explicit BenchKind(Shared& sh) : sh_(sh) {}
  std::string name() const override { return "porep-32g-sim"; }
  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest>, PrepareContext& ctx) override {
    const auto t0 = std::chrono::steady_clock::now();
    auto job = porep::PorepJob::prepare(
        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(sh_.c1_json.data()), sh_.c1_json.size()));
    if (!job) return Error{job.error()};
    sh_.prepare_us += std::uint64_t(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    auto lease = ctx.srs.acquire("stand-in");
    if (!lease) return Error{lease.error()};
    return std::unique_ptr<PreparedJob>(std::make_unique<BenchPrepared>(std::move(*job), std::move(*lease), sh_));
  }

 private:
  Shared& sh_;
};

// A device that holds each partition for `ms` and uses no CPU.
class SimDeviceBackend final : public groth16::Backend {
 public:
  SimDeviceBackend(std::chrono::microseconds t, const groth16::PendingProof& p) : t_(t), p_(p) {}
  std::string name() const override { return "sim-device"; }
  using groth16::Backend::start;
  Result<groth16::PendingProof> start(const groth16::R1csShape&, std::span<const math::Fr>,
                                      const groth16::ProvingKey&) override {
    std::this_thread::sleep_for(t_);
    return p_;
  }

 private:
  std::chrono::microseconds t_;
  const groth16::PendingProof& p_;
};

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

std::vector<unsigned> parse_list(const std::string& s) {
  std::vector<unsigned> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(unsigned(std::stoul(item)));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string devices_arg = "1,2,4,8,16";
  std::string zkey = std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/snarkjs/mulchain/mulchain.zkey";
  std::string wtns = std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/snarkjs/mulchain/witness.wtns";
  double device_ms = 1073;
  unsigned per_device = 3;
  bench::Cli cli("device_scaling_bench",
                 "32 GiB PoRep host work (real) on N simulated devices: where the CPUs stop feeding the GPUs",
                 bench::Format::kMarkdown);
  cli.option("--devices", devices_arg, "LIST", "device counts to run, comma-separated")
      .option("--proofs-per-device", per_device, "P", "proofs per run = P x N (at least 2)", 1, 1000)
      .option("--device-ms", device_ms, "MS", "time a device holds one partition", 1, 1e6)
      .option("--zkey", zkey, "PATH", "the stand-in key the devices' proofs are finished with")
      .option("--wtns", wtns, "PATH", "its witness");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  std::vector<unsigned> counts;
  try {
    counts = parse_list(devices_arg);
  } catch (const std::exception&) {
    std::fprintf(stderr, "device_scaling_bench: --devices: expected numbers separated by commas, got \"%s\"\n",
                 devices_arg.c_str());
    return 2;
  }

  Shared sh;
  {
    const auto& cfg = porep::porep_config_by_name("StackedDrg32GiBV1_1");
    filecoin::testkit::SyntheticC1Options o;
    o.prover_id = porep::prover_id_from_actor(1000);
    o.sector_id = 1;
    o.ticket.fill(0x11);
    o.seed.fill(0x22);
    o.rng_seed = 1;
    sh.c1_json = porep::write_c1_json(filecoin::testkit::synthetic_c1(cfg, o));
  }
  auto w = formats::read_wtns(wtns);
  if (!w) {
    std::fprintf(stderr, "device_scaling_bench: %s: %s\n", wtns.c_str(), w.error().c_str());
    return 1;
  }
  sh.witness = std::move(*w);

  const unsigned threads = std::thread::hardware_concurrency();
  bench::note(cli.format(),
              "Host: %u hardware threads. Device time per partition: %.0f ms (simulated). C1: SYNTHETIC TEST DATA, "
              "%.1f MiB of JSON.",
              threads, device_ms, double(sh.c1_json.size()) / (1 << 20));
  bench::Table table(cli.format(), "",
                     {{"devices", 0},
                      {"proofs", 0},
                      {"wall s", 1},
                      {"s/proof", 2},
                      {"partitions/s", 2},
                      {"ideal/s", 2},
                      {"scaling %", 1},
                      {"device busy %", 1},
                      {"host CPU %", 1},
                      {"prepare s/proof", 2},
                      {"synth s/partition", 3},
                      {"preparers", 0},
                      {"synthesis workers", 0}});
  for (unsigned n : counts) {
    apps::DaemonConfig cfg;
    cfg.devices.clear();
    for (unsigned d = 0; d < n; ++d) cfg.devices.push_back(d);
    auto o = apps::engine_options_from(cfg, threads, apps::BackendAvailability{false, 0, {}});
    if (!o) {
      std::fprintf(stderr, "device_scaling_bench: %s\n", o.error().c_str());
      return 1;
    }
    o->devices = cfg.devices;  // the CPU resolution would keep one device slot
    o->lane_devices.clear();
    o->urgent_priority.reset();
    const std::chrono::microseconds hold(std::int64_t(device_ms * 1000));
    o->executor =
        make_host_executor("sim", MemoryModel::kDevice, [&sh, hold](BackendSlot) -> std::unique_ptr<groth16::Backend> {
          return std::make_unique<SimDeviceBackend>(hold, sh.pending);
        });
    Engine e(std::move(*o));
    if (auto st = e.srs().register_zkey("stand-in", zkey); !st) {
      std::fprintf(stderr, "device_scaling_bench: %s\n", st.error().c_str());
      return 1;
    }
    {  // one real proof of the stand-in: the PendingProof every device returns
      auto lease = e.srs().acquire("stand-in");
      if (!lease) {
        std::fprintf(stderr, "device_scaling_bench: %s\n", lease.error().c_str());
        return 1;
      }
      auto p = groth16::make_cpu_backend()->start((*lease)->shape, std::span<const math::Fr>(sh.witness), (*lease)->pk);
      if (!p) {
        std::fprintf(stderr, "device_scaling_bench: stand-in proof: %s\n", p.error().c_str());
        return 1;
      }
      sh.pending = *p;
    }
    e.register_kind(kBenchKind, std::make_shared<BenchKind>(sh));
    const unsigned proofs = std::max(2u, per_device * n);
    sh.synth_us = 0;
    sh.prepare_us = 0;
    const double cpu0 = process_cpu_s();
    bench::Stopwatch sw;
    std::vector<std::shared_ptr<Job>> jobs;
    for (unsigned i = 0; i < proofs; ++i) {
      ProofRequest r;
      r.request_id = "n" + std::to_string(n) + "-" + std::to_string(i);
      r.proof_kind = kBenchKind;
      auto s = e.submit(std::move(r));
      if (!s) {
        std::fprintf(stderr, "device_scaling_bench: submit: %s\n", s.error().c_str());
        return 1;
      }
      jobs.push_back(s->job);
    }
    unsigned ok = 0;
    for (auto& j : jobs) {
      JobResult r = e.wait(j);
      if (r.status == ResultStatus::kCompleted) ++ok;
      else std::fprintf(stderr, "device_scaling_bench: %s: %s\n", r.job_id.c_str(), r.error.c_str());
    }
    const double wall = sw.s();
    const double cpu = process_cpu_s() - cpu0;
    const StatusSnapshot st = e.status();
    double busy = 0;
    for (const auto& d : st.devices) busy += d.busy_s;
    const double parts = double(proofs) * 10;
    const double ideal = double(n) / (device_ms / 1000);
    table.row({n, ok, wall, wall / proofs, parts / wall, ideal, 100 * parts / wall / ideal, 100 * busy / (n * wall),
               100 * cpu / (wall * threads), double(sh.prepare_us.load()) / 1e6 / proofs,
               double(sh.synth_us.load()) / 1e6 / parts, e.options().prepare_workers, e.options().synthesis_workers});
    if (ok != proofs) return 1;
  }
  return 0;
}
