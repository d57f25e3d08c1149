// The urgent lane on one device (docs/daemon.md 3a): a main GpuProver proves a synthetic
// PoRep-shaped partition (2^--main-log, default 27) in a loop on one host thread while a second
// GpuProver of its own (the lane: own streams, buffers and key) proves a small synthetic circuit
// (2^--lane-log, default 19, the size of a 32 GiB WinningPoSt) at pseudo-random moments beside it,
// as cuzk-daemon's gpus.urgent_lane = "gpu" does. Reports the lane proof's wall time alone and
// beside the partition (median, p90, p99, max), the partition's time alone and with the lane
// beside it, and checks that every lane result beside the partition equals the one proved alone
// (the five MSM sums, compared as group elements) — two instances on one device share nothing.
//
// --rank lane (default): the lane's streams at the device's highest priority, the main prover's s0
// one level below (gpu::StreamRank::kLane / kBelowLane, what the daemon sets); --rank alone: both
// at the priorities a prover has alone, for comparison.
//
// Usage: bench_lane [--main-log 27] [--lane-log 19] [--lane-reps 40] [--gap-ms 300] [--rank lane|alone]
// Keys and witnesses as bench_prover's (P_i = (i+1) G, 90% 0/1 witness, compact upload); the proofs
// do not verify (no toxic waste) — correctness of the prover is gpu_prover_check's job.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../harness.hpp"
#include "apps/common/gpu_tuning.hpp"
#include "base/parallel.hpp"
#include "gpu/gpu.hpp"
#include "gpu/groth16_backend.hpp"
#include "groth16/witness.hpp"

using namespace cuzk;
using math::Fr;

namespace {

std::uint64_t mix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Fr random_fr(std::uint64_t seed) {
  math::Limbs<4> x;
  for (int l = 0; l < 4; ++l) x[l] = mix64(seed * 4 + l);
  x[3] &= 0x3fffffffffffffffULL;
  return Fr::from_mont_raw(x);
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t i = std::min(v.size() - 1, std::size_t(std::ceil(p * double(v.size())) - 1));
  return v[i];
}

// A synthetic PoRep-shaped circuit of 2^log rows (bench_prover's scaling of the 32 GiB partition).
struct Circuit {
  std::unique_ptr<gpu::GpuKey> key;
  std::unique_ptr<gpu::GpuShape> shape;
  groth16::CompactAssignment w;
};

Result<Circuit> make_circuit(int log, std::uint64_t seed) {
  const double f = std::ldexp(1.0, log - 27);
  const std::uint32_t num_inputs = 328;
  const std::uint64_t rows = std::min<std::uint64_t>(std::uint64_t(130278869.0 * f), std::uint64_t(1) << log);
  const std::uint32_t num_aux = std::uint32_t(130169893.0 * f);
  gpu::GpuKey::SyntheticSpec ks;
  ks.domain_log2 = std::uint32_t(log);
  ks.num_inputs = num_inputs;
  ks.num_aux = num_aux;
  ks.a_aux_density = 129753292.0 / 130169893.0;
  ks.b_aux_density = 33112281.0 / 130169893.0;
  ks.seed = seed;
  auto key = gpu::GpuKey::synthetic(ks);
  if (!key) return Error{"key 2^" + std::to_string(log) + ": " + key.error()};
  gpu::GpuShape::SyntheticSpec ss;
  ss.rows = rows;
  ss.num_inputs = num_inputs;
  ss.num_aux = num_aux;
  ss.a_terms = 309405051.0 / 130278869.0;
  ss.b_terms = 130327340.0 / 130278869.0;
  ss.c_terms = 282656500.0 / 130278869.0;
  ss.seed = seed + 1;
  auto shape = gpu::GpuShape::synthetic(ss);
  if (!shape) return Error{"shape 2^" + std::to_string(log) + ": " + shape.error()};
  const std::size_t nvars = std::size_t(num_inputs) + num_aux;
  std::vector<Fr> dense(nvars);
  parallel_chunks(nvars, default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) {
      std::uint64_t u = mix64(i * 0x51ed27ULL + seed) % 1000;
      dense[i] = i == 0           ? Fr::one()
                 : i < num_inputs ? random_fr(i + seed)
                 : u < 450        ? Fr::zero()
                 : u < 900        ? Fr::one()
                                  : random_fr(i + seed);
    }
  });
  Circuit c{std::move(*key), std::move(*shape), groth16::CompactAssignment::from_dense(dense, num_inputs)};
  return Result<Circuit>(std::move(c));
}

bool same(const groth16::PendingProof& a, const groth16::PendingProof& b) {
  return a.a_acc == b.a_acc && a.b1_acc == b.b1_acc && a.b2_acc == b.b2_acc && a.h_acc == b.h_acc && a.l_acc == b.l_acc;
}

}  // namespace

