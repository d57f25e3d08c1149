// TEST-ONLY bellperson .params / .vk for a circuit, written section by section so that a key far
// larger than memory (the 32 GiB PoRep partition: ~47 GB) is never held whole: the scalars of one
// slice of one query are formed (groth16::SetupScalars), multiplied (a FixedBaseMultiplier: CPU
// tables or the GPU), encoded and appended, while the previous slice is still being written on a
// second thread. The bytes are identical to write_params(generate_test_key(shape, kMonomialOverZ,
// toxic)) + write_vk for the same toxic waste (tests/formats_bellperson/test_params_writer_test.cpp).
//
// Host memory besides the shape: SetupScalars (32 B x (rows during the QAP, then 3 x variables) +
// 4 B x (a + b entries)) + slice x 32 B of scalars + 2 x slice x 96 / 192 B of encoded points + the
// multiplier's own staging (GPU: per group 2 x batch x (32 + 96 / 192) B pinned). 32 GiB PoRep
// partition (130.2 M variables, 2^27 rows, slice 2^23, batch 2^21): 12.5 + 0.65 + 0.27 + 3.2 + 1.5
// ≈ 18 GB; the QAP's peak (u, v, w and 4.2 GB of Lagrange values, 16.7 GB) comes before the buffers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::formats::bellperson {

struct TestParamsOptions {
  std::size_t threads = 0;                             // 0: cuzk::default_threads()
  groth16::FixedBaseMultiplier* multiplier = nullptr;  // nullptr: CPU tables on `threads` workers
  // Points formed, multiplied and written at a time: several GPU batches (gpu::FixedBaseConfig::chunk),
  // so the GPU's two streams overlap within a slice.
  std::size_t chunk = std::size_t(1) << 23;
  // Optional progress, for a caller that shows it (`cuzk setup`): called on the calling thread with
  // the stage ("QAP at tau", then the sections vk, h, l, a, b_g1, b_g2) and the points multiplied so
  // far / in all over every section (total 0 while the QAP runs: the counts are not known yet).
  std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
  // With `progress`: points per multiplier call at most (0: a whole slice), so that a slow
  // multiplier (the CPU tables: ~0.1 M points/s on 2 cores) reports every few seconds. The bytes
  // written do not depend on it.
  std::size_t progress_points = 0;
};

struct TestParamsReport {
  struct Section {
    std::string name;
    std::size_t points = 0;
    double scalars_s = 0, mul_s = 0;  // forming the scalars; multiplying and encoding them
  };
  std::string multiplier;
  double lagrange_s = 0, accumulate_s = 0, combine_s = 0;  // the QAP at tau
  std::vector<Section> sections;                           // vk (its 6 points + ic), h, l, a, b_g1, b_g2
  double write_wait_s = 0;                                 // time the computation waited for the disk
  double total_s = 0;
  std::size_t scalars_bytes = 0, buffer_bytes = 0;  // SetupScalars; slice buffers
};

// Writes params_path (and vk_path unless empty) through temporary files renamed into place.
// shape: input rows appended, C present. Fails like write_params would (an identity point, a count
// above 2^32 - 1), before renaming anything into place.
Status write_test_params(const groth16::R1csShape& shape, const groth16::ToxicWaste& toxic,
                         const std::string& params_path, const std::string& vk_path,
                         const TestParamsOptions& options = {}, TestParamsReport* report = nullptr);

}  // namespace cuzk::formats::bellperson
