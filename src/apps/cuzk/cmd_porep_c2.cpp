// PoRep C2 from the command line:
//   cuzk prove-porep  --c1 c1.json --params DIR [--out proof.bin] [--backend auto|cpu|cuda]
//   cuzk verify-porep --c1 c1.json --params DIR --proof proof.bin [--miner-id N [--sector-id N]]
// The C1 may be Curio's wrapper, the raw SealCommitPhase1Output JSON, or supraseal's bincode. The
// parameters are the official file names for the sector size under DIR (real ones, or test ones
// from `cuzk setup --registered-proof`). prove-porep refuses a C1 that fails the vanilla checks,
// naming the check; verify-porep derives the public inputs from the C1's commitments and
// randomness (and, with --miner-id, re-derives replica_id as verify_seal does).
#include <cstdio>
#include <optional>

#include "apps/common/input_file.hpp"
#include "apps/common/device_backends.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "apps/cuzk/environment.hpp"
#include "filecoin/porep/params.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/ids.hpp"

namespace cuzk::cli {
namespace porep = filecoin::porep;

namespace {

struct PorepC2Args {
  std::string c1, params_dir, out, proof;
  std::string backend = "auto";
  bool no_self_verify = false, quiet = false;
  std::optional<std::uint64_t> miner_id, sector_id;
};

int run_prove_porep(const PorepC2Args& a) {
  const std::string cmd = "prove-porep";
  Stopwatch total;
  auto loaded = porep::load_c1_file_detailed(a.c1);
  if (!loaded) return fail(cmd, loaded.error());
  auto job = porep::PorepJob::prepare(std::move(loaded->c1));
  if (!job) return fail(cmd, a.c1 + ": " + job.error());
  const porep::PorepConfig& config = job->config();
  // The backend before the key: "cuda" on a machine without one fails in milliseconds.
  auto chosen = apps::choose_backend(a.backend, apps::probe_backends());
  if (!chosen) return fail(cmd, chosen.error());
  auto backends = apps::DeviceBackends::create(*chosen, {}, environment().gpu);
  if (!backends) return fail(cmd, backends.error());
  Stopwatch clock;
  // The shape cache beside the .params (written by `cuzk setup` or an earlier run).
  const auto param_paths = porep::porep_param_paths(config, a.params_dir);
  auto shape_load = porep::load_or_record_porep_shape(
      config, param_paths ? filecoin::shape_cache_path(param_paths->params) : "", shape_cache_policy());
  const auto shape = std::move(shape_load.shape);
  const double shape_ms = clock.ms();
  clock = {};
  auto key = porep::load_porep_proving_key(config, a.params_dir, shape);
  if (!key) return fail(cmd, key.error());
  const double key_ms = clock.ms();
  if (!a.quiet)
    std::fprintf(stderr, "cuzk prove-porep: %s, %zu partition(s); shape %.0f ms (%s), key %.0f ms; backend %s\n",
                 config.name.c_str(), config.partitions, shape_ms, filecoin::to_string(shape_load.source), key_ms,
                 engine::backend_name(*chosen));
  porep::PorepProveOptions opt;
  opt.self_verify = !a.no_self_verify;
  opt.on_partition = [&](std::size_t k, const porep::PartitionTiming& t) {
    if (!a.quiet)
      std::fprintf(stderr, "cuzk prove-porep: partition %zu: synthesis %.0f ms, prove %.0f ms, verify %.0f ms\n", k,
                   t.synth_ms, t.prove_ms, t.verify_ms);
  };
  // The key's device copy made once for every partition (the CPU backend proves from the host key).
  auto bound = groth16::with_copy((*backends)->make({0, false}), *key, &shape);
  if (!bound) return fail(cmd, bound.error());
  auto& backend = *bound;
  auto proofs = porep::prove_porep(*job, shape, *key, *backend, opt);
  if (!proofs) return fail(cmd, a.c1 + ": " + proofs.error());
  const auto bytes = groth16::concat_proofs(*proofs);
  const std::string out = a.out.empty() ? "proof.bin" : a.out;
  if (auto st = write_file(out, bytes); !st) return fail(cmd, st.error());
  if (!a.quiet)
    std::fprintf(stderr, "cuzk prove-porep: wrote %s (%zu bytes)%s in %.1f s\n", out.c_str(), bytes.size(),
                 opt.self_verify ? ", every partition self-verified" : "", total.ms() / 1000);
  return kExitOk;
}

int run_verify_porep(const PorepC2Args& a) {
  const std::string cmd = "verify-porep";
  auto loaded = porep::load_c1_file_detailed(a.c1);
  if (!loaded) return fail(cmd, loaded.error());
  const porep::C1Output& c1 = loaded->c1;
  auto config = porep::config_of(c1);
  if (!config) return fail(cmd, a.c1 + ": " + config.error());
  porep::SectorPublic sector{c1.replica_id, c1.comm_d, c1.comm_r, c1.seed};
  if (a.miner_id) {
    // verify_seal's view: replica_id from the prover and sector, not taken from the C1.
    std::optional<std::uint64_t> sector_id = a.sector_id;
    if (!sector_id && loaded->format == porep::C1Format::kCurioJson) sector_id = std::uint64_t(loaded->sector_num);
    if (!sector_id) return fail(cmd, "--miner-id needs --sector-id (the C1 is not Curio's wrapper with SectorNum)");
    sector.replica_id = porep::replica_id(porep::prover_id_from_actor(*a.miner_id), *sector_id, c1.ticket, c1.comm_d,
                                        porep::porep_id(**config));
    if (sector.replica_id != c1.replica_id)
      std::fprintf(stderr, "cuzk verify-porep: note: replica_id derived from miner %llu / sector %llu differs from the C1's\n",
                   (unsigned long long)*a.miner_id, (unsigned long long)*sector_id);
  }
  auto vk = porep::load_porep_vk(**config, a.params_dir);
  if (!vk) return fail(cmd, vk.error());
  auto bytes = read_file(a.proof);
  if (!bytes) return fail(cmd, bytes.error());
  std::size_t failed = 0;
  auto ok = porep::verify_porep(**config, sector, *vk, *bytes, &failed);
  if (!ok) return fail(cmd, a.proof + ": " + ok.error());
  if (!*ok) {
    std::printf("INVALID (partition %zu of %zu does not verify)\n", failed, (*config)->partitions);
    return kExitInvalid;
  }
  std::printf("OK (%s, %zu partition proofs)\n", (*config)->name.c_str(), (*config)->partitions);
  return kExitOk;
}

}  // namespace

void register_porep_c2(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<PorepC2Args>();
  auto* prove = app.add_subcommand("prove-porep", "PoRep C2: prove every partition of a C1 (Curio c1.json, raw JSON or bincode)");
  prove->add_option("--c1", a->c1, "C1 file")->required()->check(apps::InputFile);
  prove->add_option("--params", a->params_dir, "parameter directory (official file names)")->required();
  prove->add_option("--out", a->out, "concatenated partition proofs (default proof.bin)");
  prove->add_flag("--no-self-verify", a->no_self_verify, "skip verifying each partition proof before writing");
  prove->add_flag("-q,--quiet", a->quiet, "no progress on stderr");
  prove->add_option("--backend", a->backend, "auto (CUDA when built and a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  add_threads_option(prove);
  prove->callback([a, &exit_code] { exit_code = run_prove_porep(*a); });

  auto* verify = app.add_subcommand("verify-porep", "Verify PoRep partition proofs against the public inputs derived from a C1");
  verify->add_option("--c1", a->c1, "C1 file")->required()->check(apps::InputFile);
  verify->add_option("--params", a->params_dir, "parameter directory (the .vk is used)")->required();
  verify->add_option("--proof", a->proof, "concatenated partition proofs")->required()->check(apps::InputFile);
  verify->add_option("--miner-id", a->miner_id, "derive replica_id from this miner actor id (as verify_seal does)");
  verify->add_option("--sector-id", a->sector_id, "with --miner-id: the sector number (default: the wrapper's SectorNum)");
  verify->callback([a, &exit_code] { exit_code = run_verify_porep(*a); });
}

}  // namespace cuzk::cli
