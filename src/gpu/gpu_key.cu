// GpuKey: a proving key's bases on the device (resident, H with shifted copies) or in pinned host
// memory streamed through chunk rings, the A/B query maps, and the H-quotient constants; and the
// synthetic keys of the benchmarks. The struct is groth16_device.cuh's GpuKey::Impl.
#include <algorithm>
#include <span>
#include <vector>

#include "base/parallel.hpp"
#include "gpu/generators.hpp"
#include "gpu/groth16_device.cuh"
#include "groth16/snarkjs_domain.hpp"

namespace cuzk::gpu {
namespace {

using groth16::Query;

// hi[k] = c * h^(k 2^14), lo[j] = h^j (j < min(count, 2^14)): h^j = hi[j >> 14] * lo[j & mask].
void power_tables(std::size_t count, const HostFr& h, std::vector<HostFr>& hi, std::vector<HostFr>& lo) {
  const std::size_t nlo = std::min<std::size_t>(std::max<std::size_t>(count, 1), std::size_t(1) << kPowLoBits);
  const std::size_t nhi = std::max<std::size_t>(1, (count + (std::size_t(1) << kPowLoBits) - 1) >> kPowLoBits);
  lo.resize(nlo);
  HostFr x = HostFr::one();
  for (auto& v : lo) {
    v = x;
    x *= h;
  }
  HostFr step = h;
  for (int i = 0; i < kPowLoBits; ++i) step = step.square();
  hi.resize(nhi);
  x = HostFr::one();
  for (auto& v : hi) {
    v = x;
    x *= step;
  }
}

// In-place p[i] <-> p[bitrev(i)] for i < count (count = m - 1: bitrev maps [0, m-1) onto itself).
template <class F>
__global__ void bitrev_points_kernel(AffineT<F>* p, u64 count, int logn) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const u64 j = bitrev_dev(i, logn);
  if (i < j && j < count) {
    AffineT<F> x = load_affine_rw(p + i), y = load_affine_rw(p + j);
    store_affine(p + i, y);
    store_affine(p + j, x);
  }
}

// The bellperson H bases in the order the H scalars leave the last NTT: p[i] <-> p[bitrev(i)] for
// i < count (count = m - 1, which bitrev maps onto itself), on the device or on the host.
void bitrev_h_device(void* bases, std::size_t count, int log_m) {
  bitrev_points_kernel<Fp><<<grid_for(count, 256), 256>>>(static_cast<G1Affine*>(bases), count, log_m);
  CUZK_CUDA_LAUNCH();
}
void bitrev_h_host(void* bases, std::size_t count, int log_m) {
  auto* p = static_cast<G1Affine*>(bases);
  parallel_chunks(count, default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) {
      std::size_t j = 0;
      for (int k = 0; k < log_m; ++k) j |= ((i >> k) & 1) << (log_m - 1 - k);
      if (i < j && j < count) std::swap(p[i], p[j]);
    }
  });
}

// Bases per piece of an upload: 2^21 G1 bases are 218 MB decoded (two pieces in flight).
constexpr std::size_t kUploadPiece = std::size_t(1) << 21;

// The bases of one query of `key`, piece by piece: from its vectors when it holds them, else decoded
// from its source (ProvingKey::source), which gives the file's pages back after each piece.
// The held bases of query q of `key` (ProvingKey::holds_bases()).
template <class HA>
const HA* held_bases(const groth16::ProvingKey& key, Query q) {
  if constexpr (std::is_same_v<HA, math::G2Affine>) {
    return key.b_g2.data();
  } else {
    return q == Query::kH   ? key.h.data()
           : q == Query::kL ? key.l.data()
           : q == Query::kA ? key.a.data()
                            : key.b_g1.data();
  }
}

// Bases [first, first + out.size()) of query q from a key's source (it gives the file's pages back).
template <class HA>
Status read_source(const groth16::BaseSource& src, Query q, std::size_t first, std::span<HA> out) {
  if constexpr (std::is_same_v<HA, math::G2Affine>) {
    return src.read_b_g2(first, out);
  } else {
    return src.read(q, first, out);
  }
}

// Bases [first, first + n) of query q from `src`, decoded into `scratch` and converted into `out`
// (device layout): a streamed query's pieces at the upload, a file-streamed query's chunks at each proof.
template <class HA>
Status stage_bases_t(const groth16::BaseSource& src, Query q, std::size_t first, std::size_t n,
                     std::vector<HA>& scratch, void* out) {
  if (scratch.size() < n) scratch.resize(n);
  if (auto st = read_source(src, q, first, std::span<HA>(scratch.data(), n)); !st) return st;
  host_bases_to_device_layout(out, scratch.data(), n);
  return ok_status();
}

