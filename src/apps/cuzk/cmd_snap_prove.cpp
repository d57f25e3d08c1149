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
#include "apps/cuzk/multiplier.hpp"
#include "apps/cuzk/post_common.hpp"
#include "apps/cuzk/snap_common.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/snap/shape.hpp"
#include "filecoin/snap/snap_job.hpp"
#include "groth16/proof.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::cli {
namespace snap = filecoin::snap;
namespace params = filecoin::params;

namespace {

struct ProveSnapArgs {
  UpdateOptions update;
  std::vector<std::string> vanilla;
  std::string params_dir, out, proof;
  std::string backend = "auto";
  bool no_self_verify = false, quiet = false;
  std::optional<std::uint64_t> test_key_seed;
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
  // The backend before the key: "cuda" on a machine without one fails in milliseconds.
  auto chosen = apps::choose_backend(a.backend, apps::probe_backends());
  if (!chosen) return fail(cmd, chosen.error());
  auto backends = apps::DeviceBackends::create(*chosen, {}, environment().gpu);
  if (!backends) return fail(cmd, backends.error());
  if (a.test_key_seed.has_value() == !a.params_dir.empty())
    return fail(cmd, "give exactly one of --params DIR and --test-key-seed N");
  std::optional<params::ParamPaths> paths;
  if (!a.params_dir.empty()) {
    auto p = params::param_paths(family_of(a.update), req->config->sector_size, a.params_dir);
    if (!p) return fail(cmd, label(*req) + ": " + p.error());
    paths = *p;
  }
  clock = {};
  auto shape_load = snap::load_or_record_update_shape(g, label(*req),
                                                      paths ? filecoin::shape_cache_path(paths->params) : "",
                                                      shape_cache_policy());
  const groth16::R1csShape shape = std::move(shape_load.shape);
  if (auto st = job->check_key(shape); !st) return fail(cmd, st.error());
  const double shape_ms = clock.ms();
  clock = {};
  auto key = command_proving_key("prove-snap", paths, shape, a.test_key_seed);
  if (!key) return fail(cmd, key.error());
  const double key_ms = clock.ms();
  if (!a.quiet)
    std::fprintf(stderr,
                 "cuzk prove-snap: %s, %u partition(s); vanilla checks %.0f ms, shape %.0f ms (%s), key %.0f ms; "
                 "backend %s\n",
                 label(*req).c_str(), job->partitions(), prepare_ms, shape_ms, filecoin::to_string(shape_load.source),
                 key_ms, engine::backend_name(*chosen));
  snap::SnapProveOptions opt;
  opt.self_verify = !a.no_self_verify;
  opt.on_partition = [&](std::size_t k, const snap::SnapPartitionTiming& t) {
    if (!a.quiet)
      std::fprintf(stderr, "cuzk prove-snap: partition %zu: synthesis %.0f ms, prove %.0f ms, verify %.0f ms\n", k,
                   t.synth_ms, t.prove_ms, t.verify_ms);
  };
  // The key's device copy made once for every partition (the CPU backend proves from the host key).
  auto bound = groth16::with_copy((*backends)->make({0, false}), *key, &shape);
  if (!bound) return fail(cmd, bound.error());
  auto& backend = *bound;
  auto proofs = snap::prove_snap(*job, shape, *key, *backend, opt);
  if (!proofs) return fail(cmd, proofs.error());
  const auto bytes = groth16::concat_proofs(*proofs);
  if (auto st = write_file(a.out, bytes); !st) return fail(cmd, st.error());
  if (!a.quiet)
    std::fprintf(stderr, "cuzk prove-snap: wrote %s (%zu bytes = %u x %zu)%s in %.2f s\n", a.out.c_str(), bytes.size(),
                 job->partitions(), groth16::kProofBytes, a.no_self_verify ? "" : ", self-verified", total.ms() / 1000);
  return kExitOk;
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
  auto paths = params::param_paths(family_of(a.update), req->config->sector_size, a.params_dir);
  if (!paths) return fail(cmd, label(*req) + ": " + paths.error());
  auto vk = params::load_verifying_key(*paths);
  if (!vk) return fail(cmd, vk.error());
  // A partition proof whose points do not decode does not verify (INVALID, not malformed input).
  for (std::size_t k = 0; k < g.partitions; ++k) {
    auto decoded = groth16::split_proofs(std::span<const std::uint8_t>(*bytes).subspan(k * groth16::kProofBytes,
                                                                                        groth16::kProofBytes));
    if (!decoded) {
      std::printf("INVALID (partition %zu of %zu does not verify)\n", k, g.partitions);
      std::fprintf(stderr, "cuzk %s: %s: partition %zu: %s\n", cmd.c_str(), a.proof.c_str(), k, decoded.error().c_str());
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
  prove->add_option("--vanilla", a->vanilla, "vanilla-proof file(s): raw bincode or a JSON array of base64; concatenated")
      ->required()
      ->check(apps::InputFile);
  prove->add_option("--params", a->params_dir, "parameter directory (official file names)");
  prove->add_option("--out", a->out, "the 192 x P byte proof")->required();
  prove->add_flag("--no-self-verify", a->no_self_verify, "skip verifying each partition proof");
  prove->add_option("--test-key-seed", a->test_key_seed,
                    "TEST-ONLY: instead of --params, a key made in memory from this (public) toxic-waste seed");
  prove->add_flag("-q,--quiet", a->quiet, "no progress on stderr");
  prove->add_option("--backend", a->backend, "auto (CUDA when built and a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  add_threads_option(prove);
  prove->callback([a, &exit_code] { exit_code = run_prove_snap(*a); });

  auto v = std::make_shared<ProveSnapArgs>();
  auto* verify = app.add_subcommand("verify-snap", "Verify a SnapDeals update proof against the three commitments");
  add_update_options(verify, v->update);
  add_poseidon_flag(verify, v->update);
  verify->add_option("--vanilla", v->vanilla,
                     "optional: the partition proofs too, checked against the commitments (the public inputs never "
                     "come from them)")
      ->check(apps::InputFile);
  verify->add_option("--params", v->params_dir, "parameter directory (official file names)")->required();
  verify->add_option("--proof", v->proof, "the 192 x P byte proof")->required()->check(apps::InputFile);
  verify->callback([v, &exit_code] { exit_code = run_verify_snap(*v); });
}

}  // namespace cuzk::cli
