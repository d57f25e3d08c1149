// `cuzk seal`: seals a small test sector (2 KiB / 8 MiB / 512 MiB) in memory and writes what a
// sealing pipeline would hand to C2:
//   DIR/sealed     the replica (sector_size bytes: label_L + data per node, 32-byte LE elements)
//   DIR/comm.json  {registered_proof, comm_d, comm_r, comm_c, comm_r_last, replica_id, the inputs} (hex)
//   DIR/c1.json    the C1 as Curio / lotus-bench's wrapper {"SectorNum","Phase1Out","SectorSize"}
//                  (--c1-format json: the bare SealCommitPhase1Output JSON instead)
// The C1 passes the vanilla checks (porep::check_c1) before it is written. --verbose prints one line
// per sealing phase on stderr; without it a progress line (the phase done, or the labels' layer and
// share of its nodes, elapsed s) comes every --progress S seconds at most (a 512 MiB seal takes minutes).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "apps/cuzk/progress.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/testkit/fr32.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/testkit/seal.hpp"
#include "filecoin/testkit/vanilla.hpp"
#include "filecoin/porep/porep_job.hpp"

namespace cuzk::cli {
namespace porep = filecoin::porep;
namespace testkit = filecoin::testkit;

namespace {

struct SealArgs {
  std::string proof = "StackedDrg2KiBV1_1", sector_size, data_file, ticket, seed, prover_id, out_dir;
  std::string c1_format = "curio";
  bool random = false, verbose = false;
  std::uint64_t rng_seed = 0, sector_id = 1;
  std::optional<std::uint64_t> miner_id;
  double progress_s = 5;
};

const porep::PorepConfig& lookup_proof(const SealArgs& a) {
  if (!a.sector_size.empty()) {
    for (const auto& c : porep::all_porep_configs())
      if (c.name == "StackedDrg" + a.sector_size + "V1_1") return c;
    throw std::invalid_argument("--sector-size must be 2KiB, 8MiB, 512MiB, 32GiB or 64GiB, got '" + a.sector_size +
                                "'");
  }
  const std::string& s = a.proof;
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 9)
    return porep::porep_config_by_id(std::uint32_t(std::stoul(s)));
  return porep::porep_config_by_name(s);
}

Result<porep::Bytes32> parse_hex32(const std::string& what, const std::string& hex) {
  auto b = filecoin::bytes32_from_hex(hex);
  if (!b) return Error{what + " must be 64 hex digits (32 bytes), got '" + hex + "'"};
  return *b;
}

// The replica streamed to disk in chunks (no second sector-sized buffer).
Status write_replica(const std::string& path, const testkit::SealedSector& s) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const auto leaves = s.tree_r.leaves();
  std::vector<std::uint8_t> buf;
  for (std::size_t i = 0; i < leaves.size(); i += 1 << 15) {
    const std::size_t n = std::min<std::size_t>(1 << 15, leaves.size() - i);
    buf.resize(32 * n);
    for (std::size_t k = 0; k < n; ++k) leaves[i + k].to_bytes_le({buf.data() + 32 * k, 32});
    out.write(reinterpret_cast<const char*>(buf.data()), std::streamsize(buf.size()));
  }
  out.close();
  if (!out) return Error{path + ": cannot write"};
  return ok_status();
}

