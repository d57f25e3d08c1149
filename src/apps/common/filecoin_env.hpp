// The environment the Filecoin libraries honour, read and checked once by each executable and handed
// to them as plain values (they read no environment themselves):
//   FIL_PROOFS_PARAMETER_CACHE  the default parameter directory (filecoin-proofs' variable)
//   CUZK_SHAPE_CACHE            0: never read or write "<params>.shape" caches; 1 or unset: do
#pragma once

#include <string>
#include <vector>

#include "apps/common/gpu_tuning.hpp"  // GetenvFn
#include "base/result.hpp"

namespace cuzk::apps {

struct FilecoinEnv {
  std::string param_cache;  // FIL_PROOFS_PARAMETER_CACHE as given ("" when unset)
  bool shape_cache = true;
  std::vector<std::string> non_default;  // "NAME=value" for the caller to log once
};

// A bad value is a one-line error naming the variable.
Result<FilecoinEnv> filecoin_env_from(const GetenvFn& getenv_fn);

}  // namespace cuzk::apps
