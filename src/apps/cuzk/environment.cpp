#include "apps/cuzk/environment.hpp"

#include <cstdio>
#include <cstdlib>

#include "apps/common/filecoin_env.hpp"
#include "filecoin/params/cache_names.hpp"

namespace cuzk::cli {
namespace {

CliEnvironment& current() {
  static CliEnvironment env;
  return env;
}

}  // namespace

Result<CliEnvironment> read_environment() {
  auto read = apps::filecoin_env_from([](const char* n) { return std::getenv(n); });
  if (!read) return Error{read.error()};
  for (const auto& v : read->non_default) std::fprintf(stderr, "cuzk: %s\n", v.c_str());
  auto gpu = apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!gpu) return Error{gpu.error()};
  for (const auto& v : gpu->non_default) std::fprintf(stderr, "cuzk: %s\n", v.c_str());
  CliEnvironment env;
  env.gpu = std::move(*gpu);
  env.param_cache = read->param_cache;
  env.shape_cache = read->shape_cache ? filecoin::ShapeCachePolicy::kEnabled : filecoin::ShapeCachePolicy::kDisabled;
  return env;
}

const CliEnvironment& environment() { return current(); }
void set_environment(CliEnvironment env) { current() = std::move(env); }

std::string default_param_dir() { return filecoin::params::parameter_cache_dir(environment().param_cache); }

}  // namespace cuzk::cli
