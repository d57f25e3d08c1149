#include "apps/cuzk/environment.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "filecoin/params/cache_names.hpp"

namespace cuzk::cli {
namespace {

CliEnvironment& current() {
  static CliEnvironment env;
  return env;
}

}  // namespace

Result<CliEnvironment> read_environment() {
  CliEnvironment env;
  if (const char* v = std::getenv("FIL_PROOFS_PARAMETER_CACHE"); v && *v) {
    env.param_cache = v;
    std::fprintf(stderr, "cuzk: FIL_PROOFS_PARAMETER_CACHE=%s\n", v);
  }
  if (const char* v = std::getenv("CUZK_SHAPE_CACHE"); v && *v) {
    const std::string_view s(v);
    if (s == "0") {
      env.shape_cache = filecoin::porep::ShapeCachePolicy::kDisabled;
      std::fprintf(stderr, "cuzk: CUZK_SHAPE_CACHE=0: partition shapes are recorded, never cached\n");
    } else if (s != "1") {
      return Error{"CUZK_SHAPE_CACHE: expected 0 or 1, got '" + std::string(s) + "'"};
    }
  }
  return env;
}

const CliEnvironment& environment() { return current(); }
void set_environment(CliEnvironment env) { current() = std::move(env); }

std::string default_param_dir() { return filecoin::params::parameter_cache_dir(environment().param_cache); }

}  // namespace cuzk::cli
