// cuzk setup: TEST-ONLY Groth16 keys from locally generated toxic waste. Whoever knows the toxic
// waste (here: anyone who knows --seed) can forge proofs; production keys come from a ceremony.
//   --r1cs C.r1cs --zkey C.zkey [--vk-json vk.json]   snarkjs layout (provable by snarkjs too)
//   --r1cs C.r1cs --out DIR                           bellperson layout: DIR/C.params, DIR/C.vk
//   --registered-proof NAME --out DIR                 a PoRep or PoSt partition circuit, official file
//                                                     names (StackedDrg2KiBV1_1, StackedDrgWindow2KiBV1_1,
//                                                     StackedDrgWinning2KiBV1, the …V1_2 aliases)
//   --update-proof NAME --out DIR [--poseidon]        a SnapDeals partition circuit (StackedDrg2KiBV1 …
//                                                     StackedDrg64GiBV1 or code 0–4), official file names
//                                                     v28-empty-sector-update-…; --poseidon: the
//                                                     single-partition variant, v28-empty-sector-update-
//                                                     poseidon-… (published for 32/64 GiB only)
// The bellperson files are written section by section (formats/bellperson/test_params_writer.hpp), so
// a 32 GiB PoRep key (~47 GB) never sits in memory. The fixed-base products run on the GPU when this
// is a CUDA build and a device is present (--gpu auto), else on the CPU threads. A progress line
// (share of the key's points multiplied, elapsed s) goes to stderr every --progress S seconds.
#include <cstdio>
#include <filesystem>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/common.hpp"
#include "apps/cuzk/multiplier.hpp"
#include "apps/cuzk/progress.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/test_setup.hpp"
#if __has_include("formats/bellperson/writer.hpp")
#include "formats/bellperson/test_params_writer.hpp"
#include "formats/bellperson/writer.hpp"
#define CUZK_HAVE_BELLPERSON 1
#endif
#if __has_include("filecoin/testkit/test_params.hpp")
#include "apps/cuzk/environment.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/testkit/test_params.hpp"
#define CUZK_HAVE_C2 1
#endif
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/shape.hpp"

