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
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/environment.hpp"
#include "apps/cuzk/post_common.hpp"
#include "apps/cuzk/prove_driver.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/post/post_job.hpp"
#include "filecoin/post/shape.hpp"
#include "groth16/proof.hpp"

namespace cuzk::cli {
namespace post = filecoin::post;
namespace params = filecoin::params;

namespace {

struct ProvePostArgs {
  PostOptions post;
  std::vector<std::string> vanilla;
  ProveFlags prove;
  std::string verify_params, proof;
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
  const ProveKey key{config.name, config.family(), config.sector_size, [&](const std::string& cache) {
                       return post::load_or_record_post_shape(config, cache, shape_cache_policy());
                     }};
  const std::string what = config.name + " partition " + std::to_string(req->partition) + ", " +
                           std::to_string(job->sectors().size()) + " sector(s)";
  return drive_prove(cmd, a.prove, key, *job, what, prepare_ms, total);
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
  auto paths = params::param_paths(config.family(), config.sector_size, a.verify_params);
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

void add_request(CLI::App* sub, ProvePostArgs& a) {
  add_post_options(sub, a.post);
  sub->add_option("--vanilla", a.vanilla, "vanilla-proof file(s): raw bincode or a JSON array of base64; concatenated")
      ->required()
      ->check(apps::InputFile);
}

}  // namespace

void register_post_prove(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ProvePostArgs>();
  auto* prove = app.add_subcommand("prove-post", "Prove one WindowPoSt partition or a WinningPoSt from vanilla proofs");
  add_request(prove, *a);
  add_prove_flags(prove, a->prove, "the 192-byte proof");
  prove->callback([a, &exit_code] { exit_code = run_prove_post(*a); });

  auto v = std::make_shared<ProvePostArgs>();
  auto* verify =
      app.add_subcommand("verify-post", "Verify a PoSt partition proof (public sectors from the vanilla file)");
  add_request(verify, *v);
  verify->add_option("--params", v->verify_params, "parameter directory (official file names)")->required();
  verify->add_option("--proof", v->proof, "the 192-byte proof")->required()->check(apps::InputFile);
  verify->callback([v, &exit_code] { exit_code = run_verify_post(*v); });
}

}  // namespace cuzk::cli
