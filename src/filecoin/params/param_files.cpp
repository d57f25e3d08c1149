#include "filecoin/params/param_files.hpp"

#include <filesystem>

#include "formats/bellperson/params.hpp"

namespace cuzk::filecoin::params {

ParamPaths param_paths(const ParamConfig& config, const std::string& dir) {
  const std::filesystem::path d(dir);
  return {(d / config.params_file()).string(), (d / config.vk_file()).string(), (d / config.meta_file()).string()};
}

Result<ParamPaths> param_paths(ProofFamily family, std::uint64_t sector_size, const std::string& dir) {
  auto pc = make_param_config(family, sector_size);
  if (!pc)
    return Error{std::string("no ") + family_name(family) + " parameter set for sector size " +
                 std::to_string(sector_size)};
  return param_paths(*pc, dir);
}

Result<groth16::ProvingKey> load_proving_key(const ParamPaths& paths, const groth16::R1csShape& shape) {
  return formats::bellperson::load_proving_key(paths.params, shape);
}

Result<groth16::VerifyingKey> load_verifying_key(const ParamPaths& paths) {
  auto vk = formats::bellperson::read_vk_file(paths.vk);
  if (!vk) return Error{vk.error()};
  return std::move(vk->vk);
}

}  // namespace cuzk::filecoin::params
