// Each Filecoin family's key loader: shaped_params_loader (filecoin_keys.hpp) with the family's id
// prefix, parameter files and partition shape, so the key and the shape live once per daemon and
// every job of that family and size shares them.
//
// PoRep: every registered-proof variant of one size (V1, V1_1, SyntheticPoRep, NonInteractivePoRep)
// uses the same parameter file and partition circuit (challenges per partition agree), so the shape is
// recorded with StackedDrg<size>V1_1; the job kind checks the input count against its own variant.
// WindowPoSt V1 (codes 5-9) and V1_1 (10-14) of one size are one circuit and one parameter file: the
// version only changes the challenge values, which are public inputs, so the shape is recorded with
// the V1_1 code; 64 GiB (tree 8-8-2) has its own file, as every size. SnapDeals: all partitions of a
// size share one circuit, one key and one shape; the update proof codes 0-4 are one per size.
#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/shape.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/shape.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace porep = filecoin::porep;
namespace post = filecoin::post;
namespace snap = filecoin::snap;

Result<filecoin::ShapeLoad> porep_shape(std::uint64_t sector_size, const std::string& cache,
                                        filecoin::ShapeCachePolicy policy) {
  for (const auto& c : porep::all_porep_configs())
    if (c.sector_size == sector_size && c.variant == porep::PorepVariant::kV1_1)
      return porep::load_or_record_porep_shape(c, cache, policy);
  return Error{"no PoRep configuration for sector size " + std::to_string(sector_size)};
}

// The last configuration of the type and size: Window V1_1.
std::function<Result<filecoin::ShapeLoad>(std::uint64_t, const std::string&, filecoin::ShapeCachePolicy)> post_shape(
    post::PostType type) {
  return [type](std::uint64_t sector_size, const std::string& cache,
                filecoin::ShapeCachePolicy policy) -> Result<filecoin::ShapeLoad> {
    const post::PostConfig* found = nullptr;
    for (const auto& c : post::all_post_configs())
      if (c.type == type && c.sector_size == sector_size) found = &c;
    if (!found)
      return Error{std::string("no ") + post::to_string(type) + " PoSt configuration for sector size " +
                   std::to_string(sector_size)};
    return post::load_or_record_post_shape(*found, cache, policy);
  };
}

Result<filecoin::ShapeLoad> snap_shape(std::uint64_t sector_size, const std::string& cache,
                                       filecoin::ShapeCachePolicy policy) {
  auto config = snap::update_config_by_sector_size(sector_size);
  if (!config) return Error{config.error()};
  return snap::load_or_record_update_shape((*config)->geometry, (*config)->name, cache, policy);
}

}  // namespace

std::shared_ptr<const KeyLoader> porep_key_loader(bool shape_cache) {
  return shaped_params_loader({kPorepKeys, filecoin::params::ProofFamily::kPoRep, porep_shape}, shape_cache);
}
std::shared_ptr<const KeyLoader> wpost_key_loader(bool shape_cache) {
  return shaped_params_loader(
      {kWindowPostKeys, filecoin::params::ProofFamily::kWindowPoSt, post_shape(post::PostType::kWindow)}, shape_cache);
}
std::shared_ptr<const KeyLoader> winning_key_loader(bool shape_cache) {
  return shaped_params_loader(
      {kWinningPostKeys, filecoin::params::ProofFamily::kWinningPoSt, post_shape(post::PostType::kWinning)},
      shape_cache);
}
std::shared_ptr<const KeyLoader> snap_key_loader(bool shape_cache) {
  return shaped_params_loader({kSnapKeys, filecoin::params::ProofFamily::kSnapDeals, snap_shape}, shape_cache);
}

}  // namespace cuzk::engine::kinds
