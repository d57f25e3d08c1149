// `cuzk gen-vanilla window-post|winning-post`: PoSt vanilla proofs (one bincode
// FallbackPoStSectorProof per sector) as a JSON array of base64 strings — what Curio sends and the
// Rust `cuzk-bench --vanilla` reads — or, with --raw and one sector, the bincode itself:
//   --sector DIR [--sector DIR…]   sectors sealed by `cuzk seal` (DIR/sealed, DIR/comm.json): tree R
//                                  rebuilt from the replica, the challenged leaves opened
//   --synthetic N [--first-sector-id S] [--rng-seed X]
//                                  SYNTHETIC TEST DATA at any size (32/64 GiB included): N sectors of
//                                  which only the challenged paths exist (testkit/post_vanilla.hpp)
// with --registered-proof NAME --miner-id N --randomness HEX [--partition K] -o FILE. Sectors are
// written in ascending id order (the order the verifier requires); sector i of partition K is
// challenged at sector index K·sector_count + i. The output passes the vanilla checks
// (post::check_vanilla_proofs) before it is written.
//
// `cuzk gen-vanilla snap`: the P SnapDeals PartitionProofs (k order) as a JSON array of base64
// bincode (Curio's snap-vproof.json form):
//   --sector DIR --updated DIR2    a `cuzk seal` folder and its `cuzk snap-encode` folder: the old
//                                  replica (DIR/sealed) and the data (DIR2/data) re-encoded, every
//                                  commitment of DIR/comm.json and DIR2/comm.json checked
//   --synthetic --update-proof NAME [--seed N] [--poseidon]
//                                  STRUCTURED SYNTHETIC TEST DATA of any size (testkit::synthetic_snap_vanilla)
// with -o FILE [--comm-out FILE] (a JSON object {comm_r_old, comm_r_new, comm_d_new}, hex). The three
// commitments are printed on stdout; the proofs pass snap::check_partition_proofs before they are written.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/post_common.hpp"
#include "apps/cuzk/snap_common.hpp"
#include "filecoin/common/vanilla_file.hpp"
#include "filecoin/post/vanilla_check.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/snap/vanilla_check.hpp"
#include "filecoin/testkit/post_vanilla.hpp"
#include "filecoin/testkit/snap_vanilla.hpp"

