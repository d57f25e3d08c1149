// Witness-generation speed of the circuit layer, one thread ("per core"): SHA-256 compressions and
// legacy Poseidon hashes synthesized in each constraint-system mode, plus the native hashes for
// scale. Witness mode is what a prover runs per partition; shape mode runs once per circuit family.
//
//   bench_witness [--seconds S] [--only sha|poseidon] [--mode witness|counting|shape|native]
//                 [--format text|md|csv|json]      (S: minimum CPU seconds per cell, default 1)
// Results: bench/RESULTS_circuit.md.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "circuit/gadgets/poseidon.hpp"
#include "circuit/gadgets/sha256.hpp"
#include "harness.hpp"

using namespace cuzk::circuit;
using cuzk::math::Fr;
namespace bench = cuzk::bench;

namespace {

double g_seconds = 1.0;
std::string g_only;  // "sha" or "poseidon": run one group only
std::string g_mode;  // "witness", "counting", "shape" or "native": run one column only (for profiling)
bool want(const char* mode) { return g_mode.empty() || g_mode == mode; }
std::uint64_t g_sink = 0;  // results feed it so nothing is optimized away

// Operations per CPU-second of this thread (the benchmark machine is shared, so wall time would
// measure the load): one warm-up batch, then batches until g_seconds of CPU time have passed.
template <class Fn>
double rate(std::size_t per_batch, Fn&& batch) {
  return bench::rate_per_cpu_second(per_batch, g_seconds, bench::CpuClock::kThread, batch);
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// `n` SHA-256 compressions chained through one CS (512 allocated message bits each, like the
// 25,840-row bellperson test, then compressions of the previous output with fresh bits).
template <class CS>
void sha_batch(CS& cs, std::size_t n, std::uint64_t seed) {
  std::vector<Boolean> block(512);
  auto iv = sha256_iv_constant();
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < 512; i += 64) {
      std::uint64_t r = splitmix(seed);
      for (std::size_t b = 0; b < 64; ++b) block[i + b] = Boolean::is(alloc_bit(cs, (r >> b) & 1));
    }
    auto out = sha256_compression(cs, block, iv);
    g_sink += out[0].value;
  }
}

template <class CS>
void poseidon_batch(CS& cs, std::size_t arity, std::size_t n, std::uint64_t seed) {
  const auto& c = poseidon_constants(arity);
  std::vector<AllocatedNum> pre(arity);
  for (std::size_t i = 0; i < arity; ++i) pre[i] = alloc_num(cs, Fr::from_u64(splitmix(seed)));
  for (std::size_t k = 0; k < n; ++k) {
    AllocatedNum h = poseidon_hash_circuit(cs, pre, c);
    pre[k % arity] = h;  // chain so nothing is hoisted
  }
  g_sink += pre[0].value.mont_raw()[0];
}

struct Row {
  std::string what;
  double witness, count, shape, native;
};

}  // namespace

int main(int argc, char** argv) {
  bench::Cli cli("bench_witness",
                 "witness-generation speed of SHA-256 and Poseidon gadgets per constraint-system mode, one thread",
                 bench::Format::kMarkdown);
  cli.option("--seconds", g_seconds, "S", "minimum CPU seconds per cell")
      .choice("--only", g_only, {"sha", "poseidon"}, "run one group only")
      .choice("--mode", g_mode, {"witness", "counting", "shape", "native"}, "run one column only (for profiling)");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  std::vector<Row> rows;
  if (g_only.empty() || g_only == "sha") {
    const std::size_t n = 64;
    Row r{"SHA-256 compression (512 alloc. bits)", 0, 0, 0, 0};
    CountingCS sizes;  // what a recorded shape tells the engine: pre-size the witness storage
    sha_batch(sizes, n, 1);
    if (want("witness"))
      r.witness = rate(n, [&] {
        WitnessBuilder cs;
        cs.reserve(sizes.num_inputs(), sizes.num_aux(), sizes.num_aux() - sizes.num_binary_aux());
        sha_batch(cs, n, 1);
        g_sink += cs.num_aux();
      });
    if (want("counting"))
      r.count = rate(n, [&] {
        CountingCS cs;
        sha_batch(cs, n, 1);
        g_sink += cs.num_aux();
      });
    if (want("shape"))
      r.shape = rate(8, [&] {
        ShapeRecorder cs;
        sha_batch(cs, 8, 1);
        g_sink += cs.num_constraints();
      });
    std::array<std::uint32_t, 8> st = kSha256Iv;
    std::uint8_t blk[64] = {1, 2, 3};
    if (want("native"))
      r.native = rate(100000, [&] {
        for (int k = 0; k < 100000; ++k) {
          blk[0] = std::uint8_t(k);
          sha256_compress(st, blk);
        }
        g_sink += st[0];
      });
    rows.push_back(r);
  }
  for (std::size_t arity : {2, 8, 11}) {
    if (!g_only.empty() && g_only != "poseidon") break;
    const std::size_t n = 256;
    Row r{"Poseidon arity " + std::to_string(arity) + " (legacy circuit)", 0, 0, 0, 0};
    CountingCS sizes;
    poseidon_batch(sizes, arity, n, 2);
    if (want("witness"))
      r.witness = rate(n, [&] {
        WitnessBuilder cs;
        cs.reserve(sizes.num_inputs(), sizes.num_aux(), sizes.num_aux() - sizes.num_binary_aux());
        poseidon_batch(cs, arity, n, 2);
      });
    if (want("counting"))
      r.count = rate(n, [&] {
        CountingCS cs;
        poseidon_batch(cs, arity, n, 2);
      });
    if (want("shape"))
      r.shape = rate(32, [&] {
        ShapeRecorder cs;
        poseidon_batch(cs, arity, 32, 2);
      });
    const auto& c = poseidon_constants(arity);
    std::vector<Fr> pre(arity, Fr::from_u64(7));
    if (want("native"))
      r.native = rate(1000, [&] {
        for (int k = 0; k < 1000; ++k) pre[std::size_t(k) % arity] = poseidon_hash(c, pre);
        g_sink += pre[0].mont_raw()[0];
      });
    rows.push_back(r);
  }
  bench::note(cli.format(), "bench_witness: one thread, ops per CPU-second (higher is better); min %.1f s per cell",
              g_seconds);
  bench::Table table(cli.format(), "",
                     {{"operation", 0, 'f', 38, true},
                      {"witness", 0, 'f', 12},
                      {"counting", 0, 'f', 12},
                      {"shape rec.", 0, 'f', 12},
                      {"native", 0, 'f', 12},
                      {"wit/shape (x)", 1}});
  for (const auto& r : rows) table.row({r.what, r.witness, r.count, r.shape, r.native, r.witness / r.shape});
  return g_sink == 42 ? 1 : 0;
}
