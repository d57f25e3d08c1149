// The SnapDeals (EmptySectorUpdate) circuit and vanilla proofs from the command line (no keys involved):
//   cuzk snap list                          the registered update proofs 0–4
//   cuzk snap stats --update-proof NAME [--poseidon]
//       rows=N inputs=N aux=N domain=2^k   (as `post stats`: rows before bellperson's input rows, inputs
//       with ONE; snap::count_update_circuit), then the geometry (partitions, challenges, apex leaves,
//       h) and the official parameter file names
//   cuzk snap inputs --update-proof NAME --comm-r-old HEX --comm-r-new HEX --comm-d-new HEX
//       [--partition K] [--hex]
//       public inputs (ONE excluded): with --partition, that partition's, one a line (what `post inputs`
//       prints, what a partition proof is verified against); else one line per partition, k order
//   cuzk snap check --update-proof NAME --comm-… --vanilla FILE…
//       the vanilla checks (snap/vanilla_check.hpp) of the P PartitionProofs: `OK`, exit 0; proofs that
//       do not check: `INVALID` and the reason on stderr, exit 1; malformed input: one line, exit 2
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/post_common.hpp"
#include "apps/cuzk/snap_common.hpp"
#include "filecoin/params/cache_names.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/snap/vanilla_check.hpp"
#include "formats/snarkjs_common.hpp"
#include "filecoin/snap/shape.hpp"