namespace cuzk::cli {
namespace post = filecoin::post;
namespace snap = filecoin::snap;
namespace testkit = filecoin::testkit;

namespace {

struct GenArgs {
  PostOptions post;
  std::vector<std::string> sector_dirs;
  std::size_t synthetic = 0;
  std::uint64_t first_sector_id = 1, rng_seed = 0;
  std::string out;
  bool raw = false;
};

int run_gen(const GenArgs& a, post::PostType kind) {
  const std::string cmd =
      std::string("gen-vanilla ") + (kind == post::PostType::kWinning ? "winning-post" : "window-post");
  try {
    auto req = parse_post_options(a.post);
    if (!req) return fail(cmd, req.error());
    const post::PostConfig& config = *req->config;
    if (config.type != kind)
      return fail(cmd, "--registered-proof " + config.name + " is a " + config.kind_name() + " proof");
    if (a.sector_dirs.empty() == (a.synthetic == 0))
      return fail(cmd, "give --sector DIR (one or more) or --synthetic N");
    const std::size_t count = a.synthetic ? a.synthetic : a.sector_dirs.size();
    const std::size_t limit = kind == post::PostType::kWinning ? 1 : config.sector_count;
    if (count > limit)
      return fail(cmd, std::to_string(count) + " sectors, one " + config.name + " partition proves " +
                           (kind == post::PostType::kWinning ? "exactly one" : "at most " + std::to_string(limit)));
    if (a.raw && count != 1) return fail(cmd, "--raw writes one sector's bincode; give one sector");

    Stopwatch clock;
    std::vector<post::FallbackPostSectorProof> proofs;
    if (a.synthetic) {
      std::fprintf(stderr,
                   "cuzk %s: SYNTHETIC TEST DATA: %zu synthetic %s sectors (ids %llu..), not real sectors; for "
                   "tests and benchmarks only\n",
                   cmd.c_str(), count, config.name.c_str(), (unsigned long long)a.first_sector_id);
      proofs = testkit::synthetic_post_vanilla(config, count, req->randomness, req->partition, a.first_sector_id,
                                               a.rng_seed);
    } else {
      std::vector<testkit::PostSector> sectors;
      for (const std::string& dir : a.sector_dirs) {
        auto s = testkit::load_sealed_sector(dir, config);
        if (!s) return fail(cmd, s.error());
        sectors.push_back(std::move(*s));
      }
      std::sort(sectors.begin(), sectors.end(), [](const auto& x, const auto& y) { return x.sector_id < y.sector_id; });
      for (std::size_t i = 1; i < sectors.size(); ++i)
        if (sectors[i].sector_id == sectors[i - 1].sector_id)
          return fail(cmd, "sector " + std::to_string(sectors[i].sector_id) + " given twice");
      for (std::size_t i = 0; i < sectors.size(); ++i) {
        const std::uint64_t sector_index =
            kind == post::PostType::kWinning ? 0 : std::uint64_t(req->partition) * config.sector_count + i;
        proofs.push_back(testkit::post_vanilla_proof(config, sectors[i], req->randomness, sector_index));
      }
    }
    const double gen_ms = clock.ms();
    clock = {};
    if (auto ok = post::check_vanilla_proofs(config, req->randomness, req->partition, proofs); !ok)
      return fail(cmd, "internal error: the vanilla proofs fail the checks: " + ok.error());
    const double check_ms = clock.ms();
    std::vector<std::vector<std::uint8_t>> blobs;
    blobs.reserve(proofs.size());
    for (const auto& p : proofs) blobs.push_back(post::write_sector_proof(p));
    Status st = ok_status();
    if (a.raw) {
      st = write_file(a.out, blobs[0]);
    } else {
      const std::string json = filecoin::write_vanilla_json(blobs);
      st = write_file(a.out, {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
    }
    if (!st) return fail(cmd, st.error());
    std::fprintf(stderr, "cuzk %s: %zu sector proofs (%zu bytes each) in %.0f ms, checked in %.0f ms -> %s\n",
                 cmd.c_str(), blobs.size(), blobs[0].size(), gen_ms, check_ms, a.out.c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
}

struct SnapGenArgs {
  UpdateOptions update;
  std::string sector_dir, updated_dir, out, comm_out;
  bool synthetic = false;
  std::uint64_t seed = 0;
};

int run_gen_snap(const SnapGenArgs& a) {
  const std::string cmd = "gen-vanilla snap";
  try {
    if (a.synthetic == !(a.sector_dir.empty() && a.updated_dir.empty()))
      return fail(cmd, "give --sector DIR --updated DIR2, or --synthetic --update-proof NAME");
    Stopwatch clock;
    snap::SnapGeometry g;
    snap::SnapCommitments comms;
    std::vector<snap::PartitionProof> proofs;
    if (a.synthetic) {
      if (a.update.proof.empty()) return fail(cmd, "--synthetic needs --update-proof NAME");
      auto req = parse_update_options(a.update, false);
      if (!req) return fail(cmd, req.error());
      g = req->geometry;
      std::fprintf(stderr,
                   "cuzk %s: SYNTHETIC TEST DATA: a structured synthetic %s%s update (seed %llu), not a real sector; "
                   "for tests and benchmarks only\n",
                   cmd.c_str(), req->config->name.c_str(), a.update.poseidon ? " (Poseidon variant)" : "",
                   (unsigned long long)a.seed);
      auto syn = testkit::synthetic_snap_vanilla(g, a.seed);
      comms = syn.comms;
      proofs = std::move(syn.partitions);
    } else {
      if (a.sector_dir.empty() || a.updated_dir.empty()) return fail(cmd, "give both --sector DIR and --updated DIR2");
      if (a.update.poseidon)
        return fail(cmd, "--poseidon: only with --synthetic (the Poseidon variant has no SHA-256 tree D)");
      auto sealed = load_sealed_folder(a.sector_dir);
      if (!sealed) return fail(cmd, sealed.error());
      if (!a.update.proof.empty()) {
        auto req = parse_update_options(a.update, false);
        if (!req) return fail(cmd, req.error());
        if (req->config != sealed->config)
          return fail(cmd, "--update-proof " + req->config->name + ": the sector in " + a.sector_dir + " is a " +
                               sealed->config->name + " sector");
      }
      g = sealed->config->geometry;
      auto data = read_nodes(a.updated_dir + "/data", g.nodes);
      if (!data) return fail(cmd, data.error());
      auto s = encode_checked(a.sector_dir, *sealed, *data);
      if (!s) return fail(cmd, s.error());
      if (auto st = check_updated_comm(a.updated_dir, *s, *sealed->config); !st) return fail(cmd, st.error());
      comms = s->commitments();
      for (std::size_t k = 0; k < g.partitions; ++k) proofs.push_back(testkit::snap_partition_proof(*s, k));
    }
    const double gen_ms = clock.ms();
    clock = {};
    auto pub = snap::check_commitments(comms);
    if (!pub) return fail(cmd, "internal error: " + pub.error());
    if (auto ok = snap::check_partition_proofs(g, *pub, proofs); !ok)
      return fail(cmd, "internal error: the partition proofs fail the checks: " + ok.error());
    const double check_ms = clock.ms();
    std::vector<std::vector<std::uint8_t>> blobs;
    for (const auto& p : proofs) blobs.push_back(snap::write_partition_proof(p, g.variant));
    const std::string json = filecoin::write_vanilla_json(blobs);
    if (auto st = write_file(a.out, {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()}); !st)
      return fail(cmd, st.error());
    if (!a.comm_out.empty()) {
      const std::string cj = comms_json(comms);
      if (auto st = write_file(a.comm_out, {reinterpret_cast<const std::uint8_t*>(cj.data()), cj.size()}); !st)
        return fail(cmd, st.error());
    }
    if (a.synthetic) std::printf("# SYNTHETIC TEST DATA\n");
    print_comms(stdout, comms);
    std::fprintf(stderr, "cuzk %s: %zu partition proofs (%zu bytes each) in %.0f ms, checked in %.0f ms -> %s\n",
                 cmd.c_str(), blobs.size(), blobs[0].size(), gen_ms, check_ms, a.out.c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
}

}  // namespace

void register_gen_vanilla(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "gen-vanilla", "PoSt / SnapDeals vanilla proofs from `cuzk seal` sectors, or SYNTHETIC TEST DATA of any size");
  cmd->require_subcommand(1);
  for (post::PostType kind : {post::PostType::kWindow, post::PostType::kWinning}) {
    auto a = std::make_shared<GenArgs>();
    const bool winning = kind == post::PostType::kWinning;
    auto* sub = cmd->add_subcommand(winning ? "winning-post" : "window-post",
                                    winning ? "WinningPoSt: one sector, 66 challenges"
                                            : "WindowPoSt partition: up to sector_count sectors, 10 challenges each");
    add_post_options(sub, a->post, !winning);
    auto* dirs = sub->add_option("--sector", a->sector_dirs, "a `cuzk seal` output folder (repeat for more sectors)")
                     ->check(CLI::ExistingDirectory);
    sub->add_option("--synthetic", a->synthetic, "N SYNTHETIC TEST DATA sectors instead of --sector")
        ->excludes(dirs)
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 20));
    sub->add_option("--first-sector-id", a->first_sector_id, "with --synthetic: the first sector id (default 1)");
    sub->add_option("--rng-seed", a->rng_seed, "with --synthetic: seed of every synthetic value (default 0)");
    sub->add_option("-o,--out", a->out, "output file")->required();
    sub->add_flag("--raw", a->raw, "write the one sector's bincode FallbackPoStSectorProof instead of JSON");
    add_threads_option(sub);
    sub->callback([a, kind, &exit_code] { exit_code = run_gen(*a, kind); });
  }
  auto s = std::make_shared<SnapGenArgs>();
  auto* sub =
      cmd->add_subcommand("snap", "SnapDeals: the P PartitionProofs of an update (snap-encode folders, or SYNTHETIC)");
  sub->add_option("--sector", s->sector_dir, "the `cuzk seal` folder (sealed, comm.json)")
      ->check(CLI::ExistingDirectory);
  sub->add_option("--updated", s->updated_dir, "its `cuzk snap-encode` folder (data, comm.json)")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--synthetic", s->synthetic,
                "STRUCTURED SYNTHETIC TEST DATA of --update-proof's size instead of folders");
  sub->add_option(
      "--update-proof", s->update.proof,
      "registered update proof StackedDrg2KiBV1 ... StackedDrg64GiBV1 or code 0-4 (needed with --synthetic)");
  add_poseidon_flag(sub, s->update);
  sub->add_option("--seed", s->seed, "with --synthetic: seed of every synthetic value (default 0)");
  sub->add_option("-o,--out", s->out, "output file (JSON array of base64 bincode PartitionProofs)")->required();
  sub->add_option("--comm-out", s->comm_out, "also write {comm_r_old, comm_r_new, comm_d_new} (hex) as JSON here");
  add_threads_option(sub);
  sub->callback([s, &exit_code] { exit_code = run_gen_snap(*s); });
}

}  // namespace cuzk::cli