// The bases of one query of `key`, piece by piece: from its vectors when it holds them, else decoded
// from its source (ProvingKey::source), which gives the file's pages back after each piece.
template <class HA>
Status read_piece(const groth16::ProvingKey& key, Query q, std::size_t first, std::span<HA> out) {
  if (key.holds_bases()) {
    std::memcpy(out.data(), held_bases<HA>(key, q) + first, out.size() * sizeof(HA));
    return ok_status();
  }
  return read_source(*key.source, q, first, out);
}

// A resident query: its device bases, filled piece by piece.
template <class C>
Status upload_query(QueryBases<C>& qb, const groth16::ProvingKey& key, Query q) {
  using HA = math::Affine<C>;
  const std::size_t n = key.query_size(q);
  qb.dev = std::make_unique<Msm<C>>(n);
  using DA = std::conditional_t<std::is_same_v<C, math::G1Curve>, G1Affine, G2Affine>;
  return upload_bases_by_piece(static_cast<DA*>(qb.dev->device_bases()), n, kUploadPiece,
                               [&](std::size_t first, std::span<HA> out) { return read_piece(key, q, first, out); });
}

// A streamed query: its pinned copy in the device layout, filled piece by piece (held bases are
// converted in place; a source's pieces pass through one decoded piece of ordinary memory).
template <class C>
Status stream_query(QueryBases<C>& qb, const groth16::ProvingKey& key, Query q) {
  using HA = math::Affine<C>;
  using DA = std::conditional_t<std::is_same_v<C, math::G1Curve>, G1Affine, G2Affine>;
  const std::size_t n = key.query_size(q);
  qb.host = PinnedHostBuffer(std::max<std::size_t>(n, 1) * sizeof(DA));
  auto* out = static_cast<DA*>(qb.host.get());
  std::vector<HA> piece(key.holds_bases() ? 0 : std::min(n, kUploadPiece));
  for (std::size_t first = 0; first < n; first += kUploadPiece) {
    const std::size_t m = std::min(kUploadPiece, n - first);
    if (key.holds_bases()) {
      host_bases_to_device_layout(out + first, held_bases<HA>(key, q) + first, m);
      continue;
    }
    if (auto st = stage_bases_t(*key.source, q, first, m, piece, out + first); !st) return st;
  }
  return ok_status();
}

// A streamed query from bases made on the device (synthetic keys): made in a temporary device
// buffer of n bases by gen(device pointer), then copied to pinned memory.
template <class C, class Gen>
void stream_from_device(QueryBases<C>& q, std::size_t n, Gen&& gen) {
  using Aff = std::conditional_t<std::is_same_v<C, math::G1Curve>, G1Affine, G2Affine>;
  q.host = PinnedHostBuffer(n * sizeof(Aff));
  if (n == 0) return;
  DeviceBuffer tmp(n * sizeof(Aff));
  gen(tmp.get());
  tmp.download(q.host.get(), n * sizeof(Aff));
}

}  // namespace

Status stage_bases(const groth16::BaseSource& src, Query q, std::size_t first, std::size_t n,
                   std::vector<math::G1Affine>& scratch, void* out) {
  return stage_bases_t(src, q, first, n, scratch, out);
}
Status stage_bases(const groth16::BaseSource& src, Query q, std::size_t first, std::size_t n,
                   std::vector<math::G2Affine>& scratch, void* out) {
  return stage_bases_t(src, q, first, n, scratch, out);
}

void GpuKey::Impl::finish_setup() {
  const std::size_t m = std::size_t(1) << log_m;
  if (basis == HBasis::kMonomialOverZ) {
    z_inv = (HostFr::from_u64(math::kFrMultiplicativeGenerator).pow(std::uint64_t(m)) - HostFr::one()).inverse();
  } else {
    std::vector<HostFr> hi, lo;
    power_tables(m, groth16::root_of_unity(log_m + 1, true), hi, lo);
    shift_hi = upload_vector(hi);
    shift_lo = upload_vector(lo);
  }
  count_bytes();
}

void GpuKey::Impl::add_h_copies(int asked, std::size_t extra) {
  const int want = std::clamp(asked > 0 ? asked : kDefaultHCopies, 1, 4);
  const std::size_t reserve = GpuKeyOptions::kProofReserveBytes << log_m;
  for (int k = want; k > 1; --k) {
    std::size_t free_b = 0, total_b = 0;
    CUZK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    // afterwards k - 1 more copies of H and the reserve; meanwhile the new buffer of k copies beside
    // the old one, and the doubling scratch (about 1 GB)
    const std::size_t h_bytes = h_n * sizeof(G1Affine);
    const std::size_t need = std::max((k - 1) * h_bytes + reserve, k * h_bytes + (std::size_t(1) << 30)) + extra;
    if (free_b < need) continue;
    try {
      h.dev->add_shifted_copies(k);
      return;
    } catch (const std::exception& e) {
      cudaGetLastError();
      if (!is_oom(e.what())) throw;
    }
  }
}

