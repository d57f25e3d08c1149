// The R1CS shape of one PoRep partition (StackedCircuit), recorded once per registered proof from
// values of the right shape: the gadgets never branch on values, so every partition of every sector
// of that configuration has exactly this shape (filecoin-formats.md §4.3). Input rows appended, as
// bellperson does before it builds the QAP.
//
// Recording is parallel: the prefix sequentially, one challenge's size from a pass that stores
// nothing, then every challenge (all of the same shape) on its own thread straight into the final,
// pre-sized CSR arrays (circuit/slice_recorder.hpp); the result is bit-identical to the sequential
// recording.
// The shape is cached next to the .params file (load_or_record_porep_shape, over filecoin/common/shape_cache.hpp:
// filecoin::shape_cache_path, filecoin::ShapeLoad).
#pragma once

#include <cstdint>
#include <string>

#include "filecoin/common/shape_cache.hpp"
#include "filecoin/porep/config.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::porep {

// Parallel over default_threads() (CUZK_THREADS).
groth16::R1csShape record_porep_shape(const porep::PorepConfig& config);
// One thread, in plain synthesis order (the reference the parallel recording is tested against).
groth16::R1csShape record_porep_shape_sequential(const porep::PorepConfig& config);

// filecoin::load_or_record_shape for this configuration's partition circuit (counts from a counting pass).
filecoin::ShapeLoad load_or_record_porep_shape(const porep::PorepConfig& config, const std::string& cache_path,
                                               ShapeCachePolicy policy = ShapeCachePolicy::kEnabled);

// Variable counts of one partition's witness, from a counting run over dummy values (the same for
// every partition: the gadgets never branch on values). `binary_aux` says how compact the witness is
// (groth16::CompactAssignment), which sizes the memory reserved per partition.
struct PorepWitnessCounts {
  std::uint64_t inputs = 0;  // ONE included
  std::uint64_t aux = 0;
  std::uint64_t binary_aux = 0;
  // Host bytes of the compact witness: inputs and non-binary aux as Fr, two bitmaps over aux.
  std::uint64_t compact_bytes() const { return (inputs + aux - binary_aux) * 32 + 2 * 8 * ((aux + 63) / 64); }
};
// Memoized per configuration (thread-safe); the first call for a 32 GiB configuration takes about as
// long as one partition's synthesis (~1 s).
PorepWitnessCounts count_porep_witness(const porep::PorepConfig& config);

}  // namespace cuzk::filecoin::porep
