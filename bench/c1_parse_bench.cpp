// c1_parse_bench: how fast a 32 GiB-shaped C1 (SealCommitPhase1Output) is read, checked and written
// in each of its forms, on one core.
//
// Builds a C1 of the 32 GiB shape (10 partitions × 18 challenges, 11 layers, Sub proofs 9 × 8 + 1 × 8,
// random canonical values; random_c1_for_tests) and times, best of --reps runs:
//   parse_c1_json          C1 JSON -> model (includes copying the text into a padded buffer)
//   parse_c1_json_padded   same without the copy (what load_c1_file does)
//   check_c1_shape         every count, domain and index rule
//   write_c1_json          model -> serde_json bytes
//   write_c1_bincode / parse_c1_bincode
//   write_curio_c1_json / parse_curio_c1   the Curio wrapper (base64 of the C1 JSON inside JSON)
//   load_c1_file           the Curio wrapper file from the page cache, auto-detected
// MB are of the text/bytes read or written (10^6 bytes).
//
//   c1_parse_bench [--size 32GiB|64GiB|2KiB|...] [--reps 3] [--dir DIR] [--format text|md|csv|json]
// Results: bench/RESULTS_circuit.md.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/testkit/random_c1.hpp"
#include "filecoin/porep/config.hpp"
#include "harness.hpp"

using cuzk::filecoin::testkit::random_c1_for_tests;

namespace {

using namespace cuzk::filecoin::porep;
namespace bench = cuzk::bench;

// Best wall time and best thread CPU time over `reps` runs (the machine may be shared: CPU time is
// the per-core cost; it includes the kernel's page-fault work).
template <class F>
bench::Timing best_ms(int reps, F&& f) {
  return bench::measure(bench::Repeat::best_of(reps, bench::CpuClock::kThread), f);
}

using bench::must;

}  // namespace

int main(int argc, char** argv) {
  std::string size = "32GiB";
  int reps = 3;
  std::string dir = "/tmp";
  bench::Cli cli("c1_parse_bench", "C1 (SealCommitPhase1Output) read/check/write speed in each form, one thread",
                 bench::Format::kMarkdown);
  cli.option("--size", size, "SIZE", "sector size of the registered proof StackedDrg<SIZE>V1_1")
      .option("--reps", reps, "N", "runs per operation (best kept)", 1, 1000)
      .option("--dir", dir, "DIR", "folder for the temporary Curio file");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  const bench::Format fmt = cli.format();
  const PorepConfig& cfg = porep_config_by_name("StackedDrg" + size + "V1_1");

  const bench::Stopwatch gen;
  const C1Output c1 = random_c1_for_tests(cfg, 2024);
  const double gen_ms = gen.ms();
  const std::string json = write_c1_json(c1);
  const auto bin = write_c1_bincode(c1);
  CurioC1 wrapper;
  wrapper.sector_num = 1;
  wrapper.sector_size = cfg.sector_size;
  wrapper.c1 = c1;
  const std::string curio = write_curio_c1_json(wrapper);
  std::string padded = json;
  padded.reserve(json.size() + kC1JsonPadding);
  padded.append(kC1JsonPadding, ' ');
  const std::string_view padded_view(padded.data(), json.size());

  bench::note(fmt, "%s: %zu partitions x %zu challenges, %zu layers; generated in %.0f ms", cfg.name.c_str(),
              c1.vanilla_proofs.size(), c1.vanilla_proofs[0].size(), cfg.layers, gen_ms);
  bench::note(fmt, "C1 JSON %.1f MB, bincode %.1f MB, Curio wrapper %.1f MB; best of %d, one thread", json.size() / 1e6,
              bin.size() / 1e6, curio.size() / 1e6, reps);
  bench::Table table(fmt, "",
                     {{"operation", 0, 'f', 22, true},
                      {"MB", 1, 'f', 8},
                      {"wall ms", 1, 'f', 8},
                      {"CPU ms", 1, 'f', 8},
                      {"MB/CPU-s", 0, 'f', 8}});
  // MB are of the text/bytes read or written; the rate is per CPU-second of the best run by CPU time.
  auto row = [&](const char* what, std::size_t bytes, const bench::Timing& t) {
    const double mb = double(bytes) / 1e6;
    table.row({what, mb, t.best_ms, t.best_cpu_ms, mb / (t.best_cpu_ms / 1e3)});
  };

  row("parse_c1_json", json.size(), best_ms(reps, [&] { must(parse_c1_json(json), "parse_c1_json"); }));
  row("parse_c1_json_padded", json.size(),
      best_ms(reps, [&] { must(parse_c1_json_padded(padded_view), "parse_c1_json_padded"); }));
  row("check_c1_shape", json.size(), best_ms(reps, [&] { must(check_c1_shape(c1, cfg), "check_c1_shape"); }));
  std::string out;
  row("write_c1_json", json.size(), best_ms(reps, [&] { out = write_c1_json(c1); }));
  if (out != json) {
    std::fprintf(stderr, "write_c1_json is not deterministic\n");
    return 1;
  }
  std::vector<std::uint8_t> bout;
  row("write_c1_bincode", bin.size(), best_ms(reps, [&] { bout = write_c1_bincode(c1); }));
  row("parse_c1_bincode", bin.size(), best_ms(reps, [&] { must(parse_c1_bincode(bin, ""), "parse_c1_bincode"); }));
  row("write_curio_c1_json", curio.size(), best_ms(reps, [&] { out = write_curio_c1_json(wrapper); }));
  row("parse_curio_c1", curio.size(), best_ms(reps, [&] { must(parse_curio_c1(curio), "parse_curio_c1"); }));

  const std::string path = dir + "/c1_parse_bench_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(curio.data(), std::streamsize(curio.size()));
  }
  row("load_c1_file (Curio)", curio.size(), best_ms(reps, [&] { must(load_c1_file(path), "load_c1_file"); }));
  std::remove(path.c_str());

  // Parse + check, the path a prover takes.
  row("parse+check (JSON)", json.size(), best_ms(reps, [&] {
        auto r = parse_c1_json_padded(padded_view);
        must(r, "parse");
        must(check_c1_shape(*r, cfg), "check");
      }));
  return 0;
}
