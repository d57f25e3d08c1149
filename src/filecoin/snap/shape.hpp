// The R1CS shape of one EmptySectorUpdate partition circuit (every partition of a size has the same
// shape: k changes only values), recorded once per geometry from values of the right shape,
// bellperson's input rows appended; cached next to the .params file (filecoin/common/shape_cache.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "filecoin/common/shape_cache.hpp"
#include "filecoin/snap/config.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::snap {

// Parallel over default_threads() (the partitioned variant's challenge blocks); the sequential
// recording is the reference the parallel one is tested against.
groth16::R1csShape record_update_shape(const SnapGeometry& g);
groth16::R1csShape record_update_shape_sequential(const SnapGeometry& g);

ShapeLoad load_or_record_update_shape(const SnapGeometry& g, const std::string& name, const std::string& cache_path,
                                      ShapeCachePolicy policy = ShapeCachePolicy::kEnabled);

// Counts of one partition circuit (memoized per geometry). rows excludes bellperson's input rows
// (TestConstraintSystem's figure: 2 KiB 1,705,039, 32 GiB 81,049,499; Poseidon 1 KiB 32,164).
struct UpdateCircuitCounts {
  std::uint64_t rows = 0;
  std::uint64_t inputs = 0;  // ONE included (5)
  std::uint64_t aux = 0;
  std::uint64_t binary_aux = 0;
  std::uint64_t groth16_rows() const { return rows + inputs; }
  std::uint32_t domain_log2() const;
  std::uint64_t compact_bytes() const { return (inputs + aux - binary_aux) * 32 + 2 * 8 * ((aux + 63) / 64); }
};
UpdateCircuitCounts count_update_circuit(const SnapGeometry& g);

}  // namespace cuzk::filecoin::snap
