// cuzk prove: a Groth16 proof on the CPU backend, self-verified before it is written.
//   snarkjs:    --zkey Z --wtns W [--r1cs R] --proof proof.json --public public.json [--proof-bin P]
//   bellperson: --params C.params --r1cs C.r1cs --wtns W --out proof.bin [--public public.json]
#include <cstdio>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::cli {
namespace {

struct ProveArgs {
  std::string zkey, params, wtns, r1cs, proof_json, pub, proof_bin;
  bool self_verify = true;
};

// What both key sources produce: a shape, a key and the circuit's public-input count.
struct Loaded {
  groth16::R1csShape shape;
  groth16::ProvingKey pk;
  std::size_t n_public = 0;  // excluding ONE
};

Result<Loaded> load_zkey(const ProveArgs& args, std::span<const math::Fr> w) {
  auto zkey = formats::read_zkey(args.zkey);
  if (!zkey) return Error{zkey.error()};
  if (w.size() != zkey->n_vars) {
    return Error{args.wtns + ": witness has " + std::to_string(w.size()) + " values but " + args.zkey +
                 " is for a circuit of " + std::to_string(zkey->n_vars) + " variables"};
  }
  if (!args.r1cs.empty()) {
    // With the .r1cs at hand, name the first violated constraint instead of relying on self-verify.
    auto r1cs = formats::read_r1cs(args.r1cs);
    if (!r1cs) return Error{r1cs.error()};
    const auto& h = r1cs->header;
    if (h.n_wires != zkey->n_vars || h.n_public() != zkey->n_public || h.n_constraints != zkey->n_constraints) {
      return Error{args.zkey + " does not belong to " + args.r1cs + ": zkey has " + std::to_string(zkey->n_vars) +
                   " variables, " + std::to_string(zkey->n_public) + " public, " + std::to_string(zkey->n_constraints) +
                   " constraints; r1cs has " + std::to_string(h.n_wires) + ", " + std::to_string(h.n_public()) + ", " +
                   std::to_string(h.n_constraints)};
    }
    if (auto row = groth16::first_unsatisfied_row(r1cs->shape, w)) {
      return Error{args.wtns + ": witness does not satisfy constraint " + std::to_string(*row) + " of " + args.r1cs};
    }
  }
  return Loaded{std::move(zkey->shape), std::move(zkey->pk), zkey->n_public};
}

Result<Loaded> load_params(const ProveArgs& args, std::span<const math::Fr> w) {
  if (args.r1cs.empty()) return Error{"--params needs --r1cs (a .params file holds no circuit)"};
  auto r1cs = formats::read_r1cs(args.r1cs);
  if (!r1cs) return Error{r1cs.error()};
  if (w.size() != r1cs->shape.num_variables()) {
    return Error{args.wtns + ": witness has " + std::to_string(w.size()) + " values but " + args.r1cs + " has " +
                 std::to_string(r1cs->shape.num_variables()) + " variables"};
  }
  if (auto row = groth16::first_unsatisfied_row(r1cs->shape, w)) {
    return Error{args.wtns + ": witness does not satisfy constraint " + std::to_string(*row) + " of " + args.r1cs};
  }
  groth16::R1csShape shape = std::move(r1cs->shape);
  shape.append_input_rows();
  auto file = formats::bellperson::ParamsFile::open(args.params);
  if (!file) return Error{file.error()};
  auto pk = formats::bellperson::assemble_proving_key(*file, shape);
  if (!pk) return Error{args.params + ": " + pk.error()};
  std::size_t n_public = shape.num_inputs - 1;
  return Loaded{std::move(shape), std::move(*pk), n_public};
}

int run_prove(const ProveArgs& args) {
  const std::string cmd = "prove";
  Stopwatch total;
  auto w = formats::read_wtns(args.wtns);
  if (!w) return fail(cmd, w.error());
  auto loaded = args.zkey.empty() ? load_params(args, *w) : load_zkey(args, *w);
  if (!loaded) return fail(cmd, loaded.error());
  double load_ms = total.ms();

  Stopwatch prove_clock;
  auto backend = groth16::make_cpu_backend();
  auto pending = backend->start(loaded->shape, *w, loaded->pk);
  if (!pending) return fail(cmd, pending.error());
  groth16::Proof proof = groth16::finish(*pending, loaded->pk, groth16::ProofRandomness::random());
  double prove_ms = prove_clock.ms();

  std::vector<math::Fr> pub(w->begin() + 1, w->begin() + 1 + std::ptrdiff_t(loaded->n_public));
  if (args.self_verify) {
    auto ok = groth16::verify(loaded->pk.vk, pub, proof);
    if (!ok) return fail(cmd, ok.error());
    if (!*ok) {
      return fail(cmd, args.wtns + ": witness does not satisfy the circuit of " +
                           (args.zkey.empty() ? args.params : args.zkey) + " (the proof failed self-verification)");
    }
  }
  if (!args.proof_json.empty()) {
    if (auto st = formats::write_proof_json(args.proof_json, proof); !st) return fail(cmd, st.error());
  }
  if (!args.pub.empty()) {
    if (auto st = formats::write_public_json(args.pub, pub); !st) return fail(cmd, st.error());
  }
  if (!args.proof_bin.empty()) {
    auto bytes = proof.to_bytes();
    if (auto st = write_file(args.proof_bin, bytes); !st) return fail(cmd, st.error());
  }
  std::fprintf(stderr,
               "cuzk prove: %zu constraints, %zu variables: load %.0f ms, prove %.0f ms (%s backend, %zu threads)%s\n",
               loaded->shape.num_constraints(), loaded->shape.num_variables(), load_ms, prove_ms,
               backend->name().c_str(), default_threads(), args.self_verify ? ", self-verified" : "");
  return kExitOk;
}

}  // namespace

void register_prove(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ProveArgs>();
  auto* sub = app.add_subcommand("prove", "Prove a circuit (CPU backend): --zkey Z | --params P --r1cs R, --wtns W");
  auto* zkey = sub->add_option("--zkey", args->zkey, "snarkjs Groth16 proving key (BLS12-381)")->check(apps::InputFile);
  auto* params =
      sub->add_option("--params", args->params, "bellperson .params file (needs --r1cs)")->check(apps::InputFile);
  zkey->excludes(params);
  sub->add_option("--wtns", args->wtns, "snarkjs witness file")->required()->check(apps::InputFile);
  sub->add_option("--r1cs", args->r1cs, "circuit .r1cs (with --zkey: check the witness, name a failing constraint)")
      ->check(apps::InputFile);
  sub->add_option("--proof", args->proof_json, "output proof.json (snarkjs format)");
  sub->add_option("--public", args->pub, "output public.json (snarkjs format)");
  sub->add_option("--out,--proof-bin", args->proof_bin, "output the 192-byte compressed proof");
  sub->add_flag("!--no-self-verify", args->self_verify, "skip verifying the proof before writing it");
  add_threads_option(sub);
  sub->callback([args, &exit_code] {
    if (args->zkey.empty() == args->params.empty()) {
      exit_code = fail("prove", "give exactly one of --zkey or --params");
    } else if (args->proof_json.empty() && args->proof_bin.empty()) {
      exit_code = fail("prove", "give --proof FILE.json and/or --out FILE.bin");
    } else {
      exit_code = run_prove(*args);
    }
  });
}

}  // namespace cuzk::cli
