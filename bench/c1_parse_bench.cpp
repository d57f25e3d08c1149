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
//   c1_parse_bench [--size 32GiB|64GiB|2KiB|...] [--reps 3] [--dir DIR]
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/porep/config.hpp"

namespace {

using namespace cuzk::filecoin::porep;
using Clock = std::chrono::steady_clock;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Timing {
  double wall_ms, cpu_ms;
};

// Best wall time and best thread CPU time over `reps` runs (the machine may be shared: CPU time is
// the per-core cost; it includes the kernel's page-fault work).
template <class F>
Timing best_ms(int reps, F&& f) {
  Timing best{1e300, 1e300};
  for (int i = 0; i < reps; ++i) {
    const double c0 = thread_cpu_ms();
    const auto t0 = Clock::now();
    f();
    best.wall_ms = std::min(best.wall_ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    best.cpu_ms = std::min(best.cpu_ms, thread_cpu_ms() - c0);
  }
  return best;
}

void row(const char* what, std::size_t bytes, Timing t) {
  const double mb = double(bytes) / 1e6;
  std::printf("| %-22s | %8.1f | %8.1f | %8.1f | %8.0f |\n", what, mb, t.wall_ms, t.cpu_ms, mb / (t.cpu_ms / 1e3));
}

template <class R>
void must(const R& r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, r.error().c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string size = "32GiB";
  int reps = 3;
  std::string dir = "/tmp";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc) size = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else {
      std::fprintf(stderr, "usage: c1_parse_bench [--size 32GiB] [--reps 3] [--dir DIR]\n");
      return 2;
    }
  }
  const PorepConfig& cfg = porep_config_by_name("StackedDrg" + size + "V1_1");

  auto t0 = Clock::now();
  const C1Output c1 = random_c1_for_tests(cfg, 2024);
  const double gen_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
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

  std::printf("%s: %zu partitions x %zu challenges, %zu layers; generated in %.0f ms\n", cfg.name.c_str(),
              c1.vanilla_proofs.size(), c1.vanilla_proofs[0].size(), cfg.layers, gen_ms);
  std::printf("C1 JSON %.1f MB, bincode %.1f MB, Curio wrapper %.1f MB; best of %d, one thread\n\n", json.size() / 1e6,
              bin.size() / 1e6, curio.size() / 1e6, reps);
  std::printf("| operation              |       MB |  wall ms |   CPU ms | MB/CPU-s |\n");
  std::printf("|------------------------|---------:|---------:|---------:|---------:|\n");

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
