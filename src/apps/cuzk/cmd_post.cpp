// The PoSt circuit and vanilla proofs from the command line (no keys involved):
//   cuzk post list                        the registered PoSt proofs 0–14
//   cuzk post stats --registered-proof NAME
//       rows=N inputs=N aux=N domain=2^k  (as `porep stats`: rows before bellperson's input rows,
//       inputs with ONE; from post::count_post_circuit, one sector block counted and multiplied, so
//       the 32 GiB WindowPoSt partition is instant)
//   cuzk post inputs --registered-proof NAME --miner-id N --randomness HEX --sector ID:COMMR_HEX
//       [--sector …] [--partition K]
//       the partition's public inputs (ONE excluded), one decimal per line: what a proof is verified
//       against (sectors in request order; a short Window partition repeats its last sector)
//   cuzk post check --registered-proof NAME --miner-id N --randomness HEX --vanilla FILE… [--partition K]
//       the vanilla checks (post/vanilla_check.hpp): `OK`, exit 0; a proof that does not check:
//       `INVALID` and the reason on stderr, exit 1; malformed input: one line, exit 2
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/post_common.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/shape.hpp"
#include "filecoin/post/vanilla_check.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::cli {
namespace post = filecoin::post;

namespace {

struct InputsArgs {
  PostOptions post;
  std::vector<std::string> sectors;
};

int run_inputs(const InputsArgs& a) {
  const std::string cmd = "post inputs";
  auto req = parse_post_options(a.post);
  if (!req) return fail(cmd, req.error());
  std::vector<post::PublicSector> sectors;
  for (const std::string& s : a.sectors) {
    const auto colon = s.find(':');
    std::uint64_t id = 0;
    const bool id_ok =
        colon != std::string::npos && colon > 0 && colon <= 20 && s.find_first_not_of("0123456789") == colon;
    if (id_ok) {
      try {
        id = std::stoull(s.substr(0, colon));
      } catch (const std::exception&) {
        return fail(cmd, "--sector " + s + ": the sector id is not a u64");
      }
    }
    if (!id_ok) return fail(cmd, "--sector " + s + ": expected ID:COMMR_HEX (a decimal sector id, 64 hex digits)");
    auto comm_r = filecoin::bytes32_from_hex(s.substr(colon + 1));
    if (!comm_r) return fail(cmd, "--sector " + s + ": comm_r: " + comm_r.error());
    sectors.push_back({id, *comm_r});
  }
  auto inputs = post::partition_public_inputs(*req->config, req->randomness, sectors, req->partition);
  if (!inputs) return fail(cmd, inputs.error());
  std::string out;
  for (const auto& x : *inputs) {
    std::uint8_t le[32];
    x.to_bytes_le(le);
    out += formats::le_bytes_to_decimal(le);
    out += '\n';
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

struct CheckArgs {
  PostOptions post;
  std::vector<std::string> vanilla;
};

int run_check(const CheckArgs& a) {
  const std::string cmd = "post check";
  auto req = parse_post_options(a.post);
  if (!req) return fail(cmd, req.error());
  auto blobs = read_vanilla_files(a.vanilla);
  if (!blobs) return fail(cmd, blobs.error());
  if (auto st = check_sector_count(*req->config, blobs->size()); !st) return fail(cmd, st.error());
  auto proofs = parse_vanilla(*req->config, *blobs);
  if (!proofs) return fail(cmd, proofs.error());
  auto checked = post::check_vanilla_proofs(*req->config, req->randomness, req->partition, *proofs);
  if (!checked) {
    std::printf("INVALID\n");
    std::fprintf(stderr, "cuzk %s: %s\n", cmd.c_str(), checked.error().c_str());
    return kExitInvalid;
  }
  std::printf("OK\n");
  return kExitOk;
}

}  // namespace

void register_post(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "post", "WindowPoSt / WinningPoSt: registered proofs, circuit counts, public inputs, vanilla checks");
  cmd->require_subcommand(1);

  auto* list = cmd->add_subcommand(
      "list", "Print the registered PoSt proofs: code, name, proofs-api name, sectors x challenges");
  list->callback([&exit_code] {
    for (const auto& c : post::all_post_configs())
      std::cout << c.code << "\t" << c.name << "\t" << c.rust_name << "\tsectors=" << c.sector_count
                << "\tchallenges=" << c.challenge_count << "\n";
    exit_code = kExitOk;
  });

  auto proof = std::make_shared<std::string>();
  auto* stats = cmd->add_subcommand(
      "stats", "Count one partition circuit: rows (before input rows), inputs (incl. ONE), aux, Groth16 domain");
  stats
      ->add_option("--registered-proof", *proof,
                   "registered PoSt proof name (e.g. StackedDrgWindow32GiBV1_1) or code 0-14")
      ->required();
  stats->callback([proof, &exit_code] {
    auto c = post::post_config_by_name(*proof);
    if (!c) {
      exit_code = fail("post stats", "--registered-proof: " + c.error());
      return;
    }
    const post::PostCircuitCounts k = post::count_post_circuit(**c);
    std::cout << "rows=" << k.rows << " inputs=" << k.inputs << " aux=" << k.aux << " domain=2^" << k.domain_log2()
              << "\n";
    exit_code = kExitOk;
  });

  auto in = std::make_shared<InputsArgs>();
  auto* inputs = cmd->add_subcommand("inputs", "Print a partition's public inputs (decimal, one a line, ONE excluded)");
  add_post_options(inputs, in->post);
  inputs->add_option("--sector", in->sectors, "ID:COMMR_HEX, one per sector in request order (repeat the option)")
      ->required();
  inputs->callback([in, &exit_code] { exit_code = run_inputs(*in); });

  auto ck = std::make_shared<CheckArgs>();
  auto* check =
      cmd->add_subcommand("check", "Run the vanilla checks on FallbackPoStSectorProofs (raw bincode or JSON base64)");
  add_post_options(check, ck->post);
  check
      ->add_option("--vanilla", ck->vanilla,
                   "vanilla-proof file(s): raw bincode or a JSON array of base64; concatenated")
      ->required()
      ->check(apps::InputFile);
  add_threads_option(check);
  check->callback([ck, &exit_code] { exit_code = run_check(*ck); });
}

}  // namespace cuzk::cli
