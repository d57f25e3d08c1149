// The PoSt KeyLoaders: how the SrsManager turns "wpost-<size>" / "winning-<size>" into a proving key:
// the .params file under its official name in the parameter cache (params::param_paths), decoded
// against the partition shape of that registered proof (post::load_or_record_post_shape:
// "<params>.shape" when valid, else recorded and cached there), so the key and the shape live once
// per daemon and every PoSt job of that size shares them.
//
// WindowPoSt V1 (codes 5-9) and V1_1 (10-14) of one size are one circuit and one parameter file: the
// version only changes the challenge values, which are public inputs, so the shape is recorded with
// the V1_1 code. Each size has its own id and file: 64 GiB (tree 8-8-2) is wpost-64g / winning-64g.
#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/shape.hpp"
#include "formats/bellperson/params.hpp"

#include <filesystem>

namespace cuzk::engine::kinds {
namespace {

namespace post = filecoin::post;

Result<const post::PostConfig*> config_for(post::PostType type, std::uint64_t sector_size) {
  const post::PostConfig* found = nullptr;
  for (const auto& c : post::all_post_configs())
    if (c.type == type && c.sector_size == sector_size) found = &c;  // the last: Window V1_1
  if (!found) return Error{std::string("no ") + post::to_string(type) + " PoSt configuration for sector size " +
                           std::to_string(sector_size)};
  return found;
}

// The shape's size per domain row (three CSR matrices, u64 row pointers, 8 bytes per entry), as for
// PoRep; the PoSt circuits measure below it: StackedDrgWindow2KiBV1_1 66 B, StackedDrgWinning2KiBV1
// 67 B (tests/engine/post_kind_test.cpp prints them). The reservation is trimmed to the key's real
// size after the load.
constexpr std::uint64_t kShapeBytesPerRow = 80;

class PostLoader final : public FilecoinLoader {
 public:
  PostLoader(post::PostType type, bool shape_cache)
      : FilecoinLoader(type == post::PostType::kWinning ? "winning" : "wpost"), type_(type), shape_cache_(shape_cache) {}

  Result<std::string> path(const KeyId& id, const std::string& param_cache) const override {
    auto config = config_for(type_, id.sector_size);
    if (!config) return Error{config.error()};
    auto paths = filecoin::params::param_paths((*config)->family(), id.sector_size, cache_dir(param_cache));
    if (!paths) return Error{paths.error()};
    return paths->params;
  }

  LoadEstimate load_estimate(const KeyId&, const std::string& path) const override {
    return params_load_estimate(path, kShapeBytesPerRow);
  }

  Result<std::shared_ptr<LoadedKey>> load(const KeyId& id, const std::string& path) const override {
    auto config = config_for(type_, id.sector_size);
    if (!config) return Error{config.error()};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return Error{"parameter file not found: " + path};
    // The file's counts are checked against the circuit before anything is decoded (a .params of
    // another circuit fails naming the count that differs); an unwritable cache only costs the
    // recording next time.
    auto shape_load = post::load_or_record_post_shape(
        **config, filecoin::shape_cache_path(path),
        shape_cache_ ? filecoin::ShapeCachePolicy::kEnabled : filecoin::ShapeCachePolicy::kDisabled);
    log_shape_load(id.text, filecoin::shape_cache_path(path), shape_load);
    return load_key_with_shape(path, std::move(shape_load.shape));
  }

 private:
  post::PostType type_;
  bool shape_cache_;
};

}  // namespace

std::shared_ptr<const KeyLoader> wpost_key_loader(bool shape_cache) {
  return std::make_shared<PostLoader>(post::PostType::kWindow, shape_cache);
}
std::shared_ptr<const KeyLoader> winning_key_loader(bool shape_cache) {
  return std::make_shared<PostLoader>(post::PostType::kWinning, shape_cache);
}

}  // namespace cuzk::engine::kinds
