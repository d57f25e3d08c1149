// The prove-* commands (prove-porep, prove-post, prove-snap) written once over
// filecoin::PartitionedJob. A family's command does only what is its own: parse its request and make
// its job (vanilla proofs decoded and checked before any key is touched: a failure is one line
// naming what, exit 2), and say where its key is (ProveKey). The driver then runs the same steps for
// every family:
//
//   1. the backend (before the key: "cuda" on a machine without one fails in milliseconds)
//   2. the key's official file names in --params DIR (or a TEST-ONLY key from --test-key-seed)
//   3. the shape, cached as "<params>.shape" beside the key, and job.check_key(shape)
//   4. the key, and its device copy, made once for every partition and --repeat
//   5. every partition synthesized, proved and self-verified (filecoin::prove_job), one progress
//      line each on stderr
//   6. the 192 x P bytes written (atomically), and one summary line
//
// The flags every prove-* takes (ProveFlags, add_prove_flags): --params, --test-key-seed, --out,
// --backend, --no-self-verify, --repeat, -q, --threads.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "apps/common/device_backends.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "base/result.hpp"
#include "filecoin/common/partitioned_job.hpp"
#include "filecoin/common/shape_cache.hpp"
#include "filecoin/params/param_files.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::cli {

struct ProveFlags {
  std::string params_dir, out;
  std::string backend = "auto";
  bool no_self_verify = false, quiet = false;
  std::optional<std::uint64_t> test_key_seed;  // TEST-ONLY in-memory key instead of --params
  std::uint32_t repeat = 1;
};
// `out_default`: the --out file when not given ("" = required).
void add_prove_flags(CLI::App* sub, ProveFlags& f, const std::string& out_help, const std::string& out_default = "");

// Where a family's key is and how its shape is made.
struct ProveKey {
  std::string label;  // the registered proof as the messages name it
  filecoin::params::ProofFamily family;
  std::uint64_t sector_size = 0;
  std::function<filecoin::ShapeLoad(const std::string& cache_path)> shape;  // load or record ("" = no cache)
};

// The key a prove-* command proves with: the .params at `paths`, or (no paths) a TEST-ONLY key made in
// memory from `test_key_seed` (for a host whose disk cannot hold the .params; the self-check uses its
// vk), announced on stderr as "cuzk TOOL: TEST-ONLY key ...".
Result<groth16::ProvingKey> command_proving_key(const std::string& tool,
                                                const std::optional<filecoin::params::ParamPaths>& paths,
                                                const groth16::R1csShape& shape,
                                                std::optional<std::uint64_t> test_key_seed);

// Steps 1-4: what every job needs before its first partition. Held by pointer: the bound backend's
// copy refers to the shape and the key, which must not move.
struct ProveSetup {
  engine::BackendKind backend{};
  std::unique_ptr<groth16::Backend> bound;  // the backend with the key's copy
  groth16::R1csShape shape;
  groth16::ProvingKey key;
  std::string shape_source;
  double shape_ms = 0, key_ms = 0;
};
Result<std::unique_ptr<ProveSetup>> prove_setup(const std::string& cmd, const ProveFlags& f, const ProveKey& k,
                                                const std::function<Status(const groth16::R1csShape&)>& check_key);
// Step 6.
Status write_proofs(const std::string& out, std::span<const groth16::Proof> proofs);

template <filecoin::PartitionedJob Job>
int drive_prove(const std::string& cmd, const ProveFlags& f, const ProveKey& k, const Job& job, const std::string& what,
                double prepare_ms, const Stopwatch& total) {
  auto made = prove_setup(cmd, f, k, [&](const groth16::R1csShape& s) { return job.check_key(s); });
  if (!made) return fail(cmd, made.error());
  const auto& setup = *made;
  const std::string out = f.out;
  if (!f.quiet)
    std::fprintf(stderr,
                 "cuzk %s: %s, %u partition(s); vanilla checks %.0f ms, shape %.0f ms (%s), key %.0f ms; backend %s\n",
                 cmd.c_str(), what.c_str(), job.partitions(), prepare_ms, setup->shape_ms, setup->shape_source.c_str(),
                 setup->key_ms, engine::backend_name(setup->backend));
  filecoin::PartitionProveOptions opt;
  opt.self_verify = !f.no_self_verify;
  opt.on_partition = [&](std::size_t p, const filecoin::PartitionTiming& t) {
    if (!f.quiet)
      std::fprintf(stderr, "cuzk %s: partition %zu: synthesis %.0f ms, prove %.0f ms, verify %.0f ms\n", cmd.c_str(), p,
                   t.synth_ms, t.prove_ms, t.verify_ms);
  };
  for (std::uint32_t rep = 0; rep < f.repeat; ++rep) {  // --repeat: the key stays on the device after the first
    Stopwatch each;
    auto proofs = filecoin::prove_job(job, setup->shape, setup->key, *setup->bound, opt);
    if (!proofs) return fail(cmd, proofs.error());
    if (auto st = write_proofs(out, *proofs); !st) return fail(cmd, st.error());
    if (!f.quiet)
      std::fprintf(stderr, "cuzk %s: wrote %s (%zu bytes = %zu x %zu)%s in %.2f s\n", cmd.c_str(), out.c_str(),
                   proofs->size() * groth16::kProofBytes, proofs->size(), groth16::kProofBytes,
                   opt.self_verify ? ", every partition self-verified" : "",
                   (rep == 0 ? total.ms() : each.ms()) / 1000);
  }
  return kExitOk;
}

}  // namespace cuzk::cli
