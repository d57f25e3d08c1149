#include "filecoin/porep/params.hpp"

#include <filesystem>

#include "filecoin/params/cache_names.hpp"
#include "formats/bellperson/params.hpp"

namespace cuzk::filecoin::porep {
Result<PorepParamPaths> porep_param_paths(const porep::PorepConfig& config, const std::string& dir) {
  auto pc = params::make_param_config(params::ProofFamily::kPoRep, config.sector_size);
  if (!pc) return Error{config.name + ": no PoRep parameter set for sector size " + std::to_string(config.sector_size)};
  const std::filesystem::path d(dir);
  return PorepParamPaths{(d / pc->params_file()).string(), (d / pc->vk_file()).string(), (d / pc->meta_file()).string()};
}

Result<groth16::ProvingKey> load_porep_proving_key(const porep::PorepConfig& config, const std::string& dir,
                                                   const groth16::R1csShape& shape) {
  auto paths = porep_param_paths(config, dir);
  if (!paths) return Error{paths.error()};
  return formats::bellperson::load_proving_key(paths->params, shape);
}

Result<groth16::VerifyingKey> load_porep_vk(const porep::PorepConfig& config, const std::string& dir) {
  auto paths = porep_param_paths(config, dir);
  if (!paths) return Error{paths.error()};
  auto vk = formats::bellperson::read_vk_file(paths->vk);
  if (!vk) return Error{vk.error()};
  return std::move(vk->vk);
}

}  // namespace cuzk::filecoin::porep
