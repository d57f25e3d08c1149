// Groth16 GPU prover benchmark: one synthetic PoRep-shaped partition per size, key resident (or,
// with --streamed, streamed from pinned host memory in chunks of 2^K bases at each proof).
//
// Shape of a 32 GiB PoRep partition (filecoin-formats.md 2.2), scaled by m / 2^27: 328 inputs,
// 130,169,893 aux, 130,278,869 rows; nnz per row A 2.37, B 1.00, C 2.17; A aux density 99.7%,
// B aux density 25.4%, B inputs = ONE only. Witness: aux values 45% zero, 45% one, 10% random (so
// ~90% 0/1; --random-permille P sets the random share to P/1000, e.g. 13 for the 1.3% of non-0/1
// aux values measured in real 32 GiB partitions, RESULTS_daemon.md). The key's bases are generated
// on the GPU (P_i = (i+1) G; no toxic waste, so the proof does not verify: correctness is
// gpu_prover_check's job) and the CSR shape too; the witness lives in pinned host memory (the upload
// is timed, as part of each proof).
//
// --compact: the warm-up, profile and overlap proofs take the witness in compact form (binary aux as
// bits, the rest as values; CompactAssignment::from_dense), uploaded as such and expanded on the device,
// as cuzk-daemon hands it over; the upload column then times that.
//
// Per size: one warm-up proof, then `reps` proofs with profile = true (stages serialized, per-stage
// host wall times) and `reps` proofs with overlap (witness MSMs on a second stream beside the H chain);
// medians. Also one proof from pageable memory (upload through the staging buffers) and, at the
// --nosplit sizes, one profile proof with the 0/1 split disabled.
//
// --long-rows K:T: every K-th row of A has T terms of +-1 instead (the other rows' average lowered so
// A keeps 2.37 terms per row), like the real circuit's bit-packing rows, which a one-thread-per-row
// evaluation pays for in warp divergence.
//
// Usage: bench_prover [--logs 22,24,26,27] [--reps 3] [--nosplit 24,26] [--long-rows K:T]
//                     [--random-permille P] [--compact] [--streamed [--stream-chunk-log K]] [--h-copies K]
//                     [--memory-limit-gib G] [--piece-max-log K] [--check-pieces] [--cancel-after-ms N]
// --random-permille 1000: a dense witness (a 32 GiB WindowPoSt partition has 0.9 % bits): L, A, B1, B2
// and H are full MSMs, cut into pieces that fit the memory left (gpu/msm_pieces.hpp); --memory-limit-gib
// plans with G GiB of the card (gpus.memory_limit), --piece-max-log caps the pieces, --check-pieces
// proves once more with the MSMs cut elsewhere and compares the five sums.
// --h-copies K: shifted copies of the resident H bases (GpuKeyOptions::h_copies; default 0 = 3 when
// the device has room, 1 = none).
// CUZK_BENCH_VARIANTS="VAR=V,VAR2=W;VAR=X": after the overlap proofs, `reps` more under each set of
// tuning variables in turn (src/apps/common/gpu_tuning.hpp; each set over the process's own), for A/B
// comparisons in one process (the key is made once; CUZK_GPU_S0_PRIORITY keeps the first value, since
// the prover's streams are made once). The process's CUZK_* variables set the base tuning.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/gpu_tuning.hpp"
#include "../harness.hpp"
#include "base/parallel.hpp"
#include "gpu/gpu.hpp"
#include "gpu/groth16_backend.hpp"
#include "groth16/witness.hpp"

using namespace cuzk;
using cuzk::apps::GpuEnvTuning;
using math::Fr;

