// PoRep partition shape benchmark (a program, not a test): records the R1CS shape of one partition
// of each named registered proof (porep::record_porep_shape) in its own forked process and prints wall
// time, process CPU time (all threads), peak RSS (getrusage), the shape's host bytes
// (CsrMatrix::memory_bytes) and the shape_io file size; optionally saves the shape_io file and
// times loading it back.
//   shape_record_bench [--save DIR] [--check-32g] [--format text|md|csv|json] NAME...
//   (NAME e.g. StackedDrg2KiBV1_1; one table row per NAME)
// With --save, also load_or_record_porep_shape on the saved file (the daemon's cached path: load +
// validation against the circuit's counts).
// --check-32g asserts the published StackedDrg32GiBV1_1 counts (filecoin-formats.md §2.2) and exits
// non-zero when any differs. Results: bench/RESULTS_circuit.md.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/shape_io.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/config.hpp"
#include "harness.hpp"

namespace {

using namespace cuzk;
namespace bench = cuzk::bench;

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}
double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

// The published 32 GiB partition counts; returns the number of mismatches (each printed).
int check_32g(const groth16::R1csShape& s) {
  int bad = 0;
  auto expect = [&](const char* what, std::uint64_t got, std::uint64_t want) {
    if (got != want) {
      std::fprintf(stderr, "MISMATCH %s: got %llu, expected %llu\n", what, (unsigned long long)got,
                   (unsigned long long)want);
      ++bad;
    }
  };
  expect("inputs", s.num_inputs, 328);
  expect("aux", s.num_aux, 130'169'893);
  expect("rows", s.num_constraints(), 130'278'869);
  expect("nnz A", s.a.nnz(), 309'405'051);
  expect("nnz B", s.b.nnz(), 130'327'340);
  expect("nnz C", s.c.nnz(), 282'656'500);
  const auto d = circuit::compute_densities(s);
  expect("a_aux density", d.a_aux_count, 129'753'292);
  expect("b_input density", d.b_input_count, 1);
  expect("b_aux density", d.b_aux_count, 33'112'281);
  return bad;
}

int run_case(const std::string& name, const std::string& save_dir, bool check, bench::Table& table) {
  const auto& config = filecoin::porep::porep_config_by_name(name);
  bench::Stopwatch sw;
  const double c0 = process_cpu_s();
  groth16::R1csShape shape = filecoin::porep::record_porep_shape(config);
  const double wall = sw.s(), cpu = process_cpu_s() - c0, rss = peak_rss_mib();
  const std::size_t bytes = shape.a.memory_bytes() + shape.b.memory_bytes() + shape.c.memory_bytes();
  const std::size_t nnz = shape.a.nnz() + shape.b.nnz() + shape.c.nnz();
  std::vector<bench::Cell> cells = {name,
                                    wall,
                                    cpu,
                                    rss,
                                    shape.num_constraints(),
                                    shape.a.nnz(),
                                    shape.b.nnz(),
                                    shape.c.nnz(),
                                    double(bytes) / (1 << 20),
                                    double(bytes) / double(nnz)};
  const int bad = check ? check_32g(shape) : 0;
  cells.push_back(check ? (bad ? "MISMATCH" : "all equal") : "-");
  if (!save_dir.empty()) {
    const std::string path = save_dir + "/" + name + ".shape";
    sw.reset();
    if (auto st = circuit::save_shape(shape, path); !st) {
      std::fprintf(stderr, "%s: save failed: %s\n", name.c_str(), st.error().c_str());
      return 1;
    }
    const double save_s = sw.s();
    shape = {};
    sw.reset();
    auto loaded = circuit::load_shape(path);
    if (!loaded) {
      std::fprintf(stderr, "%s: load failed: %s\n", name.c_str(), loaded.error().c_str());
      return 1;
    }
    const double load_s = sw.s();
    cells.insert(cells.end(), {double(std::filesystem::file_size(path)) / (1 << 20), save_s, load_s, peak_rss_mib()});
    loaded = Error{"released"};
    // The daemon's path: the cache validated against the circuit's counts (a CountingCS pass).
    auto cached = filecoin::porep::load_or_record_porep_shape(config, path);
    cells.push_back(filecoin::to_string(cached.source));
    cells.push_back(cached.load_s + cached.record_s + cached.save_s);
    if (!cached.note.empty())
      bench::note(table.format(), "%s: load_or_record_porep_shape: %s", name.c_str(), cached.note.c_str());
    bench::note(table.format(), "%s: saved %s", name.c_str(), path.c_str());
  }
  table.row(cells);
  return bad ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string save_dir;
  bool check = false;
  std::vector<std::string> names;
  bench::Cli cli("shape_record_bench",
                 "records one partition's R1CS shape per registered proof, each in its own process");
  cli.option("--save", save_dir, "DIR", "also save the shape_io file there and time loading it back")
      .flag("--check-32g", check,
            "assert the published StackedDrg32GiBV1_1 counts (exit status non-zero on a mismatch)")
      .positional("NAME...", names, "registered proofs, e.g. StackedDrg2KiBV1_1", true);
  if (!cli.parse(argc, argv)) return cli.exit_code();
  std::vector<bench::Column> cols = {{"registered proof", 0, 'f', 22, true},
                                     {"record wall s", 2},
                                     {"record CPU s", 2},
                                     {"peak RSS MiB", 0},
                                     {"rows", 0},
                                     {"nnz A", 0},
                                     {"nnz B", 0},
                                     {"nnz C", 0},
                                     {"shape MiB", 1},
                                     {"B/nnz", 2},
                                     {"known counts", 0, 'f', 0, true}};
  if (!save_dir.empty())
    cols.insert(cols.end(), {{"file MiB", 1},
                             {"save s", 2},
                             {"load s", 2},
                             {"peak RSS after load MiB", 0},
                             {"load_or_record", 0, 'f', 0, true},
                             {"load_or_record s", 2}});
  bench::Table table(cli.format(), "", cols);
  table.header();  // before the forks: each case's process prints its own row
  int rc = 0;
  for (const auto& name : names) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      const int code = run_case(name, save_dir, check && name == "StackedDrg32GiBV1_1", table);
      std::fflush(stdout);
      _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
  }
  return rc;
}
