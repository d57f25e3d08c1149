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
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/post_common.hpp"
#include "filecoin/common/vanilla_file.hpp"
#include "filecoin/post/vanilla_check.hpp"
#include "filecoin/testkit/post_vanilla.hpp"

namespace cuzk::cli {
namespace post = filecoin::post;
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
  const std::string cmd = std::string("gen-vanilla ") + (kind == post::PostType::kWinning ? "winning-post" : "window-post");
  try {
    auto req = parse_post_options(a.post);
    if (!req) return fail(cmd, req.error());
    const post::PostConfig& config = *req->config;
    if (config.type != kind)
      return fail(cmd, "--registered-proof " + config.name + " is a " + config.kind_name() + " proof");
    if (a.sector_dirs.empty() == (a.synthetic == 0)) return fail(cmd, "give --sector DIR (one or more) or --synthetic N");
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

}  // namespace

void register_gen_vanilla(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("gen-vanilla",
                                 "PoSt vanilla proofs from `cuzk seal` sectors, or SYNTHETIC TEST DATA sectors of any size");
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
}

}  // namespace cuzk::cli