std::size_t GpuKey::Impl::ring_chunk(std::size_t chunk_bases) {
  // a multiple of 64, so that each chunk's slice of a 0/1 bitmap starts on a 64-bit word
  const std::size_t want = chunk_bases ? chunk_bases : GpuKeyOptions::kDefaultStreamChunk;
  return (std::max<std::size_t>(want, 1) + 63) / 64 * 64;
}

void GpuKey::Impl::make_rings(std::size_t chunk_bases) {
  const std::size_t chunk = ring_chunk(chunk_bases);
  ring_h = std::make_unique<ChunkRing<math::G1Curve>>(chunk, h_n);
  ring_g1 = std::make_unique<ChunkRing<math::G1Curve>>(chunk, std::max({a_n, b_n, l_n}));
  ring_g2 = std::make_unique<ChunkRing<math::G2Curve>>(chunk, b_n);
  if (from_file) {
    ring_g1->add_staging();
    ring_g2->add_staging();
  }
}

GpuKey::GpuKey() : impl_(std::make_unique<Impl>()) {}
GpuKey::~GpuKey() = default;
std::uint32_t GpuKey::num_inputs() const { return impl_->num_inputs; }
std::uint32_t GpuKey::num_aux() const { return impl_->num_aux; }
std::uint32_t GpuKey::domain_log2() const { return impl_->log_m; }
HBasis GpuKey::h_basis() const { return impl_->basis; }
std::size_t GpuKey::device_bytes() const { return impl_->bytes; }
int GpuKey::h_copies() const { return impl_->h_copies(); }
bool GpuKey::drop_h_copies() {
  if (h_copies() == 1) return false;
  try {
    impl_->h.dev->add_shifted_copies(1);
  } catch (const std::exception&) {
    cudaGetLastError();
    return false;
  }
  impl_->count_bytes();
  return true;
}
bool GpuKey::streamed() const { return impl_->streamed(); }
bool GpuKey::from_file() const { return impl_->from_file; }
Status GpuKey::add_h_copies(int asked, std::size_t keep_free) {
  if (impl_->streamed()) return ok_status();
  try {
    const double t0 = now_ms();
    impl_->add_h_copies(asked, keep_free);
    CUZK_CUDA(cudaDeviceSynchronize());
    impl_->h_copies_ms += now_ms() - t0;
    impl_->count_bytes();
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: the H copies failed: ") + e.what()};
  }
  return ok_status();
}
double GpuKey::upload_ms() const { return impl_->upload_ms; }
double GpuKey::h_copies_ms() const { return impl_->h_copies_ms; }
std::size_t GpuKey::host_bytes() const { return impl_->host_bytes; }
void GpuKey::release_workspace() {
  for (auto* q : {&impl_->a, &impl_->b1, &impl_->l, &impl_->h})
    if (q->dev) q->dev->release_workspace();
  if (impl_->b2.dev) impl_->b2.dev->release_workspace();
  if (impl_->streamed()) {
    impl_->ring_h->release_workspace();
    impl_->ring_g1->release_workspace();
    impl_->ring_g2->release_workspace();
  }
}

std::size_t GpuKey::streamed_host_bytes(const groth16::ProvingKey& key, bool from_file, std::size_t chunk_bases) {
  if (from_file) {
    const std::size_t chunk = Impl::ring_chunk(chunk_bases);
    const std::size_t g1 = std::min(chunk, std::max({key.query_size(Query::kA), key.query_size(Query::kBG1),
                                                     key.query_size(Query::kL), std::size_t(1)}));
    const std::size_t g2 = std::min(chunk, std::max<std::size_t>(key.query_size(Query::kBG2), 1));
    return key.query_size(Query::kH) * sizeof(G1Affine) + ChunkRing<math::G1Curve>::staging_bytes_for(g1) +
           ChunkRing<math::G2Curve>::staging_bytes_for(g2);
  }
  return (key.query_size(Query::kA) + key.query_size(Query::kBG1) + key.query_size(Query::kL) +
          key.query_size(Query::kH)) *
             sizeof(G1Affine) +
         key.query_size(Query::kBG2) * sizeof(G2Affine);
}

