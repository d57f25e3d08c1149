// The PoRep KeyLoader: how the SrsManager turns a PoRep id ("porep-2k", "porep-32g", ...) into a
// proving key: the .params file under its official name in the parameter cache
// (porep::porep_param_paths), decoded against the partition shape of that sector size
// (porep::load_or_record_porep_shape: "<params>.shape" when valid, else recorded and cached there),
// so the key and the shape live once per daemon and every PoRep job of that size shares them.
//
// Every registered-proof variant of one size (V1, V1_1, SyntheticPoRep, NonInteractivePoRep) uses the
// same parameter file and the same partition circuit (challenges per partition agree), so the shape
// is recorded with StackedDrg<size>V1_1; the job kind checks the input count against its own variant.
#include <filesystem>

#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/params.hpp"
#include "filecoin/porep/shape.hpp"
#include "formats/bellperson/params.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace porep = filecoin::porep;

Result<const porep::PorepConfig*> config_for_size(std::uint64_t sector_size) {
  for (const auto& c : porep::all_porep_configs()) {
    if (c.sector_size == sector_size && c.variant == porep::PorepVariant::kV1_1) return &c;
  }
  return Error{"no PoRep configuration for sector size " + std::to_string(sector_size)};
}

// The shape's size per domain row: three CSR matrices with u64 row pointers and 8 bytes per entry
// (u32 column + u32 coefficient id). Measured: StackedDrg2KiBV1_1 175.5 MiB over 2^22 rows = 44 B,
// StackedDrg32GiBV1_1 8,493 MiB over 2^27 rows = 66 B (bench/RESULTS_circuit.md); recording the
// shape when no cache exists peaks ~15% above the shape itself.
constexpr std::uint64_t kShapeBytesPerRow = 80;

class PorepLoader final : public FilecoinLoader {
 public:
  explicit PorepLoader(bool shape_cache) : FilecoinLoader("porep"), shape_cache_(shape_cache) {}

  Result<std::string> path(const KeyId& id, const std::string& param_cache) const override {
    auto config = config_for_size(id.sector_size);
    if (!config) return Error{config.error()};
    auto paths = porep::porep_param_paths(**config, cache_dir(param_cache));
    if (!paths) return Error{paths.error()};
    return paths->params;
  }

  // The mapped file, the decoded points and the recorded shape (filecoin_keys.hpp).
  LoadEstimate load_estimate(const KeyId&, const std::string& path) const override {
    return params_load_estimate(path, kShapeBytesPerRow);
  }

  Result<std::shared_ptr<LoadedKey>> load(const KeyId& id, const std::string& path) const override {
    auto config = config_for_size(id.sector_size);
    if (!config) return Error{config.error()};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return Error{"parameter file not found: " + path};
    // The file's counts are checked against the circuit before anything is decoded, so a .params of
    // another circuit fails after the shape is recorded, naming the count that differs. The shape
    // comes from "<params>.shape" when a valid one is there, else it is recorded and cached there
    // (an unwritable directory only costs the recording next time).
    auto shape_load = porep::load_or_record_porep_shape(
        **config, porep::porep_shape_cache_path(path),
        shape_cache_ ? porep::ShapeCachePolicy::kEnabled : porep::ShapeCachePolicy::kDisabled);
    log_shape_load(id.text, porep::porep_shape_cache_path(path), shape_load);
    return load_key_with_shape(path, std::move(shape_load.shape));
  }

 private:
  bool shape_cache_;
};

}  // namespace

std::shared_ptr<const KeyLoader> porep_key_loader(bool shape_cache) { return std::make_shared<PorepLoader>(shape_cache); }

}  // namespace cuzk::engine::kinds
