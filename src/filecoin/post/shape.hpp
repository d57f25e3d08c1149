// The R1CS shape of one FallbackPoSt partition circuit, recorded once per registered proof from values
// of the right shape (the gadgets never branch on values), bellperson's input rows appended. Every
// sector block has the same shape, so after the first block's size is known every block is recorded
// by its own thread into its window of the pre-sized CSR arrays (circuit/slice_recorder.hpp):
// bit-identical to the sequential recording (tests compare them). Cached next to the .params file
// (filecoin/common/shape_cache.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "filecoin/common/shape_cache.hpp"
#include "filecoin/post/config.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::post {

// Parallel over default_threads().
groth16::R1csShape record_post_shape(const PostConfig& config);
// One thread, in plain synthesis order (the reference the parallel recording is tested against).
groth16::R1csShape record_post_shape_sequential(const PostConfig& config);

ShapeLoad load_or_record_post_shape(const PostConfig& config, const std::string& cache_path,
                                    ShapeCachePolicy policy = ShapeCachePolicy::kEnabled);

// Counts of one partition circuit (memoized per configuration; one sector block is counted and
// multiplied). rows excludes bellperson's input rows (TestConstraintSystem's figure).
struct PostCircuitCounts {
  std::uint64_t rows = 0;
  std::uint64_t inputs = 0;  // ONE included
  std::uint64_t aux = 0;
  std::uint64_t binary_aux = 0;
  std::uint64_t groth16_rows() const { return rows + inputs; }
  std::uint32_t domain_log2() const;
  // Host bytes of the compact witness: inputs and non-binary aux as Fr, two bitmaps over aux.
  std::uint64_t compact_bytes() const { return (inputs + aux - binary_aux) * 32 + 2 * 8 * ((aux + 63) / 64); }
};
PostCircuitCounts count_post_circuit(const PostConfig& config);

}  // namespace cuzk::filecoin::post
