// PoRep witness-synthesis benchmark (a program, not a test). For 2 KiB and 8 MiB sectors sealed by
// the SDR code and a SYNTHETIC TEST DATA 32 GiB C1 (testkit::synthetic_c1; 64 GiB with --with-64g):
//   * time to seal + commit phase 1 (or to generate the synthetic C1);
//   * porep::check_c1 (shape + every vanilla check, all partitions);
//   * per partition: porep::partition_values + circuit::build_witness of synthesize_stacked_circuit
//     (wall mean and max over the partitions run, and thread CPU time), aux count, binary
//     fraction, the compact Witness's memory (binary aux as bits + non-binary values as Fr) and,
//     for comparison, the dense Fr assignment the Groth16 backend seam takes;
//   * memory: the high-water mark while one partition is synthesized, above the resident set before
//     it (VmHWM after resetting it through /proc/self/clear_refs), and the case's peak RSS (getrusage).
// Each case runs in its own forked process, so each peak RSS is that case's own.
//   porep_synth_bench [--with-64g] [--partitions N] [--checking] [--format text|md|csv|json]
// --checking also runs circuit::CheckingCS over one partition of each case (every row evaluated;
// slow and memory-hungry at 32 GiB: every aux value as Fr plus the row evaluation).
// Results: bench/RESULTS_circuit.md.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/parallel.hpp"
#include "circuit/constraint_system.hpp"
#include "filecoin/porep/c1_values.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/testkit/seal.hpp"
#include "filecoin/testkit/synthetic_c1.hpp"
#include "filecoin/testkit/vanilla.hpp"
#include "harness.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;
namespace bench = cuzk::bench;

// CPU time of the calling thread (synthesis is single-threaded), independent of the VM's load.
double thread_cpu_ms() { return bench::cpu_ms(bench::CpuClock::kThread); }
double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// VmRSS / VmHWM of this process in bytes.
double proc_status_bytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::stod(line.substr(n + 1)) * 1024.0;
  return 0;
}
// Resets VmHWM to the current RSS (Linux >= 4.0); false when not permitted.
bool reset_hwm() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.close();
  return bool(out);
}
double peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) * 1024.0;
}

struct Case {
  const char* proof;
  bool synthetic;
};

struct Options {
  std::size_t max_partitions = 1000;
  bool checking = false;
};

porep::C1Output make_c1(const porep::PorepConfig& cfg, bool synthetic) {
  if (synthetic) {
    testkit::SyntheticC1Options o;
    o.prover_id = porep::prover_id_from_actor(1000);
    o.sector_id = 1;
    o.ticket.fill(0x11);
    o.seed.fill(0x22);
    o.rng_seed = 1;
    return testkit::synthetic_c1(cfg, o);
  }
  testkit::SealInputs in;
  in.prover_id = porep::prover_id_from_actor(1000);
  in.sector_id = 1;
  in.ticket.fill(0x11);
  in.ticket[31] = 0;
  in.seed.fill(0x22);
  in.data = testkit::random_unpadded_data(cfg, 1);
  return testkit::seal_commit_phase1(cfg, in);
}