namespace cuzk::cli {
namespace snap = filecoin::snap;
namespace params = filecoin::params;

namespace {

std::string fr_text(const math::Fr& x, bool hex) {
  std::uint8_t le[32];
  x.to_bytes_le(le);
  if (hex) {
    filecoin::Bytes32 b;
    std::copy_n(le, 32, b.begin());
    return filecoin::bytes32_hex(b);
  }
  return formats::le_bytes_to_decimal(le);
}

int run_stats(const UpdateOptions& o) {
  const std::string cmd = "snap stats";
  auto req = parse_update_options(o, false);
  if (!req) return fail(cmd, req.error());
  const snap::SnapGeometry& g = req->geometry;
  const snap::UpdateCircuitCounts k = snap::count_update_circuit(g);
  std::cout << "rows=" << k.rows << " inputs=" << k.inputs << " aux=" << k.aux << " domain=2^" << k.domain_log2()
            << "\n";
  std::cout << "variant=" << snap::to_string(g.variant) << " partitions=" << g.partitions
            << " challenges=" << g.challenge_count << " apex_leaves=" << g.apex_leaf_count << " h=" << g.h
            << " h_select=" << g.h_select << " tree_r_levels=" << g.tree_r_levels() << "\n";
  const auto family = o.poseidon ? params::ProofFamily::kSnapDealsPoseidon : params::ProofFamily::kSnapDeals;
  if (auto pc = params::make_param_config(family, req->config->sector_size))
    std::cout << "params=" << pc->params_file() << "\nvk=" << pc->vk_file() << "\nmeta=" << pc->meta_file() << "\n";
  else
    std::cout << "params=(none published for " << params::family_name(family) << " "
              << params::sector_size_name(req->config->sector_size) << ")\n";
  return kExitOk;
}

struct InputsArgs {
  UpdateOptions update;
  std::optional<std::size_t> partition;
  bool hex = false;
};

int run_inputs(const InputsArgs& a) {
  const std::string cmd = "snap inputs";
  auto req = parse_update_options(a.update);
  if (!req) return fail(cmd, req.error());
  const snap::SnapGeometry& g = req->geometry;
  if (a.partition && *a.partition >= g.partitions)
    return fail(cmd, "--partition " + std::to_string(*a.partition) + ": " + req->config->name + " has " +
                         std::to_string(g.partitions) + " partitions (0.." + std::to_string(g.partitions - 1) + ")");
  auto pub = snap::check_commitments(req->comms);
  if (!pub) return fail(cmd, pub.error());
  std::string out;
  for (std::size_t k = 0; k < g.partitions; ++k) {
    if (a.partition && *a.partition != k) continue;
    const auto inputs = snap::partition_public_inputs(g, *pub, k);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      out += fr_text(inputs[i], a.hex);
      out += a.partition ? "\n" : (i + 1 < inputs.size() ? " " : "\n");
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

struct CheckArgs {
  UpdateOptions update;
  std::vector<std::string> vanilla;
};

int run_check(const CheckArgs& a) {
  const std::string cmd = "snap check";
  try {
    auto req = parse_update_options(a.update);
    if (!req) return fail(cmd, req.error());
    const snap::SnapGeometry& g = req->geometry;
    auto blobs = read_vanilla_files(a.vanilla);
    if (!blobs) return fail(cmd, blobs.error());
    if (blobs->size() != g.partitions)
      return fail(cmd, "vanilla_proofs: " + std::to_string(blobs->size()) + " partition proofs, " + req->config->name +
                           (a.update.poseidon ? " (Poseidon variant)" : "") + " has " + std::to_string(g.partitions));
    std::vector<snap::PartitionProof> proofs;
    for (std::size_t k = 0; k < blobs->size(); ++k) {
      auto p = snap::parse_partition_proof((*blobs)[k], g, k);
      if (!p) return fail(cmd, p.error());
      proofs.push_back(std::move(*p));
    }
    auto pub = snap::check_commitments(req->comms);
    if (!pub) return fail(cmd, pub.error());
    auto checked = snap::check_partition_proofs(g, *pub, proofs);
    if (!checked) {
      std::printf("INVALID\n");
      std::fprintf(stderr, "cuzk %s: %s\n", cmd.c_str(), checked.error().c_str());
      return kExitInvalid;
    }
    std::printf("OK\n");
    return kExitOk;
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
}

}  // namespace

void register_snap(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "snap", "SnapDeals (EmptySectorUpdate): registered update proofs, circuit counts, public inputs, vanilla checks");
  cmd->require_subcommand(1);

  auto* list = cmd->add_subcommand("list", "Print the registered update proofs: code, name, sector size, partitions");
  list->callback([&exit_code] {
    for (const auto& c : snap::all_update_configs())
      std::cout << c.code << "\t" << c.name << "\t" << c.sector_size << "\tpartitions=" << c.geometry.partitions
                << "\tchallenges=" << c.geometry.challenge_count << "\n";
    exit_code = kExitOk;
  });

  auto so = std::make_shared<UpdateOptions>();
  auto* stats = cmd->add_subcommand(
      "stats",
      "Count one partition circuit: rows (before input rows), inputs (incl. ONE), aux, domain; geometry; files");
  add_update_proof_option(stats, *so);
  add_poseidon_flag(stats, *so);
  stats->callback([so, &exit_code] { exit_code = run_stats(*so); });

  auto in = std::make_shared<InputsArgs>();
  auto* inputs = cmd->add_subcommand("inputs", "Print the partitions' public inputs (ONE excluded)");
  add_update_options(inputs, in->update);
  add_poseidon_flag(inputs, in->update);
  inputs->add_option("--partition", in->partition, "only this partition, one input a line");
  inputs->add_flag("--hex", in->hex, "32-byte little-endian hex instead of decimal");
  inputs->callback([in, &exit_code] { exit_code = run_inputs(*in); });

  auto ck = std::make_shared<CheckArgs>();
  auto* check =
      cmd->add_subcommand("check", "Run the vanilla checks on the P PartitionProofs (raw bincode or JSON base64)");
  add_update_options(check, ck->update);
  add_poseidon_flag(check, ck->update);
  check
      ->add_option("--vanilla", ck->vanilla,
                   "vanilla-proof file(s): raw bincode or a JSON array of base64; concatenated")
      ->required()
      ->check(apps::InputFile);
  add_threads_option(check);
  check->callback([ck, &exit_code] { exit_code = run_check(*ck); });
}

}  // namespace cuzk::cli
