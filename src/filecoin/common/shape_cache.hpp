// A proof family's partition shape (the R1CS matrices, bellperson's input rows appended), cached next
// to its .params file as "<params>.shape" (circuit/shape_io.hpp) so that it is recorded once per
// machine: recording a 2^27-row circuit takes tens of seconds, loading it a few.
//
// load_or_record_shape loads the cache file when it is present, valid (shape_io checks) and of this
// circuit (inputs, aux and rows equal `expected`, a cheap counting pass, so a cache of another
// circuit or one left by an older gadget library with other counts is not used), else records and
// saves it atomically (.tmp + rename). A cache that cannot be read or written is not an error: the
// recorded shape is returned and `note` says what happened. kDisabled (the apps map
// CUZK_SHAPE_CACHE=0 to it) disables both.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "groth16/r1cs.hpp"

namespace cuzk::filecoin {

enum class ShapeCachePolicy { kEnabled, kDisabled };

struct ShapeLoad {
  enum class Source {
    kCache,            // loaded from the cache file
    kRecordedSaved,    // recorded; the cache file was written
    kRecordedUnsaved,  // recorded; the cache could not be written (see note)
    kRecordedNoCache,  // recorded; caching disabled (kDisabled or an empty path)
  };
  groth16::R1csShape shape;
  Source source = Source::kRecordedNoCache;
  std::string note;  // why a present cache file was not used, or why it could not be written
  double load_s = 0, record_s = 0, save_s = 0;
};
const char* to_string(ShapeLoad::Source s);

// The counts a cached shape must have: inputs (ONE included), aux, and Groth16 rows (input rows included).
struct ShapeCounts {
  std::uint64_t inputs = 0, aux = 0, rows = 0;
};

// "<params path>.shape"
std::string shape_cache_path(const std::string& params_path);

// `expected` is called only when a cache file is present. `name` names the circuit in notes ("StackedDrg2KiBV1_1: aux
// count differs").
ShapeLoad load_or_record_shape(const std::string& name, const std::string& cache_path, ShapeCachePolicy policy,
                               const std::function<ShapeCounts()>& expected,
                               const std::function<groth16::R1csShape()>& record);

}  // namespace cuzk::filecoin
