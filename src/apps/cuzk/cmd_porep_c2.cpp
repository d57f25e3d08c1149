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
#include "apps/cuzk/prove_driver.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/porep/params.hpp"
#include "filecoin/porep/porep_job.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/ids.hpp"

namespace cuzk::cli {
namespace porep = filecoin::porep;
namespace params = filecoin::params;

namespace {

struct PorepC2Args {
  std::string c1, proof, verify_params;
  ProveFlags prove;
  std::optional<std::uint64_t> miner_id, sector_id;
};

int run_prove_porep(const PorepC2Args& a) {
  const std::string cmd = "prove-porep";
  Stopwatch total;
  auto loaded = porep::load_c1_file_detailed(a.c1);
  if (!loaded) return fail(cmd, loaded.error());
  Stopwatch clock;
  auto job = porep::PorepJob::prepare(std::move(loaded->c1));
  if (!job) return fail(cmd, a.c1 + ": " + job.error());
  const double prepare_ms = clock.ms();
  const porep::PorepConfig& config = job->config();
  const ProveKey key{config.name, params::ProofFamily::kPoRep, config.sector_size, [&](const std::string& cache) {
                       return porep::load_or_record_porep_shape(config, cache, shape_cache_policy());
                     }};
  return drive_prove(cmd, a.prove, key, *job, config.name, prepare_ms, total);
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
      std::fprintf(stderr,
                   "cuzk verify-porep: note: replica_id derived from miner %llu / sector %llu differs from the C1's\n",
                   (unsigned long long)*a.miner_id, (unsigned long long)*sector_id);
  }
  auto vk = porep::load_porep_vk(**config, a.verify_params);
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
  auto* prove =
      app.add_subcommand("prove-porep", "PoRep C2: prove every partition of a C1 (Curio c1.json, raw JSON or bincode)");
  prove->add_option("--c1", a->c1, "C1 file")->required()->check(apps::InputFile);
  add_prove_flags(prove, a->prove, "concatenated partition proofs", "proof.bin");
  prove->callback([a, &exit_code] { exit_code = run_prove_porep(*a); });

  auto v = std::make_shared<PorepC2Args>();
  auto* verify =
      app.add_subcommand("verify-porep", "Verify PoRep partition proofs against the public inputs derived from a C1");
  verify->add_option("--c1", v->c1, "C1 file")->required()->check(apps::InputFile);
  verify->add_option("--params", v->verify_params, "parameter directory (the .vk is used)")->required();
  verify->add_option("--proof", v->proof, "concatenated partition proofs")->required()->check(apps::InputFile);
  verify->add_option("--miner-id", v->miner_id, "derive replica_id from this miner actor id (as verify_seal does)");
  verify->add_option("--sector-id", v->sector_id,
                     "with --miner-id: the sector number (default: the wrapper's SectorNum)");
  verify->callback([v, &exit_code] { exit_code = run_verify_porep(*v); });
}

}  // namespace cuzk::cli
