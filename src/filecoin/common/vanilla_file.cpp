#include "filecoin/common/vanilla_file.hpp"

#include <algorithm>

#include "formats/base64.hpp"

#include <simdjson.h>

namespace cuzk::filecoin {
namespace {
std::string str(std::uint64_t x) { return std::to_string(x); }
}  // namespace

Result<std::vector<std::vector<std::uint8_t>>> read_vanilla_blobs(std::span<const std::uint8_t> file) {
  std::size_t i = 0;
  while (i < file.size() && (file[i] == ' ' || file[i] == '\n' || file[i] == '\r' || file[i] == '\t')) ++i;
  std::vector<std::vector<std::uint8_t>> out;
  if (i == file.size()) return Error{"the vanilla-proof file is empty"};
  const bool has_nul = std::find(file.begin(), file.end(), std::uint8_t(0)) != file.end();
  if (file[i] != '[' || has_nul) {  // raw bincode: one blob
    out.emplace_back(file.begin(), file.end());
    return out;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto e = parser.parse(reinterpret_cast<const char*>(file.data()), file.size()).get(doc); e != simdjson::SUCCESS)
    return Error{"vanilla-proof JSON: " + std::string(simdjson::error_message(e))};
  simdjson::dom::array arr;
  if (doc.get_array().get(arr) != simdjson::SUCCESS)
    return Error{"vanilla-proof JSON: expected an array of base64 strings"};
  std::size_t k = 0;
  for (simdjson::dom::element el : arr) {
    std::string_view text;
    if (el.get_string().get(text) != simdjson::SUCCESS)
      return Error{"vanilla-proof JSON: [" + str(k) + "]: expected a base64 string"};
    auto b = formats::base64_decode(text);
    if (!b) return Error{"vanilla-proof JSON: [" + str(k) + "]: " + b.error()};
    out.push_back(std::move(*b));
    ++k;
  }
  if (out.empty()) return Error{"vanilla-proof JSON: the array is empty (expected base64 strings)"};
  return out;
}

std::string write_vanilla_json(std::span<const std::vector<std::uint8_t>> blobs) {
  std::string s = "[";
  for (std::size_t k = 0; k < blobs.size(); ++k) {
    if (k) s += ",\n";
    s += "\"" + formats::base64_encode(blobs[k]) + "\"";
  }
  s += "]\n";
  return s;
}

}  // namespace cuzk::filecoin