std::string comm_json(const SealArgs& a, const testkit::SealedSector& s, const porep::Bytes32& seed) {
  auto q = [](const std::string& v) { return "\"" + v + "\""; };
  std::string j = "{\n";
  j += "  \"registered_proof\": " + q(s.config.name) + ",\n";
  j += "  \"sector_size\": " + std::to_string(s.config.sector_size) + ",\n";
  j += "  \"comm_d\": " + q(filecoin::bytes32_hex(s.comm_d)) + ",\n";
  j += "  \"comm_r\": " + q(filecoin::bytes32_hex(s.comm_r)) + ",\n";
  j += "  \"comm_c\": " + q(filecoin::bytes32_hex(s.comm_c)) + ",\n";
  j += "  \"comm_r_last\": " + q(filecoin::bytes32_hex(s.comm_r_last)) + ",\n";
  j += "  \"replica_id\": " + q(filecoin::bytes32_hex(s.replica_id)) + ",\n";
  j += "  \"prover_id\": " + q(filecoin::bytes32_hex(s.prover_id)) + ",\n";
  if (a.miner_id) j += "  \"miner_id\": " + std::to_string(*a.miner_id) + ",\n";
  j += "  \"sector_id\": " + std::to_string(s.sector_id) + ",\n";
  j += "  \"ticket\": " + q(filecoin::bytes32_hex(s.ticket)) + ",\n";
  j += "  \"seed\": " + q(filecoin::bytes32_hex(seed)) + ",\n";
  j += "  \"data\": " + q(a.random ? "random:" + std::to_string(a.rng_seed) : a.data_file) + "\n";
  j += "}\n";
  return j;
}

int run_seal(SealArgs a) {
  const std::string cmd = "seal";
  try {
    const porep::PorepConfig& cfg = lookup_proof(a);
    testkit::require_in_memory_sealable(cfg);
    if (a.random == !a.data_file.empty()) return fail(cmd, "give exactly one of --data FILE and --random");
    if (a.c1_format != "curio" && a.c1_format != "json") return fail(cmd, "--c1-format must be curio or json");
    testkit::SealInputs in;
    auto ticket = parse_hex32("--ticket", a.ticket);
    if (!ticket) return fail(cmd, ticket.error());
    auto seed = parse_hex32("--seed", a.seed);
    if (!seed) return fail(cmd, seed.error());
    in.ticket = *ticket;
    in.seed = *seed;
    if (!a.prover_id.empty()) {
      auto p = parse_hex32("--prover-id", a.prover_id);
      if (!p) return fail(cmd, p.error());
      in.prover_id = *p;
    } else {
      if (!a.miner_id) a.miner_id = 1000;  // t01000, the usual devnet miner
      in.prover_id = porep::prover_id_from_actor(*a.miner_id);
    }
    in.sector_id = a.sector_id;
    if (a.random) {
      in.data = testkit::random_unpadded_data(cfg, a.rng_seed);
    } else {
      auto bytes = read_file(a.data_file);
      if (!bytes) return fail(cmd, bytes.error());
      if (bytes->size() > testkit::unpadded_size(cfg.sector_size))
        return fail(cmd, a.data_file + ": " + std::to_string(bytes->size()) + " bytes, more than the " +
                             std::to_string(testkit::unpadded_size(cfg.sector_size)) + " unpadded bytes of " +
                             cfg.name);
      in.data = std::move(*bytes);
    }
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec) return fail(cmd, a.out_dir + ": cannot create directory: " + ec.message());

    Stopwatch total;
    ProgressLine line("seal", a.verbose ? 0 : a.progress_s);  // --verbose has a line per phase already
    auto progress = [&a, &line](const testkit::PhaseTiming& t) {
      if (a.verbose) std::fprintf(stderr, "cuzk seal: %-14s %9.3f s\n", t.phase.c_str(), t.seconds);
      line("%s done", t.phase.c_str());
    };
    auto layers = [&line, &cfg](std::size_t layer, std::uint64_t done) {
      line("labels: layer %zu of %zu, %.0f%% of its %llu nodes", layer, std::size_t(cfg.layers),
           100.0 * double(done) / double(cfg.nodes), static_cast<unsigned long long>(cfg.nodes));
    };
    const testkit::SealedSector s = testkit::seal(cfg, in, progress, layers);
    in.data = {};
    Stopwatch clock;
    const porep::C1Output c1 = testkit::commit_phase1(s, in.seed);
    const double c1_ms = clock.ms();
    clock = {};
    if (auto st = filecoin::porep::check_c1(c1, cfg); !st)
      return fail(cmd, "internal error: the C1 fails the vanilla checks: " + st.error());
    const double verify_ms = clock.ms();
    if (a.verbose) {
      std::fprintf(stderr, "cuzk seal: %-14s %9.3f s\n", "vanilla proofs", c1_ms / 1000);
      std::fprintf(stderr, "cuzk seal: %-14s %9.3f s\n", "vanilla check", verify_ms / 1000);
    }

    clock = {};
    const std::string dir = a.out_dir + "/";
    if (auto st = write_replica(dir + "sealed", s); !st) return fail(cmd, st.error());
    const std::string comm = comm_json(a, s, in.seed);
    if (auto st = write_file(dir + "comm.json", {reinterpret_cast<const std::uint8_t*>(comm.data()), comm.size()}); !st)
      return fail(cmd, st.error());
    std::string c1_text;
    if (a.c1_format == "json") {
      c1_text = porep::write_c1_json(c1);
    } else {
      porep::CurioC1 wrapped;
      wrapped.sector_num = std::int64_t(s.sector_id);
      wrapped.sector_size = cfg.sector_size;
      wrapped.c1 = c1;
      c1_text = porep::write_curio_c1_json(wrapped);
    }
    if (auto st = write_file(dir + "c1.json", {reinterpret_cast<const std::uint8_t*>(c1_text.data()), c1_text.size()});
        !st)
      return fail(cmd, st.error());
    if (a.verbose) {
      std::fprintf(stderr, "cuzk seal: %-14s %9.3f s\n", "write", clock.ms() / 1000);
      std::fprintf(stderr, "cuzk seal: %-14s %9.3f s\n", "total", total.ms() / 1000);
    }
    std::printf("%s comm_d=%s comm_r=%s -> %s\n", cfg.name.c_str(), filecoin::bytes32_hex(s.comm_d).c_str(),
                filecoin::bytes32_hex(s.comm_r).c_str(), a.out_dir.c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
}

}  // namespace

