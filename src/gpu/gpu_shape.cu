// GpuShape: an R1CS shape's A, B, C matrices on the device in the csr_words.hpp encoding (long rows
// listed in pieces), and the synthetic shapes of the benchmarks, generated on the GPU.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <vector>

#include "gpu/generators.hpp"
#include "gpu/groth16_device.cuh"

namespace cuzk::gpu {
namespace {

// Synthetic shapes: row r of a matrix with `whole` + (1 with probability frac/2^16) terms.
__device__ __forceinline__ u64 mix64(u64 x) {
  u64 z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
__device__ __forceinline__ u32 synth_terms(u64 seed, u64 r, u32 whole, u32 frac16) {
  return whole + ((mix64(seed ^ (r * 0x2545f4914f6cdd1dULL)) & 0xffff) < frac16 ? 1u : 0u);
}
__device__ __forceinline__ u64 synth_term_hash(u64 seed, u64 r, u32 j) {
  return mix64(seed + r * 64 + j + 0x1234567ULL);
}
__device__ __forceinline__ bool synth_explicit(u64 h) { return ((h >> 40) & 7) == 0; }

// Long synthetic rows (every `every`-th row when every > 0): `lterms` terms of +-1, one word each,
// as the PoRep circuit's bit-packing rows.
__device__ __forceinline__ bool synth_long(u64 r, u32 every) { return every && r % every == every - 1; }

__global__ void synth_count_kernel(u64 rows, u64 seed, u32 whole, u32 frac16, u32 every, u32 lterms, u32* counts) {
  const u64 r = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  if (synth_long(r, every)) {
    counts[r] = lterms;
    return;
  }
  const u32 terms = synth_terms(seed, r, whole, frac16);
  u32 words = terms;
  for (u32 j = 0; j < terms; ++j) words += synth_explicit(synth_term_hash(seed, r, j)) ? 1 : 0;
  counts[r] = words;
}

__global__ void synth_fill_kernel(u64 rows, u64 seed, u32 whole, u32 frac16, u32 every, u32 lterms, u32 nvars,
                                  u32 ncoef, const u32* row_ptr, u32* words) {
  const u64 r = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  u32 t = row_ptr[r];
  if (synth_long(r, every)) {
    for (u32 j = 0; j < lterms; ++j) {
      const u64 h = synth_term_hash(seed, r, j);
      words[t++] = u32((h & 0xffffffffULL) % nvars) | (((h >> 44) & 1) ? kTagMinus : 0u);
    }
    return;
  }
  const u32 terms = synth_terms(seed, r, whole, frac16);
  for (u32 j = 0; j < terms; ++j) {
    const u64 h = synth_term_hash(seed, r, j);
    const u32 var = u32((h & 0xffffffffULL) % nvars);
    if (synth_explicit(h)) {
      words[t++] = var | kTagExplicit;
      words[t++] = u32((h >> 48) % ncoef);
    } else {
      words[t++] = var | (((h >> 44) & 1) ? kTagMinus : 0u);
    }
  }
}

// The long rows' pieces to the device.
void upload_long_rows(const LongRows& lr, DevCsr& d) {
  d.pieces = lr.pieces();
  d.num_long = lr.count();
  if (d.num_long) {
    d.piece_bounds = upload_vector(lr.piece_bounds);
    d.long_rows = upload_vector(lr.long_rows);
  }
}

DevCsr upload_words(const CsrWords& enc) {
  DevCsr d;
  d.row_ptr = upload_vector(enc.row_ptr);
  d.words = upload_vector(enc.words);
  d.coefs = upload_vector(enc.coefs);
  upload_long_rows(enc.long_rows, d);
  return d;
}

}  // namespace

GpuShape::GpuShape() : impl_(std::make_unique<Impl>()) {}
GpuShape::~GpuShape() = default;
std::size_t GpuShape::num_constraints() const { return impl_->rows; }
std::size_t GpuShape::device_bytes() const { return impl_->bytes; }

struct GpuShape::Encoded {
  std::size_t rows = 0;
  bool has_c = true;
  std::uint32_t num_inputs = 0, num_aux = 0;
  CsrWords a, b, c;
};

Result<std::shared_ptr<const GpuShape::Encoded>> GpuShape::encode(const groth16::R1csShape& shape) {
  const std::size_t nvars = shape.num_variables();
  if (nvars >= (std::size_t(1) << 30)) return Error{"GPU prover: at most 2^30 variables"};
  auto e = std::make_shared<Encoded>();
  e->rows = shape.num_constraints();
  e->has_c = shape.has_c;
  e->num_inputs = shape.num_inputs;
  e->num_aux = shape.num_aux;
  auto a = encode_csr(shape.a, e->rows, nvars, "A");
  if (!a) return Error{a.error()};
  e->a = std::move(*a);
  auto b = encode_csr(shape.b, e->rows, nvars, "B");
  if (!b) return Error{b.error()};
  e->b = std::move(*b);
  if (e->has_c) {
    auto c = encode_csr(shape.c, e->rows, nvars, "C");
    if (!c) return Error{c.error()};
    e->c = std::move(*c);
  }
  return std::shared_ptr<const Encoded>(std::move(e));
}

Result<std::unique_ptr<GpuShape>> GpuShape::upload(const Encoded& e) {
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuShape> s(new GpuShape());
    auto& d = *s->impl_;
    d.rows = e.rows;
    d.has_c = e.has_c;
    d.num_inputs = e.num_inputs;
    d.num_aux = e.num_aux;
    d.a = upload_words(e.a);
    d.b = upload_words(e.b);
    if (d.has_c) d.c = upload_words(e.c);
    d.bytes = d.a.bytes() + d.b.bytes() + d.c.bytes();
    CUZK_CUDA(cudaDeviceSynchronize());
    return std::move(s);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: uploading the constraint system failed: ") + e.what()};
  }
}

Result<std::unique_ptr<GpuShape>> GpuShape::upload(const groth16::R1csShape& shape) {
  auto e = encode(shape);
  if (!e) return Error{e.error()};
  return upload(**e);
}

Result<std::unique_ptr<GpuShape>> GpuShape::synthetic(const SyntheticSpec& sp) {
  const std::size_t nvars = std::size_t(sp.num_inputs) + sp.num_aux;
  if (nvars == 0 || nvars >= (std::size_t(1) << 30)) return Error{"GPU prover: 1 .. 2^30 variables"};
  if (sp.rows >= (std::uint64_t(1) << 31)) return Error{"GPU prover: too many rows"};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuShape> s(new GpuShape());
    auto& d = *s->impl_;
    d.rows = sp.rows;
    d.has_c = true;
    d.num_inputs = sp.num_inputs;
    d.num_aux = sp.num_aux;
    constexpr u32 kCoefs = 1024;
    DevCsr* mats[3] = {&d.a, &d.b, &d.c};
    const double terms[3] = {sp.a_terms, sp.b_terms, sp.c_terms};
    for (int k = 0; k < 3; ++k) {
      const u32 whole = u32(terms[k]);
      const u32 frac16 = u32((terms[k] - whole) * 65536.0);
      const double long_words =
          k == 0 && sp.long_row_every ? double(sp.rows) / sp.long_row_every * sp.long_row_terms : 0;
      if (double(sp.rows) * (whole + 1) * 2 + long_words >= 4294967295.0)
        return Error{"GPU prover: synthetic shape too large"};
      // Rows over kLongRowWords words must be the listed long rows (split_long_rows below).
      if ((whole + 1) * 2 > kLongRowWords) return Error{"GPU prover: synthetic rows have at most 15 terms on average"};
      const u64 seed = host_mix64(sp.seed * 3 + k);
      DeviceBuffer counts((sp.rows + 1) * 4);
      DevCsr& m = *mats[k];
      m.row_ptr = DeviceBuffer((sp.rows + 1) * 4);
      CUZK_CUDA(cudaMemset(counts.get(), 0, (sp.rows + 1) * 4));
      const u32 every = k == 0 ? sp.long_row_every : 0, lterms = sp.long_row_terms;
      synth_count_kernel<<<grid_for(sp.rows, 256), 256>>>(sp.rows, seed, whole, frac16, every, lterms,
                                                          ptr<u32>(counts));
      CUZK_CUDA_LAUNCH();
      std::size_t tmp_bytes = 0;
      CUZK_CUDA(
          cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, ptr<u32>(counts), ptr<u32>(m.row_ptr), int(sp.rows + 1)));
      DeviceBuffer tmp(std::max<std::size_t>(tmp_bytes, 16));
      CUZK_CUDA(
          cub::DeviceScan::ExclusiveSum(tmp.get(), tmp_bytes, ptr<u32>(counts), ptr<u32>(m.row_ptr), int(sp.rows + 1)));
      u32 total = 0;
      CUZK_CUDA(cudaMemcpy(&total, ptr<u32>(m.row_ptr) + sp.rows, 4, cudaMemcpyDeviceToHost));
      m.words = DeviceBuffer(std::max<std::size_t>(total, 1) * 4);
      m.coefs = DeviceBuffer(kCoefs * sizeof(Fr));
      gen_random_scalars(m.coefs.get(), kCoefs, seed ^ 0xc0ef);
      synth_fill_kernel<<<grid_for(sp.rows, 256), 256>>>(sp.rows, seed, whole, frac16, every, lterms, u32(nvars),
                                                         kCoefs, ptr<const u32>(m.row_ptr), ptr<u32>(m.words));
      CUZK_CUDA_LAUNCH();
      CUZK_CUDA(cudaDeviceSynchronize());
      if (every && lterms > kLongRowWords) {  // only the long rows exceed kLongRowWords (checked above)
        std::vector<u32> row_ptr(sp.rows + 1);
        CUZK_CUDA(cudaMemcpy(row_ptr.data(), m.row_ptr.get(), row_ptr.size() * 4, cudaMemcpyDeviceToHost));
        upload_long_rows(split_long_rows(row_ptr, [](u32) { return 1u; }), m);  // their terms are one word each
      }
    }
    d.bytes = d.a.bytes() + d.b.bytes() + d.c.bytes();
    return std::move(s);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: making the synthetic shape failed: ") + e.what()};
  }
}

}  // namespace cuzk::gpu
