// A SnapDeals update proof from the command line (snap::SnapJob, as the daemon's snap-update kind runs it):
//   cuzk prove-snap  --update-proof NAME --comm-r-old HEX --comm-r-new HEX --comm-d-new HEX --vanilla FILE…
//                    --params DIR --out proof.bin [--backend auto|cpu|cuda] [--poseidon]
//                    (--test-key-seed N instead of --params: a TEST-ONLY key made in memory)
//   cuzk verify-snap --update-proof NAME --comm-… --params DIR --proof proof.bin [--poseidon]
// prove-snap decodes and checks the P PartitionProofs (shape, commitments, paths, apex, encoding)
// before any key is loaded — a failure is one line naming the partition, challenge and check, exit 2
// — then the shape (cached as "<params>.shape" beside the keys) and the key under the official file
// name in DIR (ProofFamily kSnapDeals; kSnapDealsPoseidon with --poseidon), proves every partition,
// self-verifies each and writes the 192·P bytes, partition proofs in k order; one progress line per
// partition on stderr. verify-snap derives the public inputs from the three commitments alone (with
// --vanilla, the partition proofs are checked against them as well) and
// prints `OK (NAME, P partition proofs)` (exit 0) or `INVALID (partition k of P does not verify)`
// (exit 1; a proof whose points do not decode is INVALID too); malformed input is exit 2.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/input_file.hpp"
#include "apps/common/device_backends.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/environment.hpp"
#include "apps/cuzk/post_common.hpp"
#include "apps/cuzk/prove_driver.hpp"
#include "apps/cuzk/snap_common.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/snap/shape.hpp"
#include "filecoin/snap/snap_job.hpp"
#include "groth16/proof.hpp"

namespace cuzk::cli {
namespace snap = filecoin::snap;
namespace params = filecoin::params;

namespace {

struct ProveSnapArgs {
  UpdateOptions update;
  std::vector<std::string> vanilla;
  ProveFlags prove;
  std::string verify_params, proof;
};

params::ProofFamily family_of(const UpdateOptions& o) {
  return o.poseidon ? params::ProofFamily::kSnapDealsPoseidon : params::ProofFamily::kSnapDeals;
}

std::string label(const UpdateRequest& r) {
  return r.config->name + (r.geometry.variant == snap::UpdateVariant::kPoseidon ? " (Poseidon variant)" : "");
}

int run_prove_snap(const ProveSnapArgs& a) {
  const std::string cmd = "prove-snap";
  Stopwatch total;
  auto req = parse_update_options(a.update);
  if (!req) return fail(cmd, req.error());
  const snap::SnapGeometry& g = req->geometry;
  auto blobs = read_vanilla_files(a.vanilla);
  if (!blobs) return fail(cmd, blobs.error());
  std::vector<std::span<const std::uint8_t>> spans(blobs->begin(), blobs->end());
  Stopwatch clock;
  auto job = snap::SnapJob::prepare(g, req->comms, spans);
  if (!job) return fail(cmd, job.error());
  const double prepare_ms = clock.ms();
  *blobs = {};
  const std::string name = label(*req);
  const ProveKey key{name, family_of(a.update), req->config->sector_size, [&](const std::string& cache) {
                       return snap::load_or_record_update_shape(g, name, cache, shape_cache_policy());
                     }};
  return drive_prove(cmd, a.prove, key, *job, name, prepare_ms, total);
}

int run_verify_snap(const ProveSnapArgs& a) {
  const std::string cmd = "verify-snap";
  auto req = parse_update_options(a.update);
  if (!req) return fail(cmd, req.error());
  const snap::SnapGeometry& g = req->geometry;
  // --vanilla (optional): the partition proofs must also check against the commitments (the inputs
  // never come from them); a request whose vanilla proofs do not check is INVALID.
  if (!a.vanilla.empty()) {
    auto blobs = read_vanilla_files(a.vanilla);
    if (!blobs) return fail(cmd, blobs.error());
    std::vector<std::span<const std::uint8_t>> spans(blobs->begin(), blobs->end());
    if (auto job = snap::SnapJob::prepare(g, req->comms, spans); !job) {
      std::printf("INVALID (vanilla proofs)\n");
      std::fprintf(stderr, "cuzk %s: %s\n", cmd.c_str(), job.error().c_str());
      return kExitInvalid;
    }
  }
  auto bytes = read_file(a.proof);
  if (!bytes) return fail(cmd, bytes.error());
  if (bytes->size() != g.partitions * groth16::kProofBytes)
    return fail(cmd, a.proof + ": " + std::to_string(bytes->size()) + " bytes, a " + label(*req) + " proof is " +
                         std::to_string(g.partitions) + " x " + std::to_string(groth16::kProofBytes));
  auto paths = params::param_paths(family_of(a.update), req->config->sector_size, a.verify_params);
  if (!paths) return fail(cmd, label(*req) + ": " + paths.error());
  auto vk = params::load_verifying_key(*paths);
  if (!vk) return fail(cmd, vk.error());
  // A partition proof whose points do not decode does not verify (INVALID, not malformed input).
  for (std::size_t k = 0; k < g.partitions; ++k) {
    auto decoded = groth16::split_proofs(
        std::span<const std::uint8_t>(*bytes).subspan(k * groth16::kProofBytes, groth16::kProofBytes));
    if (!decoded) {
      std::printf("INVALID (partition %zu of %zu does not verify)\n", k, g.partitions);
      std::fprintf(stderr, "cuzk %s: %s: partition %zu: %s\n", cmd.c_str(), a.proof.c_str(), k,
                   decoded.error().c_str());
      return kExitInvalid;
    }
  }
  std::size_t failed = 0;
  auto ok = snap::verify_snap(g, req->comms, *vk, *bytes, &failed);
  if (!ok) return fail(cmd, a.proof + ": " + ok.error());
  if (!*ok) {
    std::printf("INVALID (partition %zu of %zu does not verify)\n", failed, g.partitions);
    return kExitInvalid;
  }
  std::printf("OK (%s, %zu partition proofs)\n", label(*req).c_str(), g.partitions);
  return kExitOk;
}

}  // namespace

void register_snap_prove(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ProveSnapArgs>();
  auto* prove = app.add_subcommand("prove-snap", "Prove a SnapDeals update (every partition) from its vanilla proofs");
  add_update_options(prove, a->update);
  add_poseidon_flag(prove, a->update);
  prove
      ->add_option("--vanilla", a->vanilla,
                   "vanilla-proof file(s): raw bincode or a JSON array of base64; concatenated")
      ->required()
      ->check(apps::InputFile);
  add_prove_flags(prove, a->prove, "the 192 x P byte proof");
  prove->callback([a, &exit_code] { exit_code = run_prove_snap(*a); });

  auto v = std::make_shared<ProveSnapArgs>();
  auto* verify = app.add_subcommand("verify-snap", "Verify a SnapDeals update proof against the three commitments");
  add_update_options(verify, v->update);
  add_poseidon_flag(verify, v->update);
  verify
      ->add_option("--vanilla", v->vanilla,
                   "optional: the partition proofs too, checked against the commitments (the public inputs never "
                   "come from them)")
      ->check(apps::InputFile);
  verify->add_option("--params", v->verify_params, "parameter directory (official file names)")->required();
  verify->add_option("--proof", v->proof, "the 192 x P byte proof")->required()->check(apps::InputFile);
  verify->callback([v, &exit_code] { exit_code = run_verify_snap(*v); });
}

}  // namespace cuzk::cli
