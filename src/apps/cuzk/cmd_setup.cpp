// cuzk setup: TEST-ONLY Groth16 keys from locally generated toxic waste. Whoever knows the toxic
// waste (here: anyone who knows --seed) can forge proofs; production keys come from a ceremony.
//   --r1cs C.r1cs --zkey C.zkey [--vk-json vk.json]   snarkjs layout (provable by snarkjs too)
//   --r1cs C.r1cs --out DIR                           bellperson layout: DIR/C.params, DIR/C.vk
//   --registered-proof NAME --out DIR                 a PoRep partition circuit, official file names
#include <cstdio>
#include <filesystem>

#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "groth16/test_setup.hpp"
#if __has_include("formats/bellperson/writer.hpp")
#include "formats/bellperson/writer.hpp"
#define CUZK_HAVE_BELLPERSON 1
#endif
#if __has_include("filecoin/c2/porep_params.hpp")
#include "filecoin/c2/porep_params.hpp"
#define CUZK_HAVE_C2 1
#endif

namespace cuzk::cli {
namespace {

struct SetupArgs {
  std::string r1cs, zkey, vk_json, out_dir, registered_proof;
  std::optional<std::uint64_t> seed;
};

const char* kTestOnlyBanner = "cuzk setup: TEST-ONLY parameters (toxic waste %s); never use them for real proofs\n";

int run_setup_porep(const SetupArgs& args) {
  const std::string cmd = "setup";
#ifdef CUZK_HAVE_C2
  if (args.out_dir.empty()) return fail(cmd, "--registered-proof needs --out DIR");
  if (!args.zkey.empty() || !args.r1cs.empty()) return fail(cmd, "--registered-proof excludes --r1cs and --zkey");
  const filecoin::porep::PorepConfig* config = nullptr;
  try {
    config = &filecoin::porep::porep_config_by_name(args.registered_proof);
  } catch (const std::invalid_argument& e) {
    return fail(cmd, e.what());
  }
  auto toxic = args.seed ? groth16::ToxicWaste::from_seed(*args.seed) : groth16::ToxicWaste::random();
  std::fprintf(stderr, kTestOnlyBanner, args.seed ? "from --seed, i.e. public" : "random and discarded");
  filecoin::c2::SetupReport rep;
  auto paths = filecoin::c2::write_porep_test_params(*config, args.out_dir, toxic, &rep);
  if (!paths) return fail(cmd, paths.error());
  std::fprintf(stderr,
               "cuzk setup: %s partition: %zu rows (with input rows), %zu inputs, %zu aux, domain 2^%u; "
               "shape %.1f s (%s), keys %.1f s, write %.1f s\n",
               config->name.c_str(), rep.rows, rep.inputs, rep.aux, rep.domain_log2, rep.shape_s, rep.shape_source.c_str(),
               rep.keygen_s, rep.write_s);
  std::printf("%s\n%s\n%s\n", paths->params.c_str(), paths->vk.c_str(), paths->meta.c_str());
  return kExitOk;
#else
  return fail(cmd, "--registered-proof is not supported in this build");
#endif
}

int run_setup(const SetupArgs& args) {
  const std::string cmd = "setup";
  if (!args.registered_proof.empty()) return run_setup_porep(args);
  if (args.r1cs.empty()) return fail(cmd, "give --r1cs FILE or --registered-proof NAME");
  if (args.zkey.empty() && args.out_dir.empty()) return fail(cmd, "give --zkey FILE and/or --out DIR");
  Stopwatch clock;
  auto r1cs = formats::read_r1cs(args.r1cs);
  if (!r1cs) return fail(cmd, r1cs.error());
  groth16::R1csShape shape = std::move(r1cs->shape);
  shape.append_input_rows();
  auto toxic = args.seed ? groth16::ToxicWaste::from_seed(*args.seed) : groth16::ToxicWaste::random();
  std::fprintf(stderr, kTestOnlyBanner, args.seed ? "from --seed, i.e. public" : "random and discarded");

  if (!args.zkey.empty()) {
    auto pk = groth16::generate_test_key(shape, groth16::HBasis::kOddCosetLagrange, toxic);
    if (!pk) return fail(cmd, args.r1cs + ": " + pk.error());
    if (auto st = formats::write_zkey(args.zkey, *pk, shape); !st) return fail(cmd, st.error());
    if (!args.vk_json.empty()) {
      if (auto st = formats::write_verification_key_json(args.vk_json, pk->vk); !st) return fail(cmd, st.error());
    }
    std::fprintf(stderr, "cuzk setup: wrote %s (snarkjs layout, domain 2^%u)\n", args.zkey.c_str(), pk->domain_log2);
  }
  if (!args.out_dir.empty()) {
#ifdef CUZK_HAVE_BELLPERSON
    auto pk = groth16::generate_test_key(shape, groth16::HBasis::kMonomialOverZ, toxic);
    if (!pk) return fail(cmd, args.r1cs + ": " + pk.error());
    std::filesystem::create_directories(args.out_dir);
    std::string stem = (std::filesystem::path(args.out_dir) / std::filesystem::path(args.r1cs).stem()).string();
    if (auto st = formats::bellperson::write_params(stem + ".params", *pk); !st) return fail(cmd, st.error());
    if (auto st = formats::bellperson::write_vk(stem + ".vk", pk->vk); !st) return fail(cmd, st.error());
    std::fprintf(stderr, "cuzk setup: wrote %s.params and %s.vk (bellperson layout, domain 2^%u)\n", stem.c_str(),
                 stem.c_str(), pk->domain_log2);
#else
    return fail(cmd, "bellperson output is not supported in this build");
#endif
  }
  std::fprintf(stderr, "cuzk setup: %zu constraints (with input rows), %zu variables, %.1f s\n",
               shape.num_constraints(), shape.num_variables(), clock.ms() / 1000);
  return kExitOk;
}

}  // namespace

void register_setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SetupArgs>();
  auto* sub = app.add_subcommand(
      "setup", "TEST-ONLY Groth16 parameters for a circuit from random toxic waste (never for production)");
  sub->add_option("--r1cs", args->r1cs, "circuit (circom .r1cs)")->check(CLI::ExistingFile);
  sub->add_option("--registered-proof", args->registered_proof,
                  "a PoRep partition circuit (e.g. StackedDrg2KiBV1_1): writes DIR/v28-stacked-proof-of-replication-*");
  sub->add_option("--zkey", args->zkey, "write a snarkjs-layout .zkey");
  sub->add_option("--vk-json", args->vk_json, "with --zkey: also write verification_key.json");
  sub->add_option("--out", args->out_dir, "write bellperson-layout DIR/<name>.params and DIR/<name>.vk");
  sub->add_option("--seed", args->seed, "derive the toxic waste from this seed (reproducible, and public)");
  add_threads_option(sub);
  sub->callback([args, &exit_code] { exit_code = run_setup(*args); });
}

}  // namespace cuzk::cli
