#include "apps/cuzk/prove_driver.hpp"

#include "apps/common/input_file.hpp"
#include "apps/cuzk/environment.hpp"
#include "apps/cuzk/multiplier.hpp"
#include "groth16/proof.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::cli {

void add_prove_flags(CLI::App* sub, ProveFlags& f, const std::string& out_help, const std::string& out_default) {
  sub->add_option("--params", f.params_dir, "parameter directory (official file names)");
  sub->add_option("--test-key-seed", f.test_key_seed,
                  "TEST-ONLY: instead of --params, a key made in memory from this (public) toxic-waste seed");
  auto* out = sub->add_option("--out", f.out, out_help);
  if (out_default.empty()) out->required();
  else f.out = out_default, out->capture_default_str();
  sub->add_flag("--no-self-verify", f.no_self_verify, "skip verifying each partition proof before writing");
  sub->add_option("--repeat", f.repeat, "prove this many times in one process, the key kept (timings of each)")
      ->check(CLI::Range(1, 1000));
  sub->add_flag("-q,--quiet", f.quiet, "no progress on stderr");
  sub->add_option("--backend", f.backend, "auto (CUDA when built and a GPU is present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  add_threads_option(sub);
}

Result<groth16::ProvingKey> command_proving_key(const std::string& tool,
                                                const std::optional<filecoin::params::ParamPaths>& paths,
                                                const groth16::R1csShape& shape,
                                                std::optional<std::uint64_t> test_key_seed) {
  if (paths) return filecoin::params::load_proving_key(*paths, shape);
  if (!test_key_seed) return Error{"no parameter directory and no --test-key-seed"};
  std::fprintf(stderr, "cuzk %s: TEST-ONLY key from --test-key-seed %llu, made in memory\n", tool.c_str(),
               static_cast<unsigned long long>(*test_key_seed));
  auto mul = make_multiplier("auto");
  if (!mul) return Error{mul.error()};
  groth16::SetupOptions so;
  so.multiplier = mul->get();
  return groth16::generate_test_key(shape, groth16::HBasis::kMonomialOverZ,
                                    groth16::ToxicWaste::from_seed(*test_key_seed), so);
}

Result<std::unique_ptr<ProveSetup>> prove_setup(const std::string& cmd, const ProveFlags& f, const ProveKey& k,
                                                const std::function<Status(const groth16::R1csShape&)>& check_key) {
  auto setup = std::make_unique<ProveSetup>();
  ProveSetup& s = *setup;
  auto chosen = apps::choose_backend(f.backend, apps::probe_backends());
  if (!chosen) return chosen.failure();
  s.backend = *chosen;
  auto backends = apps::DeviceBackends::create(*chosen, {}, environment().gpu);
  if (!backends) return backends.failure();
  if (f.test_key_seed.has_value() == !f.params_dir.empty())
    return Error{"give exactly one of --params DIR and --test-key-seed N"};
  std::optional<filecoin::params::ParamPaths> paths;
  if (!f.params_dir.empty()) {
    auto p = filecoin::params::param_paths(k.family, k.sector_size, f.params_dir);
    if (!p) return Error{k.label + ": " + p.error()};
    paths = *p;
  }
  Stopwatch clock;
  auto shape_load = k.shape(paths ? filecoin::shape_cache_path(paths->params) : "");
  s.shape = std::move(shape_load.shape);
  s.shape_source = filecoin::to_string(shape_load.source);
  if (auto st = check_key(s.shape); !st) return st.failure();
  s.shape_ms = clock.ms();
  clock = {};
  auto key = command_proving_key(cmd, paths, s.shape, f.test_key_seed);
  if (!key) return key.failure();
  s.key = std::move(*key);
  s.key_ms = clock.ms();
  // The key's device copy made once for every partition (the CPU backend proves from the host key).
  auto bound = groth16::with_copy((*backends)->make({0, false}), s.key, &s.shape);
  if (!bound) return bound.failure();
  s.bound = std::move(*bound);
  return setup;
}

Status write_proofs(const std::string& out, std::span<const groth16::Proof> proofs) {
  return write_file(out, groth16::concat_proofs(proofs));
}

}  // namespace cuzk::cli
