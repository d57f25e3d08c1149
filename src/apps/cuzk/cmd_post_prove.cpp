// One PoSt partition proof from the command line (post::PostJob, as the daemon's window-post /
// winning-post kinds run it):
//   cuzk prove-post  --registered-proof NAME --miner-id N --randomness HEX --vanilla FILE… --params DIR
//                    [--partition K] --out proof.bin [--backend auto|cpu|cuda] [--repeat N]
//                    (--test-key-seed N instead of --params: a TEST-ONLY key made in memory, for hosts
//                    whose disk cannot hold the .params; --repeat proves N times with the key resident)
//   cuzk verify-post (the same flags) --proof proof.bin
// prove-post decodes and checks the vanilla proofs (shape, comm_r, paths, challenges) before any key
// is loaded — a failure is one line naming the sector and check, exit 2 — then the shape (cached as
// "<params>.shape" beside the keys) and the key under the official file name in DIR, proves,
// self-verifies and writes the 192-byte proof; timings on stderr. verify-post takes the public
// sectors (ids and comm_r) from the vanilla file's proofs and prints OK (exit 0) or INVALID (exit 1;
// a proof whose points do not decode is INVALID too); malformed input is exit 2.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/input_file.hpp"
#include "apps/common/device_backends.hpp"
#include "apps/cuzk/multiplier.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/environment.hpp"
#include "apps/cuzk/post_common.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/post/post_job.hpp"
#include "filecoin/post/shape.hpp"
#include "groth16/proof.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::cli {
namespace post = filecoin::post;
namespace params = filecoin::params;

namespace {

struct ProvePostArgs {
  PostOptions post;
  std::vector<std::string> vanilla;
  std::string params_dir, out, proof;
  std::string backend = "auto";
  bool no_self_verify = false, quiet = false;
  std::optional<std::uint64_t> test_key_seed;  // TEST-ONLY in-memory key instead of --params
  std::uint32_t repeat = 1;
};

int run_prove_post(const ProvePostArgs& a) {
  const std::string cmd = "prove-post";
  Stopwatch total;
  auto req = parse_post_options(a.post);
  if (!req) return fail(cmd, req.error());
  const post::PostConfig& config = *req->config;
  auto blobs = read_vanilla_files(a.vanilla);
  if (!blobs) return fail(cmd, blobs.error());
  std::vector<std::span<const std::uint8_t>> spans(blobs->begin(), blobs->end());
  Stopwatch clock;
  auto job = post::PostJob::prepare(config, req->randomness, req->partition, spans);
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
    auto p = params::param_paths(config.family(), config.sector_size, a.params_dir);
    if (!p) return fail(cmd, config.name + ": " + p.error());
    paths = *p;
  }
  clock = {};
  auto shape_load = post::load_or_record_post_shape(config, paths ? filecoin::shape_cache_path(paths->params) : "",
                                                    shape_cache_policy());
  const groth16::R1csShape shape = std::move(shape_load.shape);
  if (auto st = job->check_key(shape); !st) return fail(cmd, st.error());
  const double shape_ms = clock.ms();
  clock = {};
  auto key = command_proving_key("prove-post", paths, shape, a.test_key_seed);
  if (!key) return fail(cmd, key.error());
  const double key_ms = clock.ms();
  if (!a.quiet)
    std::fprintf(stderr,
                 "cuzk prove-post: %s partition %u, %zu sector(s); vanilla checks %.0f ms, shape %.0f ms (%s), key %.0f ms; "
                 "backend %s\n",
                 config.name.c_str(), req->partition, job->sectors().size(), prepare_ms, shape_ms,
                 filecoin::to_string(shape_load.source), key_ms, engine::backend_name(*chosen));
  // The key's device copy made once for every partition (the CPU backend proves from the host key).
  auto bound = groth16::with_copy((*backends)->make({0, false}), *key, &shape);
  if (!bound) return fail(cmd, bound.error());
  auto& backend = *bound;
  for (std::uint32_t rep = 0; rep < a.repeat; ++rep) {  // --repeat: the key stays resident after the first
    Stopwatch each;
    post::PostTiming t;
    auto proof = post::prove_post(*job, shape, *key, *backend, !a.no_self_verify, &t);
    if (!proof) return fail(cmd, proof.error());
    const auto bytes = proof->to_bytes();
    if (auto st = write_file(a.out, bytes); !st) return fail(cmd, st.error());
    if (!a.quiet)
      std::fprintf(stderr, "cuzk prove-post: synthesis %.0f ms, prove %.0f ms, verify %.0f ms; wrote %s (%zu bytes)%s in %.2f s\n",
                   t.synth_ms, t.prove_ms, t.verify_ms, a.out.c_str(), bytes.size(),
                   a.no_self_verify ? "" : ", self-verified", (rep == 0 ? total.ms() : each.ms()) / 1000);
  }
  return kExitOk;
}