int main(int argc, char** argv) {
  int main_log = 27, lane_log = 19, lane_reps = 40, gap_ms = 300;
  std::string rank = "lane";
  bench::Cli cli("bench_lane", "an urgent-lane prover beside a partition on one device");
  cli.option("--main-log", main_log, "K", "the partition's domain (log2)", 10, 28)
      .option("--lane-log", lane_log, "K", "the lane circuit's domain (log2)", 10, 24)
      .option("--lane-reps", lane_reps, "N", "lane proofs beside the partition", 1, 10000)
      .option("--gap-ms", gap_ms, "MS", "largest pseudo-random pause between lane proofs", 0, 10000)
      .option("--rank", rank, "lane|alone", "stream priorities (default lane: what the daemon sets)");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  if (rank != "lane" && rank != "alone") {
    std::fprintf(stderr, "bench_lane: --rank lane|alone\n");
    return 2;
  }
  auto env = apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!env) {
    std::fprintf(stderr, "bench_lane: %s\n", env.error().c_str());
    return 2;
  }
  if (!gpu::device_available()) {
    std::printf("no CUDA device\n");
    return 2;
  }
  int lo = 0, hi = 0;
  cudaDeviceGetStreamPriorityRange(&lo, &hi);
  std::printf("device: %s, host threads %zu, stream priorities %d (least) .. %d (greatest), rank %s\n",
              gpu::device_name().c_str(), default_threads(), lo, hi, rank.c_str());
  const bool ranked = rank == "lane";
  try {
    // The lane first (its key and buffers as a preloaded, warmed lane has them), then the partition.
    auto lane_c = make_circuit(lane_log, 1000);
    if (!lane_c) throw std::runtime_error(lane_c.error());
    gpu::GpuProver lane(env->tuning, ranked ? gpu::StreamRank::kLane : gpu::StreamRank::kAlone);
    gpu::GpuProveOptions opt;
    gpu::GpuProveTimings lt;
    auto ref = lane.start(*lane_c->key, *lane_c->shape, lane_c->w, opt, &lt);  // warm-up and reference
    if (!ref) throw std::runtime_error("lane: " + ref.error());
    std::vector<double> alone;
    for (int i = 0; i < 10; ++i) {
      const double t0 = now_ms();
      auto r = lane.start(*lane_c->key, *lane_c->shape, lane_c->w, opt, &lt);
      if (!r) throw std::runtime_error("lane: " + r.error());
      alone.push_back(now_ms() - t0);
    }
    auto main_c = make_circuit(main_log, 7);
    if (!main_c) throw std::runtime_error(main_c.error());
    gpu::GpuProver big(env->tuning, ranked ? gpu::StreamRank::kBelowLane : gpu::StreamRank::kAlone);
    gpu::GpuProveTimings mt;
    std::vector<double> main_alone, main_beside;
    for (int i = 0; i < 3; ++i) {
      auto r = big.start(*main_c->key, *main_c->shape, main_c->w, opt, &mt);
      if (!r) throw std::runtime_error("partition: " + r.error());
      if (i) main_alone.push_back(mt.total_ms);  // the first one warms up
    }
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    std::printf("device memory in use with both: %.1f GB of %.1f GB\n", double(total_b - free_b) / 1e9,
                double(total_b) / 1e9);
    std::atomic<bool> stop{false};
    std::string main_error;
    std::thread partition([&] {
      gpu::GpuProveTimings t;
      while (!stop.load()) {
        auto r = big.start(*main_c->key, *main_c->shape, main_c->w, opt, &t);
        if (!r) {
          main_error = r.error();
          return;
        }
        main_beside.push_back(t.total_ms);
      }
    });
    std::vector<double> beside;
    int mismatches = 0;
    for (int i = 0; i < lane_reps && main_error.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms ? mix64(i) % std::uint64_t(gap_ms) : 0));
      const double t0 = now_ms();
      auto r = lane.start(*lane_c->key, *lane_c->shape, lane_c->w, opt, &lt);
      if (!r) throw std::runtime_error("lane beside the partition: " + r.error());
      beside.push_back(now_ms() - t0);
      if (!same(*r, *ref)) ++mismatches;
    }
    stop = true;
    partition.join();
    if (!main_error.empty()) throw std::runtime_error("partition beside the lane: " + main_error);
    std::printf("lane 2^%d alone:  median %.1f ms, max %.1f ms (%zu proofs)\n", lane_log, pct(alone, 0.5),
                pct(alone, 1.0), alone.size());
    std::printf(
        "lane 2^%d beside a 2^%d partition: median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (%zu proofs)\n",
        lane_log, main_log, pct(beside, 0.5), pct(beside, 0.9), pct(beside, 0.99), pct(beside, 1.0), beside.size());
    std::printf("partition 2^%d: alone median %.1f ms, with the lane beside median %.1f ms, max %.1f ms (%zu proofs)\n",
                main_log, pct(main_alone, 0.5), pct(main_beside, 0.5), pct(main_beside, 1.0), main_beside.size());
    std::printf("lane results beside the partition equal to alone: %zu of %zu%s\n", beside.size() - mismatches,
                beside.size(), mismatches ? "  MISMATCH" : "");
    return mismatches ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
}
