// The Filecoin proving keys as KeyLoaders: ids "<family>-<size>" (porep-32g, wpost-2k, winning-512m,
// snap-64g) for the five published sector sizes, each naming the official .params file in the
// parameter cache (filecoin/params), mapped and checked against the recorded partition shape of that
// size. One loader for every family (shaped_params_loader); what differs is the family's ShapedParams
// (family_key_loaders.cpp). An empty parameter cache directory means default_param_cache("").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engine/job_kind.hpp"
#include "engine/key_loader.hpp"
#include "engine/srs_manager.hpp"

#include "filecoin/common/shape_cache.hpp"
#include "filecoin/params/cache_names.hpp"

namespace cuzk::engine::kinds {

// Each Filecoin family's key-id prefix, written once: its loader serves "<prefix>-<size>" and its kind
// asks for that id (the Rust daemon's circuit ids: porep-32g, wpost-32g, winning-32g, snap-32g).
inline constexpr const char* kPorepKeys = "porep";
inline constexpr const char* kWindowPostKeys = "wpost";
inline constexpr const char* kWinningPostKeys = "winning";
inline constexpr const char* kSnapKeys = "snap";

// "porep-32g" for ("porep", 32 GiB); an error naming the size when it is not a Filecoin sector size.
Result<std::string> filecoin_key_id(const std::string& family, std::uint64_t sector_size);

// Ids "<family>-<size label>" (2k, 8m, 512m, 32g, 64g) and the sector size they name; the file and
// the load are the family's.
class FilecoinLoader : public KeyLoader {
 public:
  explicit FilecoinLoader(std::string family) : family_(std::move(family)) {}
  std::string family() const override { return family_; }
  std::vector<std::string> ids() const override;
  std::optional<KeyId> parse(std::string_view id) const override;

 protected:
  static std::string cache_dir(const std::string& param_cache);  // default_param_cache("") when empty
  std::string family_;
};

// What a family gives the one Filecoin key loader: its ids' prefix, its parameter files' family, and
// the partition shape of a sector size (filecoin::load_or_record_shape over the family's circuit: from
// `cache_path` when a valid one is there, else recorded, and cached there under kEnabled).
struct ShapedParams {
  std::string family;                   // "porep", "wpost", "winning", "snap"
  filecoin::params::ProofFamily files;  // the official .params name of each size (params::param_paths)
  std::function<Result<filecoin::ShapeLoad>(std::uint64_t sector_size, const std::string& cache_path,
                                            filecoin::ShapeCachePolicy policy)>
      shape;
};
// The loader of a ShapedParams family: ids "<family>-<size>", the .params under its official name in
// the parameter cache, its counts checked against the shape before any point is decoded, the shape
// cached beside it ("<params>.shape") when shape_cache. Load estimate: params_load_estimate at 80
// bytes per domain row (three CSR matrices, u64 row pointers, 8 bytes per entry; measured 66 B for
// StackedDrg32GiBV1_1 (bench/RESULTS_circuit.md), 66-67 B for the 2 KiB PoSt circuits; recording the
// shape with no cache peaks ~15% above it); the reservation is trimmed to the real size after the load.
std::shared_ptr<const KeyLoader> shaped_params_loader(ShapedParams family, bool shape_cache);

// The families' loaders (family_key_loaders.cpp): PoRep (porep-<size>), WindowPoSt (wpost-<size>),
// WinningPoSt (winning-<size>), SnapDeals (snap-<size>).
std::shared_ptr<const KeyLoader> porep_key_loader(bool shape_cache = true);
std::shared_ptr<const KeyLoader> wpost_key_loader(bool shape_cache = true);
std::shared_ptr<const KeyLoader> winning_key_loader(bool shape_cache = true);
std::shared_ptr<const KeyLoader> snap_key_loader(bool shape_cache = true);
// A loader's peak (KeyLoader::load_estimate): the recorded shape at shape_bytes_per_row per domain
// row + 1 GiB (a GPU copy's upload reads the file's bases a piece at a time); decode: the whole file
// mapped and its points at sizeof(G1Affine) / sizeof(G2Affine). The file's size (decode 0) when its
// header cannot be read.
LoadEstimate params_load_estimate(const std::string& path, std::uint64_t shape_bytes_per_row);
// A family loader's last step: the .params at `path` decoded against its circuit's recorded `shape`
// (the file's counts checked against the shape before any point is decoded), checked for consistency,
// as a LoadedKey holding both.
Result<std::shared_ptr<LoadedKey>> load_key_with_shape(const std::string& path, groth16::R1csShape shape);
// A loader's operator log of how it got key `key_id`'s partition shape (srs logger): a cache that
// was present but not used, or could not be written, at warn with the reason; a recording at info
// with its time; a cache hit at debug.
void log_shape_load(const std::string& key_id, const std::string& cache_path, const filecoin::ShapeLoad& load);
// The parameter directory when the config names none: FIL_PROOFS_PARAMETER_CACHE's value as the
// executable read it, else filecoin-proofs' default.
std::string default_param_cache(const std::string& env_value);

// Every Filecoin kind's last step of prepare: the lease of <family>-<size>, which must hold a decoded
// proving key whose shape `check_key` accepts (the job's own check). Errors name the key id.
Result<SrsLease> acquire_proving_key(PrepareContext& ctx, const std::string& family, std::uint64_t sector_size,
                                     const std::function<Status(const groth16::R1csShape&)>& check_key);

}  // namespace cuzk::engine::kinds