int run_verify_post(const ProvePostArgs& a) {
  const std::string cmd = "verify-post";
  auto req = parse_post_options(a.post);
  if (!req) return fail(cmd, req.error());
  const post::PostConfig& config = *req->config;
  auto blobs = read_vanilla_files(a.vanilla);
  if (!blobs) return fail(cmd, blobs.error());
  if (auto st = check_sector_count(config, blobs->size()); !st) return fail(cmd, st.error());
  auto proofs = parse_vanilla(config, *blobs);
  if (!proofs) return fail(cmd, proofs.error());
  std::vector<post::PublicSector> sectors;
  for (const auto& p : *proofs) sectors.push_back({p.sector_id, p.comm_r});
  auto bytes = read_file(a.proof);
  if (!bytes) return fail(cmd, bytes.error());
  if (bytes->size() != groth16::kProofBytes)
    return fail(cmd, a.proof + ": " + std::to_string(bytes->size()) + " bytes, a " + config.name + " proof is " +
                         std::to_string(groth16::kProofBytes));
  if (a.params_dir.empty()) return fail(cmd, "--params DIR is required");
  auto paths = params::param_paths(config.family(), config.sector_size, a.params_dir);
  if (!paths) return fail(cmd, config.name + ": " + paths.error());
  auto vk = params::load_verifying_key(*paths);
  if (!vk) return fail(cmd, vk.error());
  if (auto decoded = groth16::split_proofs(*bytes); !decoded) {
    std::printf("INVALID\n");
    std::fprintf(stderr, "cuzk %s: %s: %s\n", cmd.c_str(), a.proof.c_str(), decoded.error().c_str());
    return kExitInvalid;
  }
  auto ok = post::verify_post(config, req->randomness, req->partition, sectors, *vk, *bytes);
  if (!ok) return fail(cmd, ok.error());
  if (!*ok) {
    std::printf("INVALID\n");
    return kExitInvalid;
  }
  std::printf("OK\n");
  return kExitOk;
}

void add_shared(CLI::App* sub, ProvePostArgs& a) {
  add_post_options(sub, a.post);
  sub->add_option("--vanilla", a.vanilla, "vanilla-proof file(s): raw bincode or a JSON array of base64; concatenated")
      ->required()
      ->check(apps::InputFile);
  sub->add_option("--params", a.params_dir, "parameter directory (official file names)");
}

}  // namespace

void register_post_prove(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ProvePostArgs>();
  auto* prove = app.add_subcommand("prove-post", "Prove one WindowPoSt partition or a WinningPoSt from vanilla proofs");
  add_shared(prove, *a);
  prove->add_option("--out", a->out, "the 192-byte proof")->required();
  prove->add_flag("--no-self-verify", a->no_self_verify, "skip verifying the proof before writing it");
  prove->add_option("--test-key-seed", a->test_key_seed,
                    "TEST-ONLY: instead of --params, a key made in memory from this (public) toxic-waste seed");
  prove->add_option("--repeat", a->repeat, "prove this many times in one process (timings of each)")
      ->check(CLI::Range(1, 1000));
  prove->add_flag("-q,--quiet", a->quiet, "no progress on stderr");
  prove->add_option("--backend", a->backend, "auto (CUDA when built and a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  add_threads_option(prove);
  prove->callback([a, &exit_code] { exit_code = run_prove_post(*a); });

  auto* verify = app.add_subcommand("verify-post", "Verify a PoSt partition proof (public sectors from the vanilla file)");
  add_shared(verify, *a);
  verify->add_option("--proof", a->proof, "the 192-byte proof")->required()->check(apps::InputFile);
  verify->callback([a, &exit_code] { exit_code = run_verify_post(*a); });
}

}  // namespace cuzk::cli