int run_case(const Case& k, const Options& opt, bench::Table& table) {
  const auto& cfg = porep::porep_config_by_name(k.proof);
  bench::Stopwatch sw;
  const porep::C1Output c1 = make_c1(cfg, k.synthetic);
  const double gen_s = sw.s();
  sw.reset();
  if (auto st = porep::check_c1(c1, cfg); !st) {
    std::fprintf(stderr, "%s: check_c1 failed: %s\n", k.proof, st.error().c_str());
    return 1;
  }
  const double check_s = sw.s();

  const auto params = porep::StackedCircuitParams::from_config(cfg);
  const std::size_t parts = std::min(cfg.partitions, opt.max_partitions);
  double sum_ms = 0, max_ms = 0, cpu_ms = 0, inflight = 0;
  std::uint64_t aux = 0, binary = 0, vars = 0;
  double wit_bits = 0, wit_values = 0;
  bool hwm_ok = true;
  for (std::size_t p = 0; p < parts; ++p) {
    malloc_trim(0);  // hand freed heap back, so that what synthesis touches shows up as new RSS
    hwm_ok = reset_hwm() && hwm_ok;
    const double base = proc_status_bytes("VmRSS:");
    sw.reset();
    const double c0 = thread_cpu_ms();
    auto values = porep::partition_values(c1, cfg, p);
    if (!values) {
      std::fprintf(stderr, "%s: partition %zu: %s\n", k.proof, p, values.error().c_str());
      return 1;
    }
    circuit::Witness w =
        circuit::build_witness([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, *values); });
    const double ms = sw.ms();
    cpu_ms += thread_cpu_ms() - c0;
    inflight = std::max(inflight, proc_status_bytes("VmHWM:") - base);
    sum_ms += ms;
    max_ms = std::max(max_ms, ms);
    aux = w.num_aux;
    binary = w.num_binary();
    vars = w.num_variables();
    wit_bits = double(w.is_binary.size() + w.bits.size()) * 8;
    wit_values = double(w.values.size() + w.inputs.size()) * 32;
  }

  std::string checking = "-";
  if (opt.checking) {
    auto values = porep::partition_values(c1, cfg, 0);
    sw.reset();
    circuit::CheckingCS cs;
    porep::synthesize_stacked_circuit(cs, params, *values);
    checking = bench::strf("%.1f s, %s", sw.s(), cs.is_satisfied() ? "satisfied" : "UNSATISFIED");
  }

  // "?" after the ΔRSS: VmHWM could not be reset, so the figure is the process's high-water mark.
  table.row({cfg.name, k.synthetic ? "synthetic" : "sealed", gen_s, check_s, parts, sum_ms / double(parts), max_ms,
             cpu_ms / double(parts), static_cast<unsigned long long>(aux), 100.0 * double(binary) / double(aux),
             mib(wit_bits), mib(wit_values), mib(double(vars) * 32),
             hwm_ok ? bench::Cell(mib(inflight)) : bench::Cell(bench::strf("%.0f?", mib(inflight))),
             mib(peak_rss_bytes()), checking});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  bool with_64g = false;
  bench::Cli cli("porep_synth_bench",
                 "PoRep C1 check and per-partition witness synthesis: 2 KiB / 8 MiB sealed, 32 GiB synthetic",
                 bench::Format::kMarkdown);
  cli.flag("--with-64g", with_64g, "also a synthetic 64 GiB C1")
      .option("--partitions", opt.max_partitions, "N", "partitions per case at most", 1, 1e9)
      .flag("--checking", opt.checking, "also CheckingCS over partition 0 (slow at 32 GiB)");
  if (!cli.parse(argc, argv)) return cli.exit_code();
  std::vector<Case> cases = {
      {"StackedDrg2KiBV1_1", false}, {"StackedDrg8MiBV1_1", false}, {"StackedDrg32GiBV1_1", true}};
  if (with_64g) cases.push_back({"StackedDrg64GiBV1_1", true});

  bench::note(cli.format(),
              "PoRep witness synthesis (threads: %zu; synthesis itself is single-threaded). Synthetic C1s are "
              "SYNTHETIC TEST DATA (testkit::synthetic_c1).",
              default_threads());
  bench::Table table(cli.format(), "",
                     {{"registered proof", 0, 'f', 20, true},
                      {"C1", 0, 'f', 9, true},
                      {"C1 gen s", 2},
                      {"check s", 2},
                      {"parts", 0},
                      {"synth ms mean", 0},
                      {"synth ms max", 0},
                      {"CPU ms", 0},
                      {"aux", 0, 'f', 11},
                      {"binary %", 2},
                      {"witness MiB bits", 1},
                      {"witness MiB Fr", 1},
                      {"dense w MiB", 0},
                      {"synth ΔRSS MiB", 0},
                      {"peak RSS MiB", 0},
                      {"CheckingCS", 0, 'f', 0, true}});
  table.header();  // before the forks: each case's process prints its own row
  int rc = 0;
  for (const Case& k : cases) {
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) _exit(run_case(k, opt, table));
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "%s: case failed (status %d)\n", k.proof, status);
      rc = 1;
    }
  }
  return rc;
}
