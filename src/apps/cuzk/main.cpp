// cuzk: the offline tool (one cmd_*.cpp per subcommand) and, for the Rust daemon's command lines,
// the proving daemon. Curio installs the Rust daemon as /usr/local/bin/cuzk and documents
// `cuzk`, `cuzk --config FILE`, `cuzk --listen ADDR` and `cuzk --log-level L`: with no subcommand,
// or when the first argument is a daemon flag, or with the subcommand `daemon`, this binary runs
// the daemon (apps/cuzk-daemon/daemon.hpp) — so a unit written for the Rust daemon works unchanged.
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string_view>

#include "apps/common/cli_parse.hpp"
#include "apps/common/cpu_tuning.hpp"
#include "apps/cuzk-daemon/daemon.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/environment.hpp"

namespace cuzk::cli {
int fail(const std::string& cmd, const std::string& message) {
  std::cerr << "cuzk " << cmd << ": " << message << "\n";
  return kExitError;
}
}  // namespace cuzk::cli

namespace {

// The Rust daemon's flags (and ours): a command line that starts with one of them is the daemon's.
bool is_daemon_flag(std::string_view a) {
  for (std::string_view f : {"-c", "--config", "-l", "--listen", "--log-level", "--status-listen", "--check-config"}) {
    if (a == f || (a.size() > f.size() && a.substr(0, f.size()) == f && a[f.size()] == '=')) return true;
  }
  return a.size() > 2 && (a.substr(0, 2) == "-c" || a.substr(0, 2) == "-l") && a[1] != '-';  // -cFILE, -lADDR
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 1 || is_daemon_flag(argv[1])) return cuzk::apps::run_daemon_guarded(argc, argv, "cuzk");
  if (std::strcmp(argv[1], "daemon") == 0) {
    argv[1] = argv[0];
    return cuzk::apps::run_daemon_guarded(argc - 1, argv + 1, "cuzk daemon");
  }
  // A write past a file-size limit (ulimit -f) fails with EFBIG and is reported by the command that
  // writes (one line, exit 2) instead of killing the tool with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  // The math layers' tuning (CUZK_THREADS, CUZK_NO_IFMA, CUZK_NTT_IFMA): read once, here.
  auto tuning = cuzk::apps::cpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!tuning) {
    std::cerr << "cuzk: " << tuning.error() << "\n";
    return cuzk::cli::kExitError;
  }
  cuzk::apps::apply(*tuning);
  // The environment the filecoin libraries honour (FIL_PROOFS_PARAMETER_CACHE, CUZK_SHAPE_CACHE): read once,
  // here, and handed to them as plain values.
  auto env = cuzk::cli::read_environment();
  if (!env) {
    std::cerr << "cuzk: " << env.error() << "\n";
    return cuzk::cli::kExitError;
  }
  cuzk::cli::set_environment(std::move(*env));
  CLI::App app{"cuzk: Groth16 proving engine for Filecoin (BLS12-381)", "cuzk"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cuzk " CUZK_VERSION_STRING);
  app.footer(
      "The proving daemon: cuzk [--config FILE] [-l ADDR]... [--log-level L] (the Rust daemon's command line),\n"
      "cuzk daemon [...] or cuzk-daemon [...]; `cuzk daemon --help` lists its flags.");
  int exit_code = cuzk::cli::kExitOk;
  cuzk::cli::register_prove(app, exit_code);
  cuzk::cli::register_verify(app, exit_code);
  cuzk::cli::register_setup(app, exit_code);
  cuzk::cli::register_params(app, exit_code);
  cuzk::cli::register_inspect(app, exit_code);
  cuzk::cli::register_porep(app, exit_code);
  cuzk::cli::register_porep_c2(app, exit_code);
  cuzk::cli::register_seal(app, exit_code);
  cuzk::cli::register_gen_c1(app, exit_code);
  cuzk::cli::register_post(app, exit_code);
  cuzk::cli::register_gen_vanilla(app, exit_code);
  cuzk::cli::register_post_prove(app, exit_code);
  cuzk::cli::register_snap_encode(app, exit_code);
  cuzk::cli::register_snap(app, exit_code);
  cuzk::cli::register_snap_prove(app, exit_code);
  if (auto rc = cuzk::apps::parse_command_line(app, argc, argv, "cuzk")) return *rc;
  return exit_code;
}
