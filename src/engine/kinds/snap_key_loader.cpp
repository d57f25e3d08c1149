// The SnapDeals KeyLoader: how the SrsManager turns "snap-<size>" into a proving key: the .params file
// under its official name in the parameter cache (params::param_paths, family kSnapDeals), decoded
// against the partition shape of that size (snap::load_or_record_update_shape: "<params>.shape" when
// valid, else recorded and cached there). All P partitions of a size share one circuit, one key and
// one shape; the update proof codes 0–4 are one per size.
#include <filesystem>

#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/params/param_files.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/shape.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace snap = filecoin::snap;

// The shape's size per domain row (three CSR matrices, u64 row pointers, 8 bytes per entry), as for
// PoRep; the reservation is trimmed to the key's real size after the load.
constexpr std::uint64_t kShapeBytesPerRow = 80;

class SnapLoader final : public FilecoinLoader {
 public:
  explicit SnapLoader(bool shape_cache) : FilecoinLoader("snap"), shape_cache_(shape_cache) {}

  Result<std::string> path(const KeyId& id, const std::string& param_cache) const override {
    auto config = snap::update_config_by_sector_size(id.sector_size);
    if (!config) return Error{config.error()};
    auto paths = filecoin::params::param_paths((*config)->family(), id.sector_size, cache_dir(param_cache));
    if (!paths) return Error{paths.error()};
    return paths->params;
  }

  LoadEstimate load_estimate(const KeyId&, const std::string& path) const override {
    return params_load_estimate(path, kShapeBytesPerRow);
  }

  Result<std::shared_ptr<LoadedKey>> load(const KeyId& id, const std::string& path) const override {
    auto config = snap::update_config_by_sector_size(id.sector_size);
    if (!config) return Error{config.error()};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return Error{"parameter file not found: " + path};
    auto shape_load = snap::load_or_record_update_shape(
        (*config)->geometry, (*config)->name, filecoin::shape_cache_path(path),
        shape_cache_ ? filecoin::ShapeCachePolicy::kEnabled : filecoin::ShapeCachePolicy::kDisabled);
    log_shape_load(id.text, filecoin::shape_cache_path(path), shape_load);
    return load_key_with_shape(path, std::move(shape_load.shape));
  }

 private:
  bool shape_cache_;
};

}  // namespace

std::shared_ptr<const KeyLoader> snap_key_loader(bool shape_cache) { return std::make_shared<SnapLoader>(shape_cache); }

}  // namespace cuzk::engine::kinds
