// porep_prepare_bench: the host-side critical path of one PoRep C2 proof before its first partition
// is synthesized (issue 27: an isolated 32 GiB proof spent 2.6-3.4 s in prepare on the H200), stage
// by stage, on a real C1 (`cuzk gen-c1` output or Curio's), best of --reps runs, wall and process CPU:
//   parse_c1_any            the C1 bytes -> model (Curio wrapper, JSON or bincode, auto-detected)
//   check_c1_shape          every count, domain and index rule
//   graph                   the sector's DRG / expander graph (parents on demand)
//   check_vanilla_proofs    every Merkle path, column and label of every partition (--threads)
//   public inputs           partition_public_inputs for every partition
//   PorepJob::prepare       all of the above, as the engine's preparer runs it
//
//   porep_prepare_bench --c1 FILE [--reps 3] [--threads N] [--format text|md|csv|json]
// Results: bench/RESULTS_daemon.md ("Isolated latency").
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/parallel.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "filecoin/porep/vanilla_check.hpp"
#include "harness.hpp"

namespace {

using namespace cuzk::filecoin::porep;
namespace bench = cuzk::bench;

template <class F>
bench::Timing best_ms(int reps, F&& f) {
  return bench::measure(bench::Repeat::best_of(reps, bench::CpuClock::kProcess), f);
}

using bench::must;

}  // namespace

int main(int argc, char** argv) {
  std::string c1_path;
  int reps = 3, threads = 0;
  bench::Cli cli("porep_prepare_bench", "PoRep C2 prepare stages on a real C1", bench::Format::kMarkdown);
  cli.option("--c1", c1_path, "FILE", "a C1 (Curio wrapper, JSON or bincode)")
      .option("--reps", reps, "N", "runs per stage (best kept)", 1, 100)
      .option("--threads", threads, "N", "worker threads (0: all cores)", 0, 1024);
  if (!cli.parse(argc, argv)) return cli.exit_code();
  if (c1_path.empty()) {
    std::fprintf(stderr, "porep_prepare_bench: --c1 FILE is required\n");
    return 2;
  }
  if (threads) cuzk::set_default_threads(std::size_t(threads));
  std::ifstream in(c1_path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    std::fprintf(stderr, "porep_prepare_bench: %s: empty or unreadable\n", c1_path.c_str());
    return 2;
  }
  const bench::Format fmt = cli.format();
  auto loaded = parse_c1_any(bytes);
  must(loaded, "parse_c1_any");
  auto config = config_of(loaded->c1);
  must(config, "config_of");
  const PorepConfig& cfg = **config;
  bench::note(fmt, "%s, %zu partitions x %zu challenges; C1 %.1f MB; %zu threads; best of %d", cfg.name.c_str(),
              cfg.partitions, cfg.challenges_per_partition, bytes.size() / 1e6, cuzk::default_threads(), reps);
  bench::Table table(fmt, "", {{"stage", 0, 'f', 22, true}, {"wall ms", 1, 'f', 8}, {"CPU ms", 1, 'f', 8}});
  auto row = [&](const char* what, const bench::Timing& t) { table.row({what, t.best_ms, t.best_cpu_ms}); };

  row("parse_c1_any", best_ms(reps, [&] { must(parse_c1_any(bytes), "parse_c1_any"); }));
  row("check_c1_shape", best_ms(reps, [&] { must(check_c1_shape(loaded->c1, cfg), "check_c1_shape"); }));
  row("graph", best_ms(reps, [&] { const Graph g(cfg); }));
  const Graph graph(cfg);
  row("check_vanilla_proofs", best_ms(reps, [&] { must(check_vanilla_proofs(loaded->c1, cfg, graph), "check"); }));
  const SectorPublic sector{loaded->c1.replica_id, loaded->c1.comm_d, loaded->c1.comm_r, loaded->c1.seed};
  row("public inputs", best_ms(reps, [&] {
        for (std::size_t p = 0; p < cfg.partitions; ++p) (void)partition_public_inputs(cfg, graph, sector, p);
      }));
  row("PorepJob::prepare", best_ms(reps, [&] { must(PorepJob::prepare(bytes, 0, {}), "PorepJob::prepare"); }));
  return 0;
}
