// `cuzk porep stats --registered-proof NAME|ID`: synthesizes one partition of the PoRep
// StackedCircuit in counting mode and prints
//   rows=N inputs=N aux=N domain=2^k
// rows = circuit constraints BEFORE bellperson's input rows (TestConstraintSystem's count);
// inputs = public inputs including ONE (each adds one input row to the Groth16 R1CS);
// domain = smallest power of two >= rows + inputs (bellperson's evaluation domain).
// `cuzk porep list` prints the registered PoRep proofs (id, name, partitions, challenges).
//
// (Kept as cmd_porep.cpp.in in src/filecoin/porep until the app registers it: copy to
// src/apps/cuzk/cmd_porep.cpp, declare register_porep in commands.hpp, call it in main.cpp and
// link cuzk_filecoin_porep.)
#include <bit>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps/cuzk/commands.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::cli {
namespace porep = filecoin::porep;

namespace {

const porep::PorepConfig& lookup(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 9)
    return porep::porep_config_by_id(std::uint32_t(std::stoul(s)));
  return porep::porep_config_by_name(s);
}

}  // namespace

void register_porep(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("porep", "PoRep (StackedDrg) circuit: registered proofs and constraint counts");
  cmd->require_subcommand(1);

  auto* list = cmd->add_subcommand("list", "Print the registered PoRep proofs: id, name, partitions, challenges/partition");
  list->callback([&exit_code] {
    for (const auto& c : porep::all_porep_configs())
      std::cout << c.id << "\t" << c.name << "\tpartitions=" << c.partitions
                << "\tchallenges=" << c.challenges_per_partition << "\n";
    exit_code = kExitOk;
  });

  struct StatsState {
    std::string proof;
    bool timing = false;
  };
  auto st = std::make_shared<StatsState>();
  auto* stats = cmd->add_subcommand(
      "stats",
      "Count one partition of the StackedCircuit: rows (before input rows), inputs (incl. ONE), aux, Groth16 domain");
  stats->add_option("--registered-proof", st->proof, "registered proof name (e.g. StackedDrg32GiBV1_1) or id 0-19")
      ->required();
  stats->add_flag("--time", st->timing, "also print the synthesis time on stderr");
  stats->callback([st, &exit_code] {
    try {
      const auto& cfg = lookup(st->proof);
      auto params = porep::StackedCircuitParams::from_config(cfg);
      auto values = porep::dummy_partition_values(params);
      auto t0 = std::chrono::steady_clock::now();
      circuit::CountingCS cs;
      porep::synthesize_stacked_circuit(cs, params, values);
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const unsigned k = unsigned(std::bit_width(cs.num_groth16_rows() - 1));
      std::cout << "rows=" << cs.num_constraints() << " inputs=" << cs.num_inputs() << " aux=" << cs.num_aux()
                << " domain=2^" << k << "\n";
      if (st->timing) std::fprintf(stderr, "cuzk porep stats: %s counted in %.3f s\n", cfg.name.c_str(), secs);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      exit_code = fail("porep", e.what());
    }
  });
}

}  // namespace cuzk::cli