void register_seal(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<SealArgs>();
  auto* cmd = app.add_subcommand("seal", "Seal a small test sector (SDR) and write the replica, commitments and C1");
  auto* proof =
      cmd->add_option("--registered-proof", a->proof, "registered proof name or id 0-19 (default StackedDrg2KiBV1_1)");
  cmd->add_option("--sector-size", a->sector_size, "shorthand for StackedDrg<SIZE>V1_1: 2KiB, 8MiB or 512MiB")
      ->excludes(proof);
  auto* data = cmd->add_option("--data", a->data_file, "unpadded sector content (shorter files are zero-filled)")
                   ->check(apps::InputFile);
  cmd->add_flag("--random", a->random, "pseudo-random sector content instead of --data")->excludes(data);
  cmd->add_option("--rng-seed", a->rng_seed, "seed of the --random content (default 0)");
  cmd->add_option("--ticket", a->ticket, "sealing randomness, 64 hex digits")->required();
  cmd->add_option("--seed", a->seed, "interactive randomness, 64 hex digits")->required();
  auto* prover = cmd->add_option("--prover-id", a->prover_id, "prover id, 64 hex digits");
  cmd->add_option("--miner-id", a->miner_id, "prover id from this miner actor id (default 1000)")->excludes(prover);
  cmd->add_option("--sector-id", a->sector_id, "sector number (default 1)");
  cmd->add_option("--out", a->out_dir, "output directory (sealed, comm.json, c1.json)")->required();
  cmd->add_option("--c1-format", a->c1_format, "c1.json form: curio (wrapper, default) or json (bare C1)");
  cmd->add_flag("-v,--verbose", a->verbose, "print the time of each sealing phase on stderr");
  add_progress_option(cmd, a->progress_s);
  add_threads_option(cmd);
  cmd->callback([a, &exit_code] { exit_code = run_seal(*a); });
}

}  // namespace cuzk::cli
