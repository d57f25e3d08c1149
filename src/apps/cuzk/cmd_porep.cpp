// `cuzk porep stats --registered-proof NAME|ID`: synthesizes one partition of the PoRep
// StackedCircuit in counting mode and prints
//   rows=N inputs=N aux=N domain=2^k
// rows = circuit constraints BEFORE bellperson's input rows (TestConstraintSystem's count);
// inputs = public inputs including ONE (each adds one input row to the Groth16 R1CS);
// domain = smallest power of two >= rows + inputs (bellperson's evaluation domain).
// `cuzk porep list` prints the registered PoRep proofs (id, name, partitions, challenges).
// `cuzk porep inputs --registered-proof NAME --prover-id HEX|--miner-id N --sector-id N --ticket HEX
//   --seed HEX --comm-d HEX --comm-r HEX` prints every partition's public inputs (decimal, one a line,
//   ONE excluded, a "# partition k" line before each partition) — what verify_seal checks a proof against.
#include <bit>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <optional>
#include <string>

#include "apps/cuzk/commands.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/ids.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::cli {
namespace porep = filecoin::porep;

namespace {

const porep::PorepConfig& lookup(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 9)
    return porep::porep_config_by_id(std::uint32_t(std::stoul(s)));
  return porep::porep_config_by_name(s);
}

struct InputsArgs {
  std::string proof, prover_id, ticket, seed, comm_d, comm_r;
  std::optional<std::uint64_t> miner_id;
  std::uint64_t sector_id = 0;
};

int run_inputs(const InputsArgs& a) {
  const std::string cmd = "porep inputs";
  const porep::PorepConfig* cfg = nullptr;
  try {
    cfg = &lookup(a.proof);
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
  porep::Bytes32 prover_id{}, ticket{}, seed{}, comm_d{}, comm_r{};
  struct Field {
    const char* name;
    const std::string& hex;
    porep::Bytes32& out;
  };
  if (a.miner_id && !a.prover_id.empty()) return fail(cmd, "give --prover-id or --miner-id, not both");
  if (!a.miner_id && a.prover_id.empty()) return fail(cmd, "give --prover-id HEX or --miner-id N");
  if (a.miner_id) prover_id = porep::prover_id_from_actor(*a.miner_id);
  for (const Field& f :
       {Field{"--prover-id", a.prover_id, prover_id}, Field{"--ticket", a.ticket, ticket},
        Field{"--seed", a.seed, seed}, Field{"--comm-d", a.comm_d, comm_d}, Field{"--comm-r", a.comm_r, comm_r}}) {
    if (f.hex.empty()) continue;
    auto b = filecoin::bytes32_from_hex(f.hex);
    if (!b) return fail(cmd, std::string(f.name) + ": " + b.error());
    f.out = *b;
  }
  for (const auto* f : {&comm_d, &comm_r})
    if (!math::Fr::from_bytes_le(*f))
      return fail(cmd, std::string(f == &comm_d ? "--comm-d" : "--comm-r") + ": not a field element (value >= r)");
  filecoin::porep::SectorPublic sector;
  sector.replica_id = porep::replica_id(prover_id, a.sector_id, ticket, comm_d, porep::porep_id(*cfg));
  sector.comm_d = comm_d;
  sector.comm_r = comm_r;
  sector.seed = seed;
  porep::Graph graph(*cfg);
  for (std::size_t k = 0; k < cfg->partitions; ++k) {
    std::printf("# partition %zu\n", k);
    for (const auto& x : filecoin::porep::partition_public_inputs(*cfg, graph, sector, k)) {
      std::uint8_t le[32];
      x.to_bytes_le(le);
      std::printf("%s\n", formats::le_bytes_to_decimal(le).c_str());
    }
  }
  return kExitOk;
}

}  // namespace

void register_porep(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("porep", "PoRep (StackedDrg) circuit: registered proofs and constraint counts");
  cmd->require_subcommand(1);

  auto* list =
      cmd->add_subcommand("list", "Print the registered PoRep proofs: id, name, partitions, challenges/partition");
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
  auto in = std::make_shared<InputsArgs>();
  auto* inputs =
      cmd->add_subcommand("inputs", "Print each partition's public inputs (decimal, one a line, ONE excluded)");
  inputs->add_option("--registered-proof", in->proof, "registered proof name or id 0-19")->required();
  inputs->add_option("--prover-id", in->prover_id, "prover id, 32 bytes hex");
  inputs->add_option("--miner-id", in->miner_id, "miner actor id (prover id = its LEB128 varint, zero padded)");
  inputs->add_option("--sector-id", in->sector_id, "sector number")->required();
  inputs->add_option("--ticket", in->ticket, "sealing randomness, 32 bytes hex")->required();
  inputs->add_option("--seed", in->seed, "interactive randomness, 32 bytes hex")->required();
  inputs->add_option("--comm-d", in->comm_d, "comm_d, 32 bytes hex")->required();
  inputs->add_option("--comm-r", in->comm_r, "comm_r, 32 bytes hex")->required();
  inputs->callback([in, &exit_code] { exit_code = run_inputs(*in); });

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