namespace cuzk::cli {
namespace {

struct SetupArgs {
  std::string r1cs, zkey, vk_json, out_dir, registered_proof, update_proof;
  bool poseidon = false;
  std::string gpu = "auto";
  std::optional<std::uint64_t> seed;
  double progress_s = 5;
};

// The key writer's progress as lines: a stage while its count is unknown, then the share of the key's
// points multiplied. On the CPU tables (~0.03-0.2 M points/s on 2 cores) the multiplier is called 2^17
// points at a time so that a line can come every few seconds; a GPU keeps its whole slices.
struct SetupProgress {
  ProgressLine line;
  // Empty with --progress 0: the writer then keeps its whole-slice calls.
  std::function<void(const char*, std::size_t, std::size_t)> callback() {
    if (!line.enabled()) return {};
    return [this](const char* stage, std::size_t done, std::size_t total) {
      if (total == 0) line("%s ...", stage);
      else if (total < 1000000)
        line("%.0f%% of the key's points (section %s, %zu of %zu)", 100.0 * double(done) / double(total), stage, done,
             total);
      else
        line("%.0f%% of the key's points (section %s, %.2f of %.2f M)", 100.0 * double(done) / double(total), stage,
             double(done) / 1e6, double(total) / 1e6);
    };
  }
  static std::size_t points_per_call(const groth16::FixedBaseMultiplier& mul) {
    return mul.name().rfind("cpu", 0) == 0 ? std::size_t(1) << 17 : 0;
  }
};

const char* kTestOnlyBanner = "cuzk setup: TEST-ONLY parameters (toxic waste %s); never use them for real proofs\n";

#ifdef CUZK_HAVE_BELLPERSON
void print_detail(const formats::bellperson::TestParamsReport& d) {
  std::fprintf(stderr, "cuzk setup: multiplier %s; QAP at tau: lagrange %.2f s, accumulate %.2f s, combine %.2f s\n",
               d.multiplier.c_str(), d.lagrange_s, d.accumulate_s, d.combine_s);
  for (const auto& s : d.sections) {
    std::fprintf(stderr, "cuzk setup:   %-5s %11zu points: scalars %.2f s, multiply+encode %.2f s (%.2f M/s)\n",
                 s.name.c_str(), s.points, s.scalars_s, s.mul_s, s.mul_s > 0 ? s.points / s.mul_s / 1e6 : 0.0);
  }
  std::fprintf(stderr,
               "cuzk setup: waited %.2f s for the disk; key total %.1f s; host memory: scalars %.2f GB, "
               "slice buffers %.2f GB\n",
               d.write_wait_s, d.total_s, d.scalars_bytes / 1e9, d.buffer_bytes / 1e9);
}
#endif

int run_setup_registered(const SetupArgs& args) {
  const std::string cmd = "setup";
#ifdef CUZK_HAVE_C2
  if (args.out_dir.empty()) return fail(cmd, "--registered-proof needs --out DIR");
  if (!args.zkey.empty() || !args.r1cs.empty()) return fail(cmd, "--registered-proof excludes --r1cs and --zkey");
  // PoRep names first (StackedDrg2KiBV1_1, …), then PoSt names (StackedDrgWindow…, StackedDrgWinning…,
  // the …V1_2 aliases). Numeric codes are not taken: PoRep ids and PoSt codes overlap.
  const filecoin::porep::PorepConfig* porep_config = nullptr;
  const filecoin::post::PostConfig* post_config = nullptr;
  const std::string& name = args.registered_proof;
  try {
    porep_config = &filecoin::porep::porep_config_by_name(name);
  } catch (const std::invalid_argument&) {
    auto pc = filecoin::post::post_config_by_name(name);
    if (!pc || name.find_first_not_of("0123456789") == std::string::npos)
      return fail(cmd, "unknown registered proof '" + name +
                           "': give a PoRep name (StackedDrg2KiBV1_1, …) or a PoSt name (StackedDrgWindow2KiBV1_1, "
                           "StackedDrgWinning2KiBV1, …)");
    post_config = *pc;
  }
  auto mul = make_multiplier(args.gpu);
  if (!mul) return fail(cmd, mul.error());
  auto toxic = args.seed ? groth16::ToxicWaste::from_seed(*args.seed) : groth16::ToxicWaste::random();
  std::fprintf(stderr, kTestOnlyBanner, args.seed ? "from --seed, i.e. public" : "random and discarded");
  filecoin::testkit::SetupReport rep;
  filecoin::testkit::TestSetupOptions opt;
  opt.shape_cache = shape_cache_policy();
  opt.multiplier = mul->get();
  SetupProgress progress{{"setup", args.progress_s}};
  opt.progress = progress.callback();
  opt.progress_points = SetupProgress::points_per_call(**mul);
  filecoin::params::ParamPaths paths;
  if (porep_config) {
    auto p = filecoin::testkit::write_porep_test_params(*porep_config, args.out_dir, toxic, &rep, opt);
    if (!p) return fail(cmd, p.error());
    paths = {p->params, p->vk, p->meta};
  } else {
    auto p = filecoin::testkit::write_post_test_params(*post_config, args.out_dir, toxic, &rep, opt);
    if (!p) return fail(cmd, p.error());
    paths = *p;
  }
  const std::string& config_name = porep_config ? porep_config->name : post_config->name;
  std::fprintf(stderr,
               "cuzk setup: %s partition: %zu rows (with input rows), %zu inputs, %zu aux, domain 2^%u; "
               "shape %.1f s (%s, %.2f GB)\n",
               config_name.c_str(), rep.rows, rep.inputs, rep.aux, rep.domain_log2, rep.shape_s,
               rep.shape_source.c_str(), rep.shape_bytes / 1e9);
  print_detail(rep.detail);
  std::fprintf(stderr, "cuzk setup: keys %.1f s, write (waits) %.1f s\n", rep.keygen_s, rep.write_s);
  std::printf("%s\n%s\n%s\n", paths.params.c_str(), paths.vk.c_str(), paths.meta.c_str());
  return kExitOk;
#else
  return fail(cmd, "--registered-proof is not supported in this build");
#endif
}

// SnapDeals: write_test_params with the update circuit's shape, under ProofFamily kSnapDeals (or
// kSnapDealsPoseidon) of the update proof's sector size.
int run_setup_update(const SetupArgs& args) {
  const std::string cmd = "setup";
  namespace snap = filecoin::snap;
  if (args.out_dir.empty()) return fail(cmd, "--update-proof needs --out DIR");
  if (!args.zkey.empty() || !args.r1cs.empty() || !args.registered_proof.empty())
    return fail(cmd, "--update-proof excludes --r1cs, --zkey and --registered-proof");
  auto c = snap::update_config_by_name(args.update_proof);
  if (!c) return fail(cmd, "--update-proof: " + c.error());
  const snap::UpdateConfig& config = **c;
  snap::SnapGeometry g = config.geometry;
  if (args.poseidon) {
    auto pg = snap::snap_geometry(config.sector_size, snap::UpdateVariant::kPoseidon);
    if (!pg) return fail(cmd, "--poseidon: " + pg.error());
    g = *pg;
  }
  const auto family =
      args.poseidon ? filecoin::params::ProofFamily::kSnapDealsPoseidon : filecoin::params::ProofFamily::kSnapDeals;
  const std::string name = config.name + (args.poseidon ? " (Poseidon variant)" : "");
  auto pc = filecoin::params::make_param_config(family, config.sector_size);
  if (!pc)
    return fail(cmd, name + ": no published " + std::string(filecoin::params::family_name(family)) +
                         " parameter set of this sector size");
  auto mul = make_multiplier(args.gpu);
  if (!mul) return fail(cmd, mul.error());
  auto toxic = args.seed ? groth16::ToxicWaste::from_seed(*args.seed) : groth16::ToxicWaste::random();
  std::fprintf(stderr, kTestOnlyBanner, args.seed ? "from --seed, i.e. public" : "random and discarded");
  filecoin::testkit::SetupReport rep;
  filecoin::testkit::TestSetupOptions opt;
  opt.shape_cache = shape_cache_policy();
  opt.multiplier = mul->get();
  SetupProgress progress{{"setup", args.progress_s}};
  opt.progress = progress.callback();
  opt.progress_points = SetupProgress::points_per_call(**mul);
  auto source = [&](const std::string& cache, filecoin::ShapeCachePolicy policy) {
    return snap::load_or_record_update_shape(g, name, cache, policy);
  };
  auto paths = filecoin::testkit::write_test_params(*pc, name, source, args.out_dir, toxic, &rep, opt);
  if (!paths) return fail(cmd, paths.error());
  std::fprintf(stderr,
               "cuzk setup: %s partition: %zu rows (with input rows), %zu inputs, %zu aux, domain 2^%u; "
               "shape %.1f s (%s, %.2f GB)\n",
               name.c_str(), rep.rows, rep.inputs, rep.aux, rep.domain_log2, rep.shape_s, rep.shape_source.c_str(),
               rep.shape_bytes / 1e9);
  print_detail(rep.detail);
  std::fprintf(stderr, "cuzk setup: keys %.1f s, write (waits) %.1f s\n", rep.keygen_s, rep.write_s);
  std::printf("%s\n%s\n%s\n", paths->params.c_str(), paths->vk.c_str(), paths->meta.c_str());
  return kExitOk;
}

int run_setup(const SetupArgs& args) {
  const std::string cmd = "setup";
  if (!args.update_proof.empty()) {
    return run_setup_update(args);
  }
  if (args.poseidon) return fail(cmd, "--poseidon goes with --update-proof");
  if (!args.registered_proof.empty()) return run_setup_registered(args);
  if (args.r1cs.empty()) return fail(cmd, "give --r1cs FILE or --registered-proof NAME");
  if (args.zkey.empty() && args.out_dir.empty()) return fail(cmd, "give --zkey FILE and/or --out DIR");
  Stopwatch clock;
  auto r1cs = formats::read_r1cs(args.r1cs);
  if (!r1cs) return fail(cmd, r1cs.error());
  groth16::R1csShape shape = std::move(r1cs->shape);
  shape.append_input_rows();
  auto toxic = args.seed ? groth16::ToxicWaste::from_seed(*args.seed) : groth16::ToxicWaste::random();
  std::fprintf(stderr, kTestOnlyBanner, args.seed ? "from --seed, i.e. public" : "random and discarded");

  auto mul = make_multiplier(args.gpu);
  if (!mul) return fail(cmd, mul.error());
  groth16::SetupOptions setup_opt;
  setup_opt.multiplier = mul->get();

  if (!args.zkey.empty()) {
    auto pk = groth16::generate_test_key(shape, groth16::HBasis::kOddCosetLagrange, toxic, setup_opt);
    if (!pk) return fail(cmd, args.r1cs + ": " + pk.error());
    if (auto st = formats::write_zkey(args.zkey, *pk, shape); !st) return fail(cmd, st.error());
    if (!args.vk_json.empty()) {
      if (auto st = formats::write_verification_key_json(args.vk_json, pk->vk); !st) return fail(cmd, st.error());
    }
    std::fprintf(stderr, "cuzk setup: wrote %s (snarkjs layout, domain 2^%u)\n", args.zkey.c_str(), pk->domain_log2);
  }
  if (!args.out_dir.empty()) {
#ifdef CUZK_HAVE_BELLPERSON
    std::filesystem::create_directories(args.out_dir);
    std::string stem = (std::filesystem::path(args.out_dir) / std::filesystem::path(args.r1cs).stem()).string();
    formats::bellperson::TestParamsOptions opt;
    opt.multiplier = mul->get();
    SetupProgress progress{{"setup", args.progress_s}};
    opt.progress = progress.callback();
    opt.progress_points = SetupProgress::points_per_call(**mul);
    formats::bellperson::TestParamsReport rep;
    auto st = formats::bellperson::write_test_params(shape, toxic, stem + ".params", stem + ".vk", opt, &rep);
    if (!st) return fail(cmd, args.r1cs + ": " + st.error());
    print_detail(rep);
    std::fprintf(stderr, "cuzk setup: wrote %s.params and %s.vk (bellperson layout, domain 2^%u)\n", stem.c_str(),
                 stem.c_str(), shape.domain_log2());
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
  sub->add_option("--r1cs", args->r1cs, "circuit (circom .r1cs)")->check(apps::InputFile);
  sub->add_option("--registered-proof", args->registered_proof,
                  "a PoRep or PoSt partition circuit (StackedDrg2KiBV1_1, StackedDrgWindow2KiBV1_1, "
                  "StackedDrgWinning2KiBV1, ...): writes DIR/v28-<official name>.{params,vk,meta}");
  sub->add_option("--update-proof", args->update_proof,
                  "a SnapDeals partition circuit (StackedDrg2KiBV1 ... StackedDrg64GiBV1 or code 0-4): writes "
                  "DIR/v28-empty-sector-update-<...>.{params,vk,meta}");
  sub->add_flag("--poseidon", args->poseidon,
                "with --update-proof: the single-partition SnapDeals-Poseidon variant (published for 32/64 GiB only)");
  sub->add_option("--zkey", args->zkey, "write a snarkjs-layout .zkey");
  sub->add_option("--vk-json", args->vk_json, "with --zkey: also write verification_key.json");
  sub->add_option("--out", args->out_dir, "write bellperson-layout DIR/<name>.params and DIR/<name>.vk");
  sub->add_option("--seed", args->seed, "derive the toxic waste from this seed (reproducible, and public)");
  sub->add_option("--gpu", args->gpu, "fixed-base products on the GPU: auto (when present), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  add_progress_option(sub, args->progress_s);
  add_threads_option(sub);
  sub->callback([args, &exit_code] {
    try {
      exit_code = run_setup(*args);
    } catch (const std::exception& e) {  // CUDA errors from the GPU multiplier
      exit_code = fail("setup", e.what());
    }
  });
}

}  // namespace cuzk::cli
