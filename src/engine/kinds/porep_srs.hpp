// How the SrsManager turns a Filecoin PoRep id ("porep-2k", "porep-32g", ...) into a proving key:
// the .params file under its official name in srs.param_cache (porep::porep_param_paths), decoded
// against the partition shape of that sector size (porep::load_or_record_porep_shape: "<params>.shape"
// when valid, else recorded and cached there), so the key
// and the shape live once per daemon and every PoRep job of that size shares them.
//
// Every registered-proof variant of one size (V1, V1_1, SyntheticPoRep, NonInteractivePoRep) uses the
// same parameter file and the same partition circuit (challenges per partition agree), so the shape
// is recorded with StackedDrg<size>V1_1; the job kind checks the input count against its own variant.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "engine/srs_manager.hpp"

namespace cuzk::engine::kinds::porep_srs {

// DIR/<official .params name> for a PoRep sector size.
Result<std::string> params_path(std::uint64_t sector_size, const std::string& dir);

// Budget reserved while loading (trimmed to the key's real size afterwards): the mapped file, the
// decoded points, and the recorded shape (estimated from the domain; see porep_srs.cpp).
std::uint64_t load_estimate(const std::string& params_path);

// Fills key.pk, key.shape and the counts; key.bytes is left to the caller. shape_cache_enabled = false
// (the daemon's CUZK_SHAPE_CACHE=0) records the shape without reading or writing "<params>.shape".
Status load(std::uint64_t sector_size, const std::string& params_path, LoadedKey& key, bool shape_cache_enabled = true);

}  // namespace cuzk::engine::kinds::porep_srs
