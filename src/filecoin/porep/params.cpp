#include "filecoin/porep/params.hpp"

#include "filecoin/params/param_files.hpp"

namespace cuzk::filecoin::porep {
Result<PorepParamPaths> porep_param_paths(const porep::PorepConfig& config, const std::string& dir) {
  auto p = params::param_paths(params::ProofFamily::kPoRep, config.sector_size, dir);
  if (!p) return Error{config.name + ": " + p.error()};
  return PorepParamPaths{p->params, p->vk, p->meta};
}

Result<groth16::ProvingKey> load_porep_proving_key(const porep::PorepConfig& config, const std::string& dir,
                                                   const groth16::R1csShape& shape) {
  auto paths = porep_param_paths(config, dir);
  if (!paths) return Error{paths.error()};
  return params::load_proving_key({paths->params, paths->vk, paths->meta}, shape);
}

Result<groth16::VerifyingKey> load_porep_vk(const porep::PorepConfig& config, const std::string& dir) {
  auto paths = porep_param_paths(config, dir);
  if (!paths) return Error{paths.error()};
  return params::load_verifying_key({paths->params, paths->vk, paths->meta});
}

}  // namespace cuzk::filecoin::porep
