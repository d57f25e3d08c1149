#include "apps/cuzk/vk_loader.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "apps/cuzk/common.hpp"
#include "formats/snarkjs_json.hpp"
#include "groth16/verifier.hpp"
#if __has_include("formats/bellperson/params.hpp")
#include "formats/bellperson/params.hpp"
#define CUZK_HAVE_BELLPERSON 1
#endif

namespace cuzk::cli {

Result<groth16::VerifyingKey> load_verifying_key(const std::string& path) {
  if (ends_with(path, ".json")) {
    auto vk = formats::read_verification_key_json(path);
    if (!vk) return Error{vk.error()};
    return vk->vk;
  }
#ifdef CUZK_HAVE_BELLPERSON
  if (ends_with(path, ".params")) {  // the .vk is a prefix of the .params file
    auto params = formats::bellperson::ParamsFile::open(path);
    if (!params) return Error{params.error()};
    return params->vk();
  }
  auto vk = formats::bellperson::read_vk_file(path);
  if (!vk) return Error{vk.error()};
  return vk->vk;
#else
  return Error{path + ": bellperson .vk files are not supported in this build"};
#endif
}

Result<std::vector<std::vector<math::Fr>>> read_partition_inputs_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{path + ": cannot open"};
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return Error{path + ": not valid JSON"};
  if (!j.is_array() || j.empty()) return Error{path + ": expected a non-empty array of input arrays"};
  std::vector<std::vector<math::Fr>> out;
  for (std::size_t k = 0; k < j.size(); ++k) {
    if (!j[k].is_array()) return Error{path + ": [" + std::to_string(k) + "] is not an array"};
    std::vector<math::Fr> v;
    for (std::size_t i = 0; i < j[k].size(); ++i) {
      const auto& e = j[k][i];
      std::string where = path + ": [" + std::to_string(k) + "][" + std::to_string(i) + "]";
      if (!e.is_string()) return Error{where + " is not a string"};
      const std::string& s = e.get_ref<const std::string&>();
      auto x = (s.rfind("0x", 0) == 0) ? math::Fr::from_hex(s) : math::Fr::from_decimal(s);
      if (!x) return Error{where + " is not a field element below r: \"" + s.substr(0, 80) + "\""};
      v.push_back(*x);
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace cuzk::cli