std::size_t GpuKey::resident_bytes(const groth16::ProvingKey& key) {
  return streamed_host_bytes(key) +
         (key.query_size(Query::kA) + key.query_size(Query::kBG1)) * sizeof(u32);  // bases + maps
}

namespace {

// The sizes the device layout supports (32-bit row and variable indices, domain tables to 2^28).
Status check_key_size(std::uint32_t domain_log2, std::size_t num_inputs, std::size_t num_aux) {
  if (domain_log2 > 28) return Error{"GPU prover: domains above 2^28 are not supported"};
  if (num_inputs + num_aux >= (std::size_t(1) << 30)) return Error{"GPU prover: at most 2^30 variables"};
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<GpuKey>> GpuKey::upload(const groth16::ProvingKey& key, const GpuKeyOptions& opt) {
  if (auto st = key.check_consistency(); !st) return Error{st.error()};
  if (auto st = check_key_size(key.domain_log2, key.num_inputs, key.num_aux); !st) return Error{st.error()};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuKey> k(new GpuKey());
    auto& d = *k->impl_;
    d.basis = key.h_basis;
    d.num_inputs = key.num_inputs;
    d.num_aux = key.num_aux;
    d.log_m = key.domain_log2;
    d.a_n = key.query_size(Query::kA);
    d.b_n = key.query_size(Query::kBG1);
    d.l_n = key.query_size(Query::kL);
    d.h_n = key.query_size(Query::kH);
    std::vector<u32> amap, bmap;
    amap.reserve(d.a_n);
    bmap.reserve(d.b_n);
    for (u32 i = 0; i < key.num_inputs; ++i) amap.push_back(i);
    for (u32 j = 0; j < key.num_aux; ++j)
      if (key.a_aux_density.bits[j]) amap.push_back(key.num_inputs + j);
    for (u32 i = 0; i < key.num_inputs; ++i)
      if (key.b_input_density.bits[i]) bmap.push_back(i);
    for (u32 j = 0; j < key.num_aux; ++j)
      if (key.b_aux_density.bits[j]) bmap.push_back(key.num_inputs + j);
    d.a_map = upload_vector(amap);
    d.b_map = upload_vector(bmap);
    const bool bitrev_h = d.basis == HBasis::kMonomialOverZ && d.h_n > 1;
    if (opt.streamed && opt.from_file && key.holds_bases())
      return Error{"GPU prover: a key streamed from its file needs its bases in the file (ProvingKey::source)"};
    if (opt.streamed) {
      d.from_file = opt.from_file;
      d.make_rings(opt.chunk_bases);  // device memory first: a ring that does not fit fails fast
      const double t0 = now_ms();
      if (auto st = stream_query(d.h, key, Query::kH); !st) return Error{st.error()};
      for (auto [qb, q] : {std::pair{&d.l, Query::kL}, {&d.a, Query::kA}, {&d.b1, Query::kBG1}}) {
        if (d.from_file) {
          qb->src = key.source;
          qb->q = q;
        } else if (auto st = stream_query(*qb, key, q); !st) {
          return Error{st.error()};
        }
      }
      if (d.from_file) {
        d.b2.src = key.source;
        d.b2.q = Query::kBG2;
      } else if (auto st = stream_query(d.b2, key, Query::kBG2); !st) {
        return Error{st.error()};
      }
      if (bitrev_h) bitrev_h_host(d.h.host.get(), d.h_n, int(d.log_m));
      d.upload_ms = now_ms() - t0;
    } else {
      const double t0 = now_ms();
      for (auto [qb, q] : {std::pair{&d.h, Query::kH}, {&d.l, Query::kL}, {&d.a, Query::kA}, {&d.b1, Query::kBG1}})
        if (auto st = upload_query(*qb, key, q); !st) return Error{st.error()};
      if (auto st = upload_query(d.b2, key, Query::kBG2); !st) return Error{st.error()};
      // the H scalars come out of the last NTT in bit-reversed order: store the bases the same way
      if (bitrev_h) bitrev_h_device(d.h.dev->device_bases(), d.h_n, int(d.log_m));
      CUZK_CUDA(cudaDeviceSynchronize());
      const double t1 = now_ms();
      d.upload_ms = t1 - t0;
      if (!opt.defer_h_copies) {
        d.add_h_copies(opt.h_copies, 0);
        CUZK_CUDA(cudaDeviceSynchronize());
        d.h_copies_ms = now_ms() - t1;
      }
    }
    d.finish_setup();
    CUZK_CUDA(cudaDeviceSynchronize());
    return std::move(k);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: uploading the proving key failed: ") + e.what()};
  }
}

Result<std::unique_ptr<GpuKey>> GpuKey::synthetic(const SyntheticSpec& s, const GpuKeyOptions& opt) {
  if (auto st = check_key_size(s.domain_log2, s.num_inputs, s.num_aux); !st) return Error{st.error()};
  if (s.num_inputs == 0) return Error{"GPU prover: a key needs ONE among its inputs"};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuKey> k(new GpuKey());
    auto& d = *k->impl_;
    d.basis = s.h_basis;
    d.num_inputs = s.num_inputs;
    d.num_aux = s.num_aux;
    d.log_m = s.domain_log2;
    const std::size_t m = std::size_t(1) << s.domain_log2;
    // densities from a hash of (seed, variable)
    auto bit = [&](std::uint64_t salt, std::uint32_t j, double p) {
      return double(host_mix64(s.seed * 0x9e3779b97f4a7c15ULL + salt * 0x100000000ULL + j) >> 11) * 0x1.0p-53 < p;
    };
    std::vector<std::uint8_t> flags(s.num_aux);  // bit 0: A density, bit 1: B density
    std::vector<std::size_t> counts(2 * default_threads(), 0);
    parallel_chunks(s.num_aux, default_threads(), [&](std::size_t b, std::size_t e, std::size_t t) {
      for (std::size_t j = b; j < e; ++j) {
        const bool fa = bit(1, std::uint32_t(j), s.a_aux_density), fb = bit(2, std::uint32_t(j), s.b_aux_density);
        flags[j] = std::uint8_t(fa | (fb << 1));
        counts[2 * t] += fa;
        counts[2 * t + 1] += fb;
      }
    });
    std::size_t a_aux = 0, b_aux = 0;
    for (std::size_t t = 0; t < default_threads(); ++t) a_aux += counts[2 * t], b_aux += counts[2 * t + 1];
    d.l_n = s.num_aux;
    d.a_n = s.num_inputs + a_aux;
    d.b_n = (s.b_inputs_only_one ? 1 : s.num_inputs) + b_aux;
    d.h_n = s.h_basis == HBasis::kMonomialOverZ ? m - 1 : m;
    // allocate everything first (a key that does not fit fails before any work)
    if (opt.streamed) {
      d.make_rings(opt.chunk_bases);
    } else {
      d.l.dev = std::make_unique<MsmG1>(d.l_n);
      d.h.dev = std::make_unique<MsmG1>(d.h_n);
      d.a.dev = std::make_unique<MsmG1>(d.a_n);
      d.b1.dev = std::make_unique<MsmG1>(d.b_n);
      d.b2.dev = std::make_unique<MsmG2>(d.b_n);
    }
    std::vector<u32> amap, bmap;
    amap.reserve(d.a_n);
    bmap.reserve(d.b_n);
    for (u32 i = 0; i < s.num_inputs; ++i) amap.push_back(i);
    for (u32 j = 0; j < s.num_aux; ++j)
      if (flags[j] & 1) amap.push_back(s.num_inputs + j);
    for (u32 i = 0; i < (s.b_inputs_only_one ? 1u : s.num_inputs); ++i) bmap.push_back(i);
    for (u32 j = 0; j < s.num_aux; ++j)
      if (flags[j] & 2) bmap.push_back(s.num_inputs + j);
    d.a_map = upload_vector(amap);
    d.b_map = upload_vector(bmap);
    if (opt.streamed) {  // one query at a time through a temporary device buffer
      auto g1 = [](std::size_t n) { return [n](void* p) { gen_bases_sequential(p, n); }; };
      stream_from_device(d.l, d.l_n, g1(d.l_n));
      stream_from_device(d.h, d.h_n, g1(d.h_n));
      stream_from_device(d.a, d.a_n, g1(d.a_n));
      stream_from_device(d.b1, d.b_n, g1(d.b_n));
      stream_from_device(d.b2, d.b_n, [&](void* p) { gen_g2_bases_sequential(p, d.b_n); });
    } else {
      gen_bases_sequential(d.l.dev->device_bases(), d.l_n);
      gen_bases_sequential(d.h.dev->device_bases(), d.h_n);
      gen_bases_sequential(d.a.dev->device_bases(), d.a_n);
      gen_bases_sequential(d.b1.dev->device_bases(), d.b_n);
      gen_g2_bases_sequential(d.b2.dev->device_bases(), d.b_n);
      d.add_h_copies(opt.h_copies, 0);
    }
    d.finish_setup();
    CUZK_CUDA(cudaDeviceSynchronize());
    return std::move(k);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: making the synthetic key failed: ") + e.what()};
  }
}

}  // namespace cuzk::gpu
