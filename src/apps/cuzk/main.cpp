#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "apps/common/cpu_tuning.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/environment.hpp"

namespace cuzk::cli {
int fail(const std::string& cmd, const std::string& message) {
  std::cerr << "cuzk " << cmd << ": " << message << "\n";
  return kExitError;
}
}  // namespace cuzk::cli

int main(int argc, char** argv) {
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
  CLI::App app{"cuzk: Groth16 proving engine for Filecoin (BLS12-381)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cuzk 0.1.0");
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors get the same one-line form as every other error.
    std::cerr << "cuzk: " << e.what() << " (see --help)\n";
    return cuzk::cli::kExitError;
  }
  return exit_code;
}
