// PoRep partition shape benchmark (a program, not a test): records the R1CS shape of one partition
// of each named registered proof (c2::record_porep_shape) in its own forked process and prints wall
// time, process CPU time (all threads), peak RSS (getrusage), the shape's host bytes
// (CsrMatrix::memory_bytes) and the shape_io file size; optionally saves the shape_io file and
// times loading it back.
//   shape_record_bench [--save DIR] [--check-32g] NAME...      (e.g. StackedDrg2KiBV1_1)
// With --save, also load_or_record_porep_shape on the saved file (the daemon's cached path: load +
// validation against the circuit's counts).
// --check-32g asserts the published StackedDrg32GiBV1_1 counts (filecoin-formats.md §2.2) and exits
// non-zero when any differs. Results: bench/RESULTS_circuit.md.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/shape_io.hpp"
#include "filecoin/c2/porep_shape.hpp"
#include "filecoin/porep/config.hpp"

namespace {

using namespace cuzk;
using Clock = std::chrono::steady_clock;

double secs(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
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
      std::printf("MISMATCH %s: got %llu, expected %llu\n", what, (unsigned long long)got, (unsigned long long)want);
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

int run_case(const std::string& name, const std::string& save_dir, bool check) {
  const auto& config = filecoin::porep::porep_config_by_name(name);
  const auto t0 = Clock::now();
  const double c0 = process_cpu_s();
  groth16::R1csShape shape = filecoin::c2::record_porep_shape(config);
  const double wall = secs(t0), cpu = process_cpu_s() - c0, rss = peak_rss_mib();
  const std::size_t bytes = shape.a.memory_bytes() + shape.b.memory_bytes() + shape.c.memory_bytes();
  std::printf("%-22s record: wall %.2f s, CPU %.2f s, peak RSS %.0f MiB | rows %zu, nnz %zu/%zu/%zu, shape %.1f MiB (%.2f B/nnz)\n",
              name.c_str(), wall, cpu, rss, shape.num_constraints(), shape.a.nnz(), shape.b.nnz(), shape.c.nnz(),
              double(bytes) / (1 << 20), double(bytes) / double(shape.a.nnz() + shape.b.nnz() + shape.c.nnz()));
  std::fflush(stdout);
  int bad = check ? check_32g(shape) : 0;
  if (check) std::printf("%-22s known counts: %s\n", name.c_str(), bad ? "MISMATCH" : "all equal");
  if (!save_dir.empty()) {
    const std::string path = save_dir + "/" + name + ".shape";
    auto t1 = Clock::now();
    if (auto st = circuit::save_shape(shape, path); !st) {
      std::printf("save failed: %s\n", st.error().c_str());
      return 1;
    }
    const double save_s = secs(t1);
    shape = {};
    t1 = Clock::now();
    auto loaded = circuit::load_shape(path);
    if (!loaded) {
      std::printf("load failed: %s\n", loaded.error().c_str());
      return 1;
    }
    const double load_s = secs(t1);
    std::printf("%-22s saved %s (%.1f MiB) in %.2f s, loaded in %.2f s, peak RSS now %.0f MiB\n", name.c_str(), path.c_str(),
                double(std::filesystem::file_size(path)) / (1 << 20), save_s, load_s, peak_rss_mib());
    loaded = Error{"released"};
    // The daemon's path: the cache validated against the circuit's counts (a CountingCS pass).
    auto cached = filecoin::c2::load_or_record_porep_shape(config, path);
    std::printf("%-22s load_or_record_porep_shape: %s in %.2f s%s%s\n", name.c_str(), filecoin::c2::to_string(cached.source),
                cached.load_s + cached.record_s + cached.save_s, cached.note.empty() ? "" : ": ", cached.note.c_str());
  }
  return bad ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string save_dir;
  bool check = false;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--save" && i + 1 < argc) save_dir = argv[++i];
    else if (a == "--check-32g") check = true;
    else names.push_back(a);
  }
  if (names.empty()) {
    std::fprintf(stderr, "usage: shape_record_bench [--save DIR] [--check-32g] NAME...\n");
    return 2;
  }
  int rc = 0;
  for (const auto& name : names) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      const int code = run_case(name, save_dir, check && name == "StackedDrg32GiBV1_1");
      std::fflush(stdout);
      _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
  }
  return rc;
}
