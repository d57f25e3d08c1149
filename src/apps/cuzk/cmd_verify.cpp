// cuzk verify: checks a Groth16 proof. Prints OK (exit 0) or INVALID (exit 1); unreadable or
// malformed inputs are errors (exit 2).
//   snarkjs:    --vk verification_key.json --proof proof.json --public public.json
//   bellperson: --vk C.vk --proof proof.bin (192 bytes per partition) --public public.json
//               (one partition) or --inputs inputs.json (an array of input arrays, one per partition)
#include <cstdio>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "apps/cuzk/vk_loader.hpp"
#include "formats/snarkjs_json.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::cli {
namespace {

struct VerifyArgs {
  std::string vk, proof, pub, inputs;
};

Result<std::vector<groth16::Proof>> load_proofs(const std::string& path) {
  if (ends_with(path, ".json")) {
    auto p = formats::read_proof_json(path);
    if (!p) return Error{p.error()};
    return std::vector<groth16::Proof>{*p};
  }
  auto bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};
  auto proofs = groth16::split_proofs(*bytes);
  if (!proofs) return Error{path + ": " + proofs.error()};
  return proofs;
}

int run_verify(const VerifyArgs& args) {
  const std::string cmd = "verify";
  auto vk = load_verifying_key(args.vk);
  if (!vk) return fail(cmd, vk.error());
  auto proofs = load_proofs(args.proof);
  if (!proofs) return fail(cmd, proofs.error());
  std::vector<std::vector<math::Fr>> inputs;
  if (!args.pub.empty()) {
    auto pub = formats::read_public_json(args.pub);
    if (!pub) return fail(cmd, pub.error());
    inputs.push_back(std::move(*pub));
  } else {
    auto per_partition = read_partition_inputs_json(args.inputs);
    if (!per_partition) return fail(cmd, per_partition.error());
    inputs = std::move(*per_partition);
  }
  if (inputs.size() != proofs->size()) {
    return fail(cmd, args.proof + " holds " + std::to_string(proofs->size()) + " partition proof(s) but " +
                         std::to_string(inputs.size()) + " input vector(s) were given");
  }
  for (std::size_t k = 0; k < proofs->size(); ++k) {
    auto ok = groth16::verify(*vk, inputs[k], (*proofs)[k]);
    if (!ok) return fail(cmd, (proofs->size() > 1 ? "partition " + std::to_string(k) + ": " : "") + ok.error());
    if (!*ok) {
      std::printf("INVALID%s\n", proofs->size() > 1 ? (" (partition " + std::to_string(k) + ")").c_str() : "");
      return kExitInvalid;
    }
  }
  std::printf("OK\n");
  return kExitOk;
}

}  // namespace

void register_verify(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<VerifyArgs>();
  auto* sub = app.add_subcommand("verify", "Verify a proof: --vk V --proof P (--public J | --inputs I)");
  sub->add_option("--vk", args->vk, "verification_key.json (snarkjs) or .vk (bellperson)")
      ->required()
      ->check(apps::InputFile);
  sub->add_option("--proof", args->proof, "proof.json (snarkjs) or binary proof (192 bytes per partition)")
      ->required()
      ->check(apps::InputFile);
  auto* pub =
      sub->add_option("--public", args->pub, "public.json: the public inputs (one partition)")->check(apps::InputFile);
  auto* inp = sub->add_option("--inputs", args->inputs, "inputs.json: [[...partition 0...], [...], ...]")
                  ->check(apps::InputFile);
  pub->excludes(inp);
  sub->callback([args, &exit_code, sub] {
    if (args->pub.empty() && args->inputs.empty()) {
      exit_code = fail("verify", "one of --public or --inputs is required");
      return;
    }
    exit_code = run_verify(*args);
  });
}

}  // namespace cuzk::cli
