#include "apps/common/filecoin_env.hpp"

namespace cuzk::apps {

Result<FilecoinEnv> filecoin_env_from(const GetenvFn& getenv_fn) {
  FilecoinEnv env;
  if (const char* v = getenv_fn("FIL_PROOFS_PARAMETER_CACHE"); v && *v) {
    env.param_cache = v;
    env.non_default.push_back(std::string("FIL_PROOFS_PARAMETER_CACHE=") + v);
  }
  auto shape = parse_env_int("CUZK_SHAPE_CACHE", getenv_fn("CUZK_SHAPE_CACHE"), 0, 1);
  if (!shape) return Error{shape.error()};
  env.shape_cache = shape->value_or(1) == 1;
  if (!env.shape_cache) env.non_default.push_back("CUZK_SHAPE_CACHE=0");
  return env;
}

}  // namespace cuzk::apps
