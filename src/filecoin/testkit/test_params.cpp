// TEST-ONLY parameters (`cuzk setup --registered-proof`, the 2 KiB test fixtures): keys from known
// toxic waste for the partition circuit of a registered proof, written under the official file names
// section by section (formats/bellperson/test_params_writer.hpp), never holding the whole key.
#include "filecoin/testkit/test_params.hpp"

#include <chrono>
#include <filesystem>

#include "filecoin/porep/shape.hpp"
#include "filecoin/post/shape.hpp"
#include "formats/bellperson/writer.hpp"

namespace cuzk::filecoin::testkit {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<params::ParamPaths> write_test_params(const params::ParamConfig& param_config, const std::string& name,
                                             const ShapeSource& shape_source, const std::string& dir,
                                             const groth16::ToxicWaste& toxic, SetupReport* report,
                                             const TestSetupOptions& options) {
  const params::ParamPaths paths = params::param_paths(param_config, dir);
  SetupReport rep;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{dir + ": cannot create directory: " + ec.message()};
  auto t0 = std::chrono::steady_clock::now();
  if (options.progress) options.progress("circuit shape", 0, 0);
  // Cached beside the .params, where the daemon will look for it when it loads these keys.
  ShapeLoad shape_load = shape_source(shape_cache_path(paths.params), options.shape_cache);
  const groth16::R1csShape shape = std::move(shape_load.shape);
  rep.shape_source = to_string(shape_load.source);
  rep.rows = shape.num_constraints();
  rep.inputs = shape.num_inputs;
  rep.aux = shape.num_aux;
  rep.domain_log2 = shape.domain_log2();
  rep.shape_bytes = shape.a.memory_bytes() + shape.b.memory_bytes() + shape.c.memory_bytes();
  rep.shape_s = seconds_since(t0);
  namespace bp = formats::bellperson;
  bp::TestParamsOptions opt;
  opt.threads = options.threads;
  opt.multiplier = options.multiplier;
  if (options.chunk) opt.chunk = options.chunk;
  opt.progress = options.progress;
  opt.progress_points = options.progress_points;
  if (auto st = bp::write_test_params(shape, toxic, paths.params, paths.vk, opt, &rep.detail); !st)
    return Error{name + ": " + st.error()};
  t0 = std::chrono::steady_clock::now();
  if (auto st = bp::write_meta(paths.meta, bp::Meta{param_config.sector_size}); !st) return Error{st.error()};
  rep.keygen_s = rep.detail.total_s - rep.detail.write_wait_s;
  rep.write_s = rep.detail.write_wait_s + seconds_since(t0);
  if (report) *report = std::move(rep);
  return paths;
}

Result<porep::PorepParamPaths> write_porep_test_params(const porep::PorepConfig& config, const std::string& dir,
                                                       const groth16::ToxicWaste& toxic, SetupReport* report,
                                                       const TestSetupOptions& options) {
  auto pc = params::make_param_config(params::ProofFamily::kPoRep, config.sector_size);
  if (!pc) return Error{config.name + ": no published PoRep parameter set of this sector size"};
  auto source = [&](const std::string& cache, ShapeCachePolicy policy) {
    return porep::load_or_record_porep_shape(config, cache, policy);
  };
  auto paths = write_test_params(*pc, config.name, source, dir, toxic, report, options);
  if (!paths) return Error{paths.error()};
  return porep::PorepParamPaths{paths->params, paths->vk, paths->meta};
}

Result<params::ParamPaths> write_post_test_params(const post::PostConfig& config, const std::string& dir,
                                                  const groth16::ToxicWaste& toxic, SetupReport* report,
                                                  const TestSetupOptions& options) {
  auto pc = params::make_param_config(config.family(), config.sector_size);
  if (!pc)
    return Error{config.name + ": no published " + params::family_name(config.family()) +
                 " parameter set of this sector size"};
  auto source = [&](const std::string& cache, ShapeCachePolicy policy) {
    return post::load_or_record_post_shape(config, cache, policy);
  };
  return write_test_params(*pc, config.name, source, dir, toxic, report, options);
}

}  // namespace cuzk::filecoin::testkit
