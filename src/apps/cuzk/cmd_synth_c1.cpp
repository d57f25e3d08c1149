// `cuzk gen-c1`: writes a SYNTHETIC TEST DATA C1 (testkit::synthetic_c1) for any interactive registered
// proof — 32 GiB and 64 GiB included — in seconds, without sealing: consistent commitments and
// vanilla proofs that pass every vanilla check (verified before writing) and give satisfying
// partition witnesses, but not the C1 of any real sector. For testing and benchmarking C2.
//   cuzk gen-c1 --registered-proof StackedDrg32GiBV1_1 --sector-id 1 --miner-id 1000 --out c1.json
// --format curio (Curio / lotus-bench wrapper, default) | json (bare SealCommitPhase1Output) | bincode
// (supraseal's commit-phase1-output). Ticket and seed default to values derived from --rng-seed.
// A progress line (layers of labels, partitions of vanilla proofs, elapsed s) comes on stderr every
// --progress S seconds at most (none with --quiet).
#include <cstdio>
#include <string>

#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "apps/cuzk/progress.hpp"
#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/common/sha.hpp"
#include "filecoin/testkit/synthetic_c1.hpp"
#include "filecoin/porep/porep_job.hpp"

namespace cuzk::cli {
namespace porep = filecoin::porep;
namespace testkit = filecoin::testkit;

namespace {

struct GenC1Args {
  std::string proof = "StackedDrg32GiBV1_1", ticket, seed, out, format = "curio";
  std::uint64_t sector_id = 1, miner_id = 1000, rng_seed = 0;
  bool zero_data = false, no_check = false, quiet = false;
  double progress_s = 5;
};

const porep::PorepConfig& lookup(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 9)
    return porep::porep_config_by_id(std::uint32_t(std::stoul(s)));
  return porep::porep_config_by_name(s);
}

// A default ticket/seed: SHA-256("cuzk gen-c1 <label>" ‖ rng_seed u64 LE) (any 32 bytes are valid).
porep::Bytes32 derived(const char* label, std::uint64_t rng_seed) {
  std::string msg = std::string("cuzk gen-c1 ") + label;
  for (int i = 0; i < 8; ++i) msg.push_back(char(rng_seed >> (8 * i)));
  return filecoin::sha256({reinterpret_cast<const std::uint8_t*>(msg.data()), msg.size()});
}

Result<porep::Bytes32> hex_or_default(const std::string& what, const std::string& hex, const char* label,
                                      std::uint64_t rng_seed) {
  if (hex.empty()) return derived(label, rng_seed);
  auto b = filecoin::bytes32_from_hex(hex);
  if (!b) return Error{what + " must be 64 hex digits (32 bytes), got '" + hex + "'"};
  return *b;
}

int run_gen_c1(const GenC1Args& a) {
  const std::string cmd = "gen-c1";
  try {
    const porep::PorepConfig& cfg = lookup(a.proof);
    if (!testkit::synthetic_c1_supported(cfg))
      return fail(cmd, cfg.name +
                           ": synthetic C1s exist only for interactive (V1, V1_1) proofs: the challenges of "
                           "synthetic-PoRep and non-interactive proofs depend on comm_r");
    if (a.format != "curio" && a.format != "json" && a.format != "bincode")
      return fail(cmd, "--format must be curio, json or bincode, got '" + a.format + "'");
    testkit::SyntheticC1Options opt;
    opt.prover_id = porep::prover_id_from_actor(a.miner_id);
    opt.sector_id = a.sector_id;
    opt.rng_seed = a.rng_seed;
    opt.zero_data = a.zero_data;
    auto ticket = hex_or_default("--ticket", a.ticket, "ticket", a.rng_seed);
    if (!ticket) return fail(cmd, ticket.error());
    auto seed = hex_or_default("--seed", a.seed, "seed", a.rng_seed);
    if (!seed) return fail(cmd, seed.error());
    opt.ticket = *ticket;
    opt.seed = *seed;

    std::fprintf(stderr,
                 "cuzk gen-c1: SYNTHETIC TEST DATA — not the C1 of a sealed sector (only the challenged "
                 "paths exist); use it to test and benchmark C2 only\n");
    Stopwatch clock;
    testkit::SyntheticC1Stats stats;
    ProgressLine line("gen-c1", a.quiet ? 0 : a.progress_s);
    auto progress = [&line](const char* stage, std::size_t done, std::size_t total) {
      line("%s: %zu of %zu %s", stage, done, total, std::string_view(stage) == "labels" ? "layers" : "partitions");
    };
    const porep::C1Output c1 = testkit::synthetic_c1(cfg, opt, &stats, progress);
    const double gen_ms = clock.ms();
    double check_ms = 0;
    if (!a.no_check) {
      line("vanilla check of %zu partitions", std::size_t(cfg.partitions));
      clock = {};
      if (auto st = filecoin::porep::check_c1(c1, cfg); !st)
        return fail(cmd, "internal error: the synthetic C1 fails the vanilla checks: " + st.error());
      check_ms = clock.ms();
    }
    clock = {};
    Status st = ok_status();
    std::size_t bytes = 0;
    if (a.format == "bincode") {
      const auto bin = porep::write_c1_bincode(c1);
      bytes = bin.size();
      st = write_file(a.out, bin);
    } else {
      std::string text;
      if (a.format == "json") {
        text = porep::write_c1_json(c1);
      } else {
        porep::CurioC1 wrapped;
        wrapped.sector_num = std::int64_t(a.sector_id);
        wrapped.sector_size = cfg.sector_size;
        wrapped.c1 = c1;
        text = porep::write_curio_c1_json(wrapped);
      }
      bytes = text.size();
      st = write_file(a.out, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    }
    if (!st) return fail(cmd, st.error());
    if (!a.quiet)
      std::fprintf(stderr,
                   "cuzk gen-c1: %zu challenged nodes, %zu columns (%zu shared), tree C/R nodes %zu/%zu; generate "
                   "%.0f ms, vanilla check %s, write %.0f ms (%zu bytes)\n",
                   stats.challenged_nodes, stats.columns, stats.shared_columns, stats.tree_c_nodes, stats.tree_r_nodes,
                   gen_ms, a.no_check ? "skipped" : (std::to_string(long(check_ms)) + " ms").c_str(), clock.ms(),
                   bytes);
    std::printf("SYNTHETIC %s sector %llu comm_d=%s comm_r=%s -> %s (%s)\n", cfg.name.c_str(),
                static_cast<unsigned long long>(a.sector_id), filecoin::bytes32_hex(c1.comm_d).c_str(),
                filecoin::bytes32_hex(c1.comm_r).c_str(), a.out.c_str(), a.format.c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
}

}  // namespace

void register_gen_c1(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<GenC1Args>();
  auto* cmd = app.add_subcommand("gen-c1",
                                 "Write a SYNTHETIC TEST DATA C1 (any interactive proof, 32/64 GiB included) "
                                 "without sealing, for testing and benchmarking C2");
  cmd->add_option("--registered-proof", a->proof, "registered proof name or id (default StackedDrg32GiBV1_1)");
  cmd->add_option("--sector-id", a->sector_id, "sector number (default 1)");
  cmd->add_option("--miner-id", a->miner_id, "miner actor id; prover id = its address payload (default 1000)");
  cmd->add_option("--ticket", a->ticket, "sealing randomness, 64 hex digits (default: derived from --rng-seed)");
  cmd->add_option("--seed", a->seed, "interactive randomness, 64 hex digits (default: derived from --rng-seed)");
  cmd->add_option("--rng-seed", a->rng_seed, "seed of everything pseudo-random (default 0)");
  cmd->add_flag("--zero-data", a->zero_data, "all-zero data (a committed-capacity sector) instead of random data");
  cmd->add_option("--out", a->out, "output file")->required();
  cmd->add_option("--format", a->format, "curio (wrapper JSON, default), json (bare C1) or bincode");
  cmd->add_flag("--no-check", a->no_check, "skip the vanilla self-check before writing");
  cmd->add_flag("-q,--quiet", a->quiet, "no statistics or progress line");
  add_progress_option(cmd, a->progress_s);
  add_threads_option(cmd);
  cmd->callback([a, &exit_code] { exit_code = run_gen_c1(*a); });
}

}  // namespace cuzk::cli
