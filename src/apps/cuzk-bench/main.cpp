// cuzk-bench: drives a running cuzk-daemon. The human-readable output follows the Rust cuzk-bench
// line for line (cuzk-behaviour.md 3.2); --json prints one JSON document instead.
//
//   cuzk-bench [-a ADDR] [--json] single  -t TYPE [inputs] [--timeline FILE.svg] [--out PROOF]
//   cuzk-bench [-a ADDR] [--json] batch   -t TYPE [inputs] -c COUNT -j CONCURRENCY [--timeline FILE.svg]
//                                         [--proofs-dir DIR]
//   cuzk-bench [-a ADDR] [--json] status | metrics | preload -c ID | evict -c ID | cancel JOB_ID
//   cuzk-bench [-a ADDR] register --circuit-id ID --zkey PATH [--preload]
//   cuzk-bench gen-circuit --constraints N --out DIR [--id NAME] [--seed S]
//
// TYPE: porep | snap | wpost | winning (Filecoin; the inputs are --c1 / --vanilla and the hex
// fields; `batch` takes --c1 more than once and cycles over the files, so a run proves different
// sectors instead of replaying one input; PoSt: --vanilla FILE (a JSON array of base64
// FallbackPoStSectorProofs or one raw bincode proof) --randomness HEX [--registered-proof N|NAME,
// default wpost 13, winning 3] [--partition K] [--miner-id N]; Snap: --vanilla FILE (the JSON array
// of base64 PartitionProofs Curio keeps as snap-vproof.json) --comm-r-old HEX --comm-r-new HEX
// --comm-d-new HEX [--registered-proof N|NAME, default 3 = StackedDrg32GiBV1]) or generic
// (--circuit-id ID with --wtns FILE, sent inline, or --wtns-path PATH, read by the daemon). Exit status: 0 when every
// proof completed, 1 when any did not, 2 on usage or
#include <CLI/CLI.hpp>
#include <cstdio>

#include "apps/common/cli_parse.hpp"
#include "apps/common/input_file.hpp"
#include "apps/cuzk-bench/common.hpp"
#include "apps/cuzk-bench/gen_circuit.hpp"

int main(int argc, char** argv) {
  using namespace cuzk::bench;
  CLI::App app{"cuzk-bench: drive and measure a cuzk-daemon"};
  app.require_subcommand(1);
  Global g;
  app.add_option("-a,--addr", g.addr, "daemon address: unix:///path, host:port or http://host:port")
      ->capture_default_str();
  app.add_option("--log-level", g.log_level, "accepted for compatibility");
  app.add_option("--max-message-size", g.max_message, "gRPC message limit")->capture_default_str();
  app.add_flag("--json", g.json, "machine-readable output (one JSON document)");
  // A daemon's TCP listener with [auth] (docs/daemon.md, "Access control"): the token of
  // auth.token_file (or auth.admin_token_file for evict, register-circuit replacing, other clients'
  // cancels), and the CA that signed auth.tls_cert when TLS is on.
  app.add_option("--token-file", g.token_file, "file holding the daemon's bearer token (sent on every call)")
      ->check(cuzk::apps::InputFile);
  app.add_option("--tls-ca", g.tls_ca,
                 "PEM file of the CA that signed the daemon's auth.tls_cert (TLS to a TCP address)")
      ->check(cuzk::apps::InputFile);
  int rc = 0;

  ProofArgs single_args, batch_args;
  auto* single = app.add_subcommand("single", "prove once and print the result");
  add_proof_options(single, single_args, false);
  single->callback([&] { rc = run_single(g, single_args); });
  auto* batch = app.add_subcommand("batch", "prove --count times, --concurrency at once, and summarize");
  add_proof_options(batch, batch_args, true);
  batch->callback([&] { rc = run_batch(g, batch_args); });

  app.add_subcommand("status", "daemon status")->callback([&] { rc = run_status(g); });
  app.add_subcommand("metrics", "Prometheus metrics text")->callback([&] { rc = run_metrics(g); });
  std::string circuit;
  auto* preload = app.add_subcommand("preload", "load a proving key (SRS) now");
  preload->add_option("-c,--circuit-id", circuit, "e.g. porep-32g or a registered circuit id")->required();
  preload->callback([&] { rc = run_preload(g, circuit); });
  auto* evict = app.add_subcommand("evict", "drop a loaded proving key that no job uses");
  evict->add_option("-c,--circuit-id", circuit, "circuit id")->required();
  evict->callback([&] { rc = run_evict(g, circuit); });
  std::string job;
  auto* cancel = app.add_subcommand("cancel", "cancel a queued or running job");
  cancel->add_option("job_id", job, "job id (the request id)")->required();
  cancel->callback([&] { rc = run_cancel(g, job); });
  std::string zkey;
  bool reg_preload = false;
  auto* reg = app.add_subcommand("register", "register a snarkjs .zkey for generic proofs");
  reg->add_option("--circuit-id", circuit, "id to register it under")->required();
  reg->add_option("--zkey", zkey, ".zkey path (read by the daemon)")->required();
  reg->add_flag("--preload", reg_preload, "load it now");
  reg->callback([&] { rc = run_register(g, circuit, zkey, reg_preload); });

  std::uint32_t constraints = 0;
  std::string out_dir, gen_id = "chain";
  std::uint64_t seed = 1;
  auto* gen = app.add_subcommand("gen-circuit", "write a TEST-ONLY benchmark circuit: DIR/ID.zkey and DIR/ID.wtns");
  gen->add_option("--constraints", constraints, "number of constraints")->required();
  gen->add_option("--out", out_dir, "output directory")->required();
  gen->add_option("--id", gen_id, "file stem")->capture_default_str();
  gen->add_option("--seed", seed, "seed of the (public, test-only) toxic waste")->capture_default_str();
  gen->callback([&] {
    auto r = gen_circuit(constraints, out_dir, gen_id, seed);
    if (!r) {
      rc = usage_error(r.error());
      return;
    }
    std::printf("wrote %s and %s: %u constraints, %u variables, %.1fs\n", r->zkey.c_str(), r->wtns.c_str(),
                r->constraints, r->variables, r->seconds);
  });

  if (auto code = cuzk::apps::parse_command_line(app, argc, argv, "cuzk-bench")) return *code;
  return rc;
}