namespace {

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

std::uint64_t mix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Fr random_fr(std::uint64_t seed) {
  math::Limbs<4> x;
  for (int l = 0; l < 4; ++l) x[l] = mix64(seed * 4 + l);
  x[3] &= 0x3fffffffffffffffULL;  // < 2^254 < r: a valid Montgomery representation
  return Fr::from_mont_raw(x);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  int log = 0;
  bool ok = false;
  std::string error;
  gpu::GpuProveTimings med;  // medians of the profile runs
  double overlap_total = 0, pageable_upload = 0;
  double nosplit_total = -1, nosplit_l = 0, nosplit_a = 0, nosplit_b1 = 0, nosplit_b2 = 0;
  double mem_gb = 0, key_gb = 0, key_host_gb = 0, shape_gb = 0;
  int h_copies = 1;
  gpu::GpuProveTimings::Query l, a, b;
  std::size_t pieces = 1, retries = 0;  // the overlap runs' most MSM pieces, pieces halved after an OOM
  std::string pieces_check;             // --check-pieces: "same" or what differs
  double cancel_to_return_ms = -1;      // --cancel-after-ms: from the cancel to start()'s return
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

gpu::GpuProveTimings median_of(const std::vector<gpu::GpuProveTimings>& ts) {
  gpu::GpuProveTimings m;
  auto med = [&](double gpu::GpuProveTimings::*f) {
    std::vector<double> v;
    for (auto& t : ts) v.push_back(t.*f);
    return median(v);
  };
  using T = gpu::GpuProveTimings;
  for (auto f : {&T::upload_ms, &T::eval_ms, &T::ntt_ms, &T::msm_h_ms, &T::msm_l_ms, &T::msm_a_ms, &T::msm_b1_ms,
                 &T::msm_b2_ms, &T::batch_add_ms, &T::split_ms, &T::total_ms})
    m.*f = med(f);
  if (!ts.empty()) {
    m.l = ts[0].l;
    m.a = ts[0].a;
    m.b = ts[0].b;
  }
  return m;
}

std::uint32_t g_long_every = 0, g_long_terms = 0;  // --long-rows
std::uint32_t g_random_permille = 100;             // --random-permille
bool g_compact = false;                            // --compact
gpu::GpuKeyOptions g_key_opt;                      // --streamed, --stream-chunk-log
gpu::GpuTuning g_tuning;                           // from the CUZK_* variables
std::size_t g_memory_limit = 0;                    // --memory-limit-gib (GpuProveOptions::memory_limit)
std::size_t g_piece_max = 0;                       // --piece-max-log (GpuProveOptions::msm_piece_max)
bool g_check_pieces = false;                       // --check-pieces
int g_cancel_ms = 0;                               // --cancel-after-ms

Row run_size(int log, int reps, bool nosplit) {
  Row row;
  row.log = log;
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
  ks.b_inputs_only_one = true;
  ks.seed = 7 + log;
  // The shape first: the key's H copies are taken from the memory left after it (GpuKeyOptions::
  // h_copies keeps a proof's workspace free), so that the defaults fit on the H200 at 2^27.
  gpu::GpuShape::SyntheticSpec ss;
  ss.rows = rows;
  ss.num_inputs = num_inputs;
  ss.num_aux = num_aux;
  ss.a_terms = 309405051.0 / 130278869.0;
  if (g_long_every) {
    ss.long_row_every = g_long_every;
    ss.long_row_terms = g_long_terms;
    ss.a_terms = std::max(1.0, (ss.a_terms * g_long_every - g_long_terms) / (g_long_every - 1));
  }
  ss.b_terms = 130327340.0 / 130278869.0;
  ss.c_terms = 282656500.0 / 130278869.0;
  ss.seed = 11 + log;
  auto shape = gpu::GpuShape::synthetic(ss);
  if (!shape) {
    row.error = shape.error();
    return row;
  }
  auto key = gpu::GpuKey::synthetic(ks, g_key_opt);
  if (!key) {
    row.error = key.error();
    return row;
  }
  row.key_gb = double((*key)->device_bytes()) / 1e9;
  row.h_copies = (*key)->h_copies();
  row.key_host_gb = double((*key)->host_bytes()) / 1e9;
  row.shape_gb = double((*shape)->device_bytes()) / 1e9;

  const std::size_t nvars = std::size_t(num_inputs) + num_aux;
  Fr* w = nullptr;
  if (cudaHostAlloc(reinterpret_cast<void**>(&w), nvars * sizeof(Fr), cudaHostAllocDefault) != cudaSuccess) {
    row.error = "cudaHostAlloc failed";
    return row;
  }
  parallel_chunks(nvars, default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) {
      if (i == 0) {
        w[i] = Fr::one();
      } else if (i < num_inputs) {
        w[i] = random_fr(i);
      } else {
        // g_random_permille / 1000 random, the rest split evenly between 0 and 1
        std::uint64_t u = mix64(i * 0x51ed27ULL + log) % 1000;
        const std::uint64_t zeros = (1000 - g_random_permille) / 2;
        w[i] = u < zeros ? Fr::zero() : u < 1000 - g_random_permille ? Fr::one() : random_fr(i + 0x5eed0000000ULL);
      }
    }
  });
  std::span<const Fr> ws(w, nvars);
  try {
    gpu::GpuProver prover(g_tuning);
    gpu::GpuProveOptions prof;
    prof.profile = true;
    prof.memory_limit = g_memory_limit;
    prof.msm_piece_max = g_piece_max;
    gpu::GpuProveTimings t;
    // --compact: the timed proofs take the witness as the daemon hands it over (bits + non-binary values)
    groth16::CompactAssignment cw;
    if (g_compact) cw = groth16::CompactAssignment::from_dense(ws, num_inputs);
    auto prove = [&](const gpu::GpuProveOptions& o) {
      return g_compact ? prover.start(**key, **shape, cw, o, &t) : prover.start(**key, **shape, ws, o, &t);
    };
    auto warm = prove(prof);
    if (!warm) throw std::runtime_error(warm.error());
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    row.mem_gb = double(total_b - free_b) / 1e9;
    std::vector<gpu::GpuProveTimings> runs;
    for (int r = 0; r < reps; ++r) {
      auto p = prove(prof);
      if (!p) throw std::runtime_error(p.error());
      runs.push_back(t);
      std::printf("  2^%d profile run %d: total %.1f ms\n", log, r, t.total_ms);
    }
    row.med = median_of(runs);
    gpu::GpuProveOptions ov;
    ov.memory_limit = g_memory_limit;
    ov.msm_piece_max = g_piece_max;
    std::vector<double> tot;
    std::optional<groth16::PendingProof> first;
    for (int r = 0; r < reps; ++r) {
      auto p = prove(ov);
      if (!p) throw std::runtime_error(p.error());
      if (!first) first = *p;
      tot.push_back(t.total_ms);
      row.pieces = std::max(row.pieces, t.msm_pieces);
      row.retries += t.msm_piece_retries;
      std::printf("  2^%d overlap run %d: total %.1f ms, MSM pieces %zu (%zu halved), rows freed %.1f GB\n", log, r,
                  t.total_ms, t.msm_pieces, t.msm_piece_retries, double(t.rows_freed_bytes) / 1e9);
    }
    row.overlap_total = median(tot);
    // --check-pieces: the same witness with every full MSM cut at other places (pieces of a third of
    // the longest query, or of half the pieces used): the five sums must not change.
    if (g_check_pieces && first) {
      gpu::GpuProveOptions cut = ov;
      const std::size_t longest = std::max({row.med.l.n, row.med.a.n, row.med.b.n, std::size_t(1) << log});
      cut.msm_piece_max = row.pieces > 1 ? (longest / row.pieces / 2 + 63) / 64 * 64 : (longest / 3 + 63) / 64 * 64;
      auto p = prove(cut);
      if (!p) throw std::runtime_error("--check-pieces: " + p.error());
      std::string d;
      if (p->a_acc != first->a_acc) d += " A";
      if (p->b1_acc != first->b1_acc) d += " B1";
      if (p->b2_acc != first->b2_acc) d += " B2";
      if (p->h_acc != first->h_acc) d += " H";
      if (p->l_acc != first->l_acc) d += " L";
      row.pieces_check = (d.empty() ? "same" : "DIFFER:" + d) + " (" + std::to_string(row.pieces) + " vs " +
                         std::to_string(t.msm_pieces) + " pieces)";
      std::printf("  2^%d pieces check: %s\n", log, row.pieces_check.c_str());
    }
    // Tuning A/B in one process: CUZK_BENCH_VARIANTS="A=1,B=0;C=1" runs `reps` overlap proofs under
    // each set of tuning variables in turn (read by the same reader, over the process's own)
    if (const char* vs = std::getenv("CUZK_BENCH_VARIANTS")) {
      std::stringstream all(vs);
      std::string variant;
      while (std::getline(all, variant, ';')) {
        std::map<std::string, std::string> set;
        std::stringstream one(variant);
        std::string kv;
        while (std::getline(one, kv, ',')) {
          const auto eq = kv.find('=');
          if (eq == std::string::npos) continue;
          set[kv.substr(0, eq)] = kv.substr(eq + 1);
        }
        auto vt_tuning = apps::gpu_tuning_from_env([&](const char* name) -> const char* {
          auto it = set.find(name);
          return it != set.end() ? it->second.c_str() : std::getenv(name);
        });
        if (!vt_tuning) throw std::runtime_error("CUZK_BENCH_VARIANTS: " + vt_tuning.error());
        prover.set_tuning(vt_tuning->tuning);
        std::vector<double> vt;
        for (int r = 0; r < reps; ++r) {
          auto p = prove(ov);
          if (!p) throw std::runtime_error(p.error());
          vt.push_back(t.total_ms);
        }
        std::printf("  2^%d variant [%s]: overlap total %.1f ms (", log, variant.c_str(), median(vt));
        for (double x : vt) std::printf(" %.1f", x);
        std::printf(" )\n");
        prover.set_tuning(g_tuning);
      }
    }
    // --cancel-after-ms N: one more proof, cancelled N ms after its start; the time from the moment
    // the check first says "cancelled" to start()'s return is how long the device stays taken.
    if (g_cancel_ms > 0) {
      gpu::GpuProveOptions co = ov;
      const double t_begin = now_ms();
      std::atomic<double> t_cancel{-1};
      co.cancelled = [&] {
        if (now_ms() - t_begin < g_cancel_ms) return false;
        double expected = -1;
        t_cancel.compare_exchange_strong(expected, now_ms());
        return true;
      };
      auto p = prove(co);
      const double t_end = now_ms();
      if (p) throw std::runtime_error("--cancel-after-ms: the proof was not cancelled (it ended first)");
      if (p.error() != "cancelled") throw std::runtime_error("--cancel-after-ms: " + p.error());
      row.cancel_to_return_ms = t_end - t_cancel.load();
      std::printf("  2^%d cancel after %d ms: start() returned %.1f ms after the cancel\n", log, g_cancel_ms,
                  row.cancel_to_return_ms);
      auto again = prove(ov);
      if (!again) throw std::runtime_error("after the cancel: " + again.error());
    }
    {  // pageable witness
      std::vector<Fr> pageable(ws.begin(), ws.end());
      auto p = prover.start(**key, **shape, pageable, prof, &t);
      if (!p) throw std::runtime_error(p.error());
      row.pageable_upload = t.upload_ms;
    }
    if (nosplit) {
      gpu::GpuProveOptions ns = prof;
      ns.split_max_tail = 0;
      auto p = prover.start(**key, **shape, ws, ns, &t);
      if (!p) throw std::runtime_error(p.error());
      row.nosplit_total = t.total_ms;
      row.nosplit_l = t.msm_l_ms;
      row.nosplit_a = t.msm_a_ms;
      row.nosplit_b1 = t.msm_b1_ms;
      row.nosplit_b2 = t.msm_b2_ms;
    }
    row.ok = true;
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  cudaFreeHost(w);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string logs_arg = "22,24,26,27", nosplit_arg = "24", long_rows;
  int reps = 3, random_permille = -1, h_copies = -1, chunk_log = 0, memory_limit_gib = 0, piece_max_log = 0;
  bench::Cli cli("bench_prover", "the Groth16 GPU prover on synthetic PoRep-shaped partitions");
  cli.option("--logs", logs_arg, "K,K", "domain sizes (log2)")
      .option("--nosplit", nosplit_arg, "K,K", "sizes also timed without the 0/1 split")
      .option("--reps", reps, "N", "timed proofs per size", 1, 1000)
      .option("--random-permille", random_permille, "P", "non-binary aux per mille (default: the PoRep share)", 0, 1000)
      .flag("--compact", g_compact, "upload the compact witness")
      .flag("--streamed", g_key_opt.streamed, "stream the key from pinned host memory")
      .option("--h-copies", h_copies, "K", "H copies of a resident key", 0, 4)
      .option("--stream-chunk-log", chunk_log, "K", "bases per streamed chunk (log2)", 10, 28)
      .option("--long-rows", long_rows, "K:T", "every K-th row gets T terms (K >= 2)")
      .option("--memory-limit-gib", memory_limit_gib, "G", "plan with G GiB of the card (gpus.memory_limit)", 0, 4096)
      .option("--piece-max-log", piece_max_log, "K", "full MSMs in pieces of at most 2^K scalars", 0, 31)
      .flag("--check-pieces", g_check_pieces, "prove once more with the MSMs cut elsewhere: same sums")
      .option("--cancel-after-ms", g_cancel_ms, "N", "one more proof, cancelled after N ms: time to return", 0, 100000);
  if (!cli.parse(argc, argv)) return cli.exit_code();
  const std::vector<int> logs = parse_list(logs_arg.c_str()), nosplit = parse_list(nosplit_arg.c_str());
  if (random_permille >= 0) g_random_permille = std::uint32_t(random_permille);
  g_memory_limit = std::size_t(memory_limit_gib) << 30;
  if (piece_max_log) g_piece_max = std::size_t(1) << piece_max_log;
  if (h_copies >= 0) g_key_opt.h_copies = h_copies;
  if (chunk_log) g_key_opt.chunk_bases = std::size_t(1) << chunk_log;
  if (!long_rows.empty() &&
      (std::sscanf(long_rows.c_str(), "%u:%u", &g_long_every, &g_long_terms) != 2 || g_long_every < 2)) {
    std::fprintf(stderr, "bench_prover: --long-rows K:T, K >= 2\n");
    return 2;
  }
  auto env = apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!env) {
    std::fprintf(stderr, "bench_prover: %s\n", env.error().c_str());
    return 2;
  }
  for (const auto& kv : env->non_default) std::printf("tuning: %s\n", kv.c_str());
  g_tuning = env->tuning;
  if (!gpu::device_available()) {
    std::printf("no CUDA device\n");
    return 2;
  }
  std::printf("device: %s, host threads %zu\n", gpu::device_name().c_str(), default_threads());
  std::vector<Row> rows;
  for (int log : logs) {
    bool ns = std::find(nosplit.begin(), nosplit.end(), log) != nosplit.end();
    Row r = run_size(log, reps, ns);
    if (!r.ok) std::printf("2^%d: FAILED: %s\n", log, r.error.c_str());
    else
      std::printf(
          "2^%d: profile total %.1f ms, overlap total %.1f ms, device memory in use %.1f GB, MSM pieces %zu "
          "(%zu halved)%s%s\n",
          log, r.med.total_ms, r.overlap_total, r.mem_gb, r.pieces, r.retries,
          r.pieces_check.empty() ? "" : ", pieces check ", r.pieces_check.c_str());
    std::fflush(stdout);
    rows.push_back(r);
  }
  const std::size_t chunk = g_key_opt.chunk_bases ? g_key_opt.chunk_bases : gpu::GpuKeyOptions::kDefaultStreamChunk;
  const std::string where =
      g_key_opt.streamed ? "key streamed from pinned host memory in chunks of " + std::to_string(chunk) + " bases"
                         : std::string("key resident");
  std::printf(
      "\nGroth16 GPU prover, synthetic PoRep-shaped partition, %s (ms, medians of %d; witness "
      "%s, %.1f%% of aux not 0/1)\n",
      where.c_str(), reps, g_compact ? "compact" : "dense", g_random_permille / 10.0);
  std::printf(
      "| log m | upload | a,b,c eval | NTT/H | MSM H | MSM L tail | MSM A tail | MSM B1 tail | MSM B2 (G2) tail "
      "| batch-add (4) | split prep | total serial | total overlap |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (auto& r : rows) {
    if (!r.ok) {
      std::printf("| %d | failed: %s |\n", r.log, r.error.c_str());
      continue;
    }
    auto& m = r.med;
    std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | **%.1f** |\n",
                r.log, m.upload_ms, m.eval_ms, m.ntt_ms, m.msm_h_ms, m.msm_l_ms, m.msm_a_ms, m.msm_b1_ms, m.msm_b2_ms,
                m.batch_add_ms, m.split_ms, m.total_ms, r.overlap_total);
  }
  std::printf(
      "\nSizes and memory\n| log m | L n / ones / tail | A n / ones / tail | B n / ones / tail | key GB "
      "(device / pinned host) | H copies | shape GB | device GB in use | pageable upload ms |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (auto& r : rows) {
    if (!r.ok) continue;
    auto& m = r.med;
    std::printf(
        "| %d | %zu / %zu / %zu | %zu / %zu / %zu | %zu / %zu / %zu | %.1f / %.1f | %d | %.1f | %.1f | %.1f |\n", r.log,
        m.l.n, m.l.ones, m.l.tail, m.a.n, m.a.ones, m.a.tail, m.b.n, m.b.ones, m.b.tail, r.key_gb, r.key_host_gb,
        r.h_copies, r.shape_gb, r.mem_gb, r.pageable_upload);
  }
  bool any_ns = false;
  for (auto& r : rows) any_ns |= r.ok && r.nosplit_total >= 0;
  if (any_ns) {
    std::printf(
        "\n0/1 split off (full MSMs over L, A, B; one profile run)\n| log m | MSM L | MSM A | MSM B1 | MSM B2 | "
        "total serial | split on: total serial |\n|---|---|---|---|---|---|---|\n");
    for (auto& r : rows)
      if (r.ok && r.nosplit_total >= 0)
        std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", r.log, r.nosplit_l, r.nosplit_a, r.nosplit_b1,
                    r.nosplit_b2, r.nosplit_total, r.med.total_ms);
  }
  return 0;
}
