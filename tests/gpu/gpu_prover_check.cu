// GPU Groth16 prover check (needs a CUDA device; ctest `gpu.prover_check`, label gpu, where one exists).
// One program of ~840 lines on purpose: the GPU host builds and runs it in one device call, and every
// case shares the same key/witness fixtures and CPU reference; split by case it would only repeat them.
//
// For random satisfiable circuits of 2^10 .. 2^20 rows, keys from groth16::generate_test_key (both H
// layouts), and injected r, s: the CUDA backend's PendingProof equals the CPU backend's component by
// component, the proof bytes are identical, and the proof verifies. Witness families: mostly boolean
// (~90% of aux values in {0, 1}: the 0/1 split path), all-zero aux, all-random aux (the full-MSM
// path), and the split forced on / off. Also: key copies (one upload, proofs with the copy upload
// nothing; two keys' copies side by side; a key without its bases uploaded from its source in
// pieces, resident and streamed), profile (serialized) mode, a shape without C (c = a*b), long rows
// (hundreds of terms in A, B or C: the GPU sums rows over 32 words in pieces), and errors
// (wrong witness length, foreign key, a device allocation that cannot succeed) come back as Result
// errors with the backend still usable afterwards.
// Compact witness (groth16::CompactAssignment, uploaded as bits + values and expanded on the device):
// every case above is proved a second time from the compact form and must give the CPU backend's
// PendingProof and byte-identical proofs; compact witnesses whose counts do not match the bitmaps
// or the circuit are Result errors (through CudaBackend and GpuProver directly), backend still usable.
// Resident keys with 1 to 4 shifted copies of the H bases, and the copies dropped again.
// Streamed keys (bases in pinned host memory, sent in chunks at each proof): through GpuProver with
// odd chunk sizes, through CudaBackend on request and over a byte limit, and a key that does not fit
// (most device memory taken): kAuto streams it and proves, kResident reports the out-of-memory.
// A streamed copy's pinned memory is charged through groth16::HostCharge while the copy lives.
// Dense witnesses: full MSMs cut into pieces (capped, and forced by GpuProveOptions::memory_limit).
// Usage: gpu_prover_check [--quick] [--max-log N]
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "../common/test_random.hpp"
#include "apps/common/gpu_tuning.hpp"
#include "gpu/groth16_backend.hpp"
#include "groth16/prover.hpp"
#include "groth16/test_setup.hpp"
#include "groth16/verifier.hpp"
#include "groth16/witness.hpp"

using namespace cuzk;
using namespace cuzk::groth16;
using math::Fr;

namespace {

// The tuning under test: the defaults, or the CUZK_* variables (src/apps/common/gpu_tuning.hpp), so
// that a tuning variant can be checked for byte-identical proofs.
gpu::GpuTuning g_tuning;
gpu::CudaBackendOptions tuned_options() {
  gpu::CudaBackendOptions o;
  o.tuning = g_tuning;
  return o;
}

int g_failures = 0, g_passes = 0;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void report(const std::string& name, bool ok, const std::string& detail) {
  std::printf("%-58s %s  %s\n", name.c_str(), ok ? "PASS" : "FAIL", detail.c_str());
  std::fflush(stdout);
  if (ok) ++g_passes;
  else ++g_failures;
}

enum class Mode { kMixed, kZeroAux, kRandomAux };
const char* mode_name(Mode m) {
  return m == Mode::kMixed ? "mostly-boolean" : m == Mode::kZeroAux ? "zero-aux" : "random-aux";
}

struct Circuit {
  R1csShape shape;
  std::vector<Fr> w;
};

using Term = std::pair<std::uint32_t, Fr>;

// A satisfiable circuit whose domain is 2^log_m: `rows` constraints (plus the input rows), each
// defining one new aux variable. Mixed: bit allocations x(1-x)=0, AND, XOR, products and linear
// combinations of random earlier variables with coefficients 1, -1, 2 and random ones.
// long_rows: about one row in 64 is a long linear combination (up to ~600 terms, in A, B or C), as
// the PoRep circuit's bit-packing rows are; the GPU sums rows over 32 words in pieces.
Circuit random_circuit(int log_m, Mode mode, std::uint64_t seed, bool padded = false, bool long_rows = false) {
  test::Rng rng(seed);
  Circuit c;
  auto& s = c.shape;
  const std::uint32_t num_inputs = 3;
  s.num_inputs = num_inputs;
  c.w = {Fr::one(), rng.fr(), rng.fr()};
  const std::size_t m = std::size_t(1) << log_m;
  const std::size_t rows = padded ? m / 2 + 5 - num_inputs : m - num_inputs - std::size_t(rng.next() % 4);
  std::vector<std::uint32_t> bits, aux_vars;
  auto new_var = [&](const Fr& v) {
    c.w.push_back(v);
    std::uint32_t id = std::uint32_t(c.w.size() - 1);
    aux_vars.push_back(id);
    return id;
  };
  auto coef = [&]() -> Fr {
    switch (rng.next() % 4) {
      case 0: return Fr::one();
      case 1: return -Fr::one();
      case 2: return Fr::from_u64(2);
      default: return rng.fr();
    }
  };
  // distinct random variables: from all variables, or aux only (zero mode keeps products zero)
  auto lincomb = [&](bool aux_only, std::size_t max_terms) {
    std::vector<Term> t;
    std::size_t k = 1 + rng.next() % max_terms;
    for (std::size_t tries = 0; t.size() < k && tries < 4 * k; ++tries) {
      std::uint32_t v;
      if (aux_only || rng.next() % 4) {
        if (aux_vars.empty()) break;
        v = aux_vars[aux_vars.size() - 1 - rng.next() % std::min<std::size_t>(aux_vars.size(), 64)];
        if (rng.next() % 2) v = aux_vars[rng.next() % aux_vars.size()];
      } else {
        v = std::uint32_t(rng.next() % num_inputs);
      }
      bool dup = false;
      for (auto& x : t) dup |= x.first == v;
      if (!dup) t.push_back({v, coef()});
    }
    return t;
  };
  auto value = [&](const std::vector<Term>& t) {
    Fr acc = Fr::zero();
    for (auto& [v, k] : t) acc += k * c.w[v];
    return acc;
  };
  auto row = [&](const std::vector<Term>& a, const std::vector<Term>& b, const std::vector<Term>& cc) {
    s.a.add_row(a);
    s.b.add_row(b);
    s.c.add_row(cc);
  };
  const bool zero = mode == Mode::kZeroAux;
  for (std::size_t r = 0; r < rows; ++r) {
    unsigned kind = unsigned(rng.next() % 100);
    if (mode == Mode::kRandomAux) kind = aux_vars.size() < 2 ? 84 : (kind < 60 ? 84 : 95);
    if (kind >= 60 && kind < 84 && bits.size() < 2) kind = 0;
    if (kind >= 84 && aux_vars.empty() && zero) kind = 0;
    if (kind < 60) {  // bit
      Fr v = (!zero && rng.next() % 2) ? Fr::one() : Fr::zero();
      std::uint32_t x = new_var(v);
      bits.push_back(x);
      row({{x, Fr::one()}}, {{0, Fr::one()}, {x, -Fr::one()}}, {});
    } else if (kind < 84) {  // AND / XOR of two distinct bits
      std::uint32_t x = bits[rng.next() % bits.size()], y = x;
      while (y == x) y = bits[rng.next() % bits.size()];
      if (kind < 72) {
        std::uint32_t z = new_var(c.w[x] * c.w[y]);
        bits.push_back(z);
        row({{x, Fr::one()}}, {{y, Fr::one()}}, {{z, Fr::one()}});
      } else {  // 2x * y = x + y - z
        std::uint32_t z = new_var(c.w[x] + c.w[y] - Fr::from_u64(2) * c.w[x] * c.w[y]);
        bits.push_back(z);
        row({{x, Fr::from_u64(2)}}, {{y, Fr::one()}}, {{x, Fr::one()}, {y, Fr::one()}, {z, -Fr::one()}});
      }
    } else if (long_rows && rng.next() % 64 == 0 && aux_vars.size() > 700) {  // one long row
      auto l = lincomb(zero, 100 + rng.next() % 500);
      const Fr v = value(l);
      const unsigned where = unsigned(rng.next() % 3);
      if (where == 0) {  // (lin - z) * 1 = 0: long in A
        std::uint32_t z = new_var(v);
        l.push_back({z, -Fr::one()});
        row(l, {{0, Fr::one()}}, {});
      } else if (where == 1) {  // 1 * lin = z: long in B
        std::uint32_t z = new_var(v);
        row({{0, Fr::one()}}, l, {{z, Fr::one()}});
      } else {  // 1 * z = lin: long in C
        std::uint32_t z = new_var(v);
        row({{0, Fr::one()}}, {{z, Fr::one()}}, l);
      }
    } else if (kind < 92) {  // product of linear combinations
      auto la = lincomb(zero, 3), lb = lincomb(false, 3);
      if (la.empty()) la = {{1, Fr::one()}};
      if (lb.empty()) lb = {{0, Fr::from_u64(3)}};
      std::uint32_t z = new_var(value(la) * value(lb));
      row(la, lb, {{z, Fr::one()}});
    } else {  // z = linear combination:  (lin - z) * 1 = 0
      auto l = lincomb(zero, 4);
      if (l.empty()) l = {{2, Fr::one()}};
      std::uint32_t z = new_var(value(l));
      l.push_back({z, -Fr::one()});
      row(l, {{0, Fr::one()}}, {});
    }
  }
  s.num_aux = std::uint32_t(c.w.size() - num_inputs);
  s.append_input_rows();
  return c;
}

std::string fmt_ms(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ms);
  return b;
}

struct Case {
  int log_m;
  Mode mode;
  HBasis basis = HBasis::kMonomialOverZ;
  bool padded = false;
  double split_max_tail = 0.5;
  bool profile = false;
  bool drop_c = false;
  bool long_rows = false;
};

// The PendingProof components that differ, as " A B1 ..." (empty when all agree).
std::string component_diff(const PendingProof& x, const PendingProof& y) {
  std::string d;
  if (x.a_acc != y.a_acc) d += " A";
  if (x.b1_acc != y.b1_acc) d += " B1";
  if (x.b2_acc != y.b2_acc) d += " B2";
  if (x.h_acc != y.h_acc) d += " H";
  if (x.l_acc != y.l_acc) d += " L";
  return d;
}

// What a GPU proof must equal: a random circuit, its TEST-ONLY key, the CPU backend's PendingProof
// and its proof bytes under rs.
struct Reference {
  Circuit circ;
  ProvingKey pk;
  PendingProof cpu;
  std::array<std::uint8_t, kProofBytes> want{};
};
Result<Reference> make_reference(int log_m, Mode mode, HBasis basis, std::uint64_t seed, const ProofRandomness& rs) {
  Reference r;
  r.circ = random_circuit(log_m, mode, seed);
  auto pk = generate_test_key(r.circ.shape, basis, ToxicWaste::from_seed(seed + 1));
  if (!pk) return Error{pk.error()};
  r.pk = std::move(*pk);
  auto cpu = make_cpu_backend()->start(r.circ.shape, r.circ.w, r.pk);
  if (!cpu) return Error{cpu.error()};
  r.cpu = *cpu;
  r.want = finish(r.cpu, r.pk, rs).to_bytes();
  return r;
}

// Proves with both backends and compares; returns the key for reuse checks.
bool run_case(gpu::CudaBackend& gpu_backend, const Case& cs, std::uint64_t seed) {
  std::string name = std::string(cs.basis == HBasis::kMonomialOverZ ? "bellperson" : "snarkjs") + " 2^" +
                     std::to_string(cs.log_m) + (cs.padded ? " (padded)" : "") + " " + mode_name(cs.mode) +
                     (cs.split_max_tail == 0   ? " split=off"
                      : cs.split_max_tail >= 1 ? " split=always"
                                               : "") +
                     (cs.profile ? " profile" : "") + (cs.drop_c ? " no-C" : "") + (cs.long_rows ? " long-rows" : "");
  try {
    double t0 = now_ms();
    Circuit c = random_circuit(cs.log_m, cs.mode, seed, cs.padded, cs.long_rows);
    if (c.shape.domain_log2() != std::uint32_t(cs.log_m)) {
      report(name, false, "generator made domain 2^" + std::to_string(c.shape.domain_log2()));
      return false;
    }
    if (auto bad = first_unsatisfied_row(c.shape, c.w)) {
      report(name, false, "generator made an unsatisfied row " + std::to_string(*bad));
      return false;
    }
    auto pk = generate_test_key(c.shape, cs.basis, ToxicWaste::from_seed(seed * 7 + 1));
    if (!pk) {
      report(name, false, "keygen: " + pk.error());
      return false;
    }
    if (cs.drop_c) {
      c.shape.has_c = false;
      c.shape.c = CsrMatrix{};
    }
    double t1 = now_ms();
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    double t2 = now_ms();
    gpu::GpuProveOptions opt;
    opt.split_max_tail = cs.split_max_tail;
    opt.profile = cs.profile;
    gpu_backend.set_options(opt);
    auto gpu = gpu_backend.start(c.shape, c.w, *pk);
    double t3 = now_ms();
    if (!cpu || !gpu) {
      report(name, false,
             "start failed: cpu: " + (cpu ? std::string("ok") : cpu.error()) +
                 " gpu: " + (gpu ? std::string("ok") : gpu.error()));
      return false;
    }
    test::Rng rng(seed ^ 0xabcdef);
    ProofRandomness rs{rng.fr(), rng.fr()};
    Proof pc = finish(*cpu, *pk, rs), pg = finish(*gpu, *pk, rs);
    const std::string diff = component_diff(*cpu, *gpu);
    bool bytes_equal = pc.to_bytes() == pg.to_bytes();
    std::vector<Fr> inputs(c.w.begin() + 1, c.w.begin() + c.shape.num_inputs);
    auto ok = verify(pk->vk, inputs, pg);
    bool verified = ok.ok() && *ok;
    auto t = gpu_backend.last_timings();
    char detail[320];
    std::snprintf(
        detail, sizeof detail,
        "rows %zu aux %u | L %zu/%zu tail%s A %zu/%zu tail%s B %zu/%zu tail%s | keygen %s cpu %s gpu %s ms%s%s%s",
        c.shape.num_constraints(), c.shape.num_aux, t.l.tail, t.l.n, t.l.split ? "(split)" : "", t.a.tail, t.a.n,
        t.a.split ? "(split)" : "", t.b.tail, t.b.n, t.b.split ? "(split)" : "", fmt_ms(t1 - t0).c_str(),
        fmt_ms(t2 - t1).c_str(), fmt_ms(t3 - t2).c_str(), diff.empty() ? "" : (" MISMATCH:" + diff).c_str(),
        bytes_equal ? "" : " bytes differ", verified ? "" : " NOT VERIFIED");
    report(name, diff.empty() && bytes_equal && verified, detail);

    // The same proof from the compact witness: expanded on the device, it must match the CPU too.
    const CompactAssignment cw = CompactAssignment::from_dense(c.w, c.shape.num_inputs);
    const double t4 = now_ms();
    auto gc = gpu_backend.start(c.shape, cw, *pk);
    const double t5 = now_ms();
    bool compact_ok = false;
    if (!gc) {
      report(name + " compact", false, "start failed: " + gc.error());
    } else {
      const std::string cdiff = component_diff(*cpu, *gc);
      const bool cbytes = finish(*gc, *pk, rs).to_bytes() == pc.to_bytes();
      auto tc = gpu_backend.last_timings();
      const bool flags = tc.compact && tc.upload_bytes == cw.payload_bytes();
      char cd[320];
      std::snprintf(cd, sizeof cd, "aux %llu binary %zu values %zu | upload %zu B (dense %zu B) | gpu %s ms%s%s%s",
                    (unsigned long long)cw.num_aux, cw.num_binary(), cw.values.size(), tc.upload_bytes,
                    c.w.size() * sizeof(Fr), fmt_ms(t5 - t4).c_str(),
                    cdiff.empty() ? "" : (" MISMATCH:" + cdiff).c_str(), cbytes ? "" : " bytes differ",
                    flags ? "" : " timings not marked compact / wrong upload size");
      compact_ok = cdiff.empty() && cbytes && flags;
      report(name + " compact", compact_ok, cd);
    }
    return diff.empty() && bytes_equal && verified && compact_ok;
  } catch (const std::exception& e) {
    report(name, false, std::string("exception: ") + e.what());
    return false;
  }
}

void check(const std::string& name, const std::function<bool(std::string&)>& fn) {
  std::string detail;
  bool ok = false;
  try {
    ok = fn(detail);
  } catch (const std::exception& e) {
    detail = std::string("exception: ") + e.what();
  }
  report(name, ok, detail);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int max_log = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--max-log") && i + 1 < argc) max_log = std::atoi(argv[++i]);
  }
  auto env = apps::gpu_tuning_from_env([](const char* n) { return std::getenv(n); });
  if (!env) {
    std::fprintf(stderr, "gpu_prover_check: %s\n", env.error().c_str());
    return 2;
  }
  for (const auto& kv : env->non_default) std::printf("tuning: %s\n", kv.c_str());
  g_tuning = env->tuning;
  if (!gpu::device_available()) {
    std::printf("no CUDA device\n");
    return 77;  // ctest's SKIP_RETURN_CODE (tests/gpu/CMakeLists.txt)
  }
  std::printf("device: %s\n", gpu::device_name().c_str());
  gpu::CudaBackend backend(tuned_options());
  std::uint64_t seed = 1000;
  using B = HBasis;
  std::vector<Case> cases = {
      {10, Mode::kMixed},
      {10, Mode::kZeroAux},
      {10, Mode::kRandomAux},
      {10, Mode::kMixed, B::kMonomialOverZ, false, 0.0},
      {10, Mode::kRandomAux, B::kMonomialOverZ, false, 1.0},
      {10, Mode::kMixed, B::kMonomialOverZ, false, 0.5, true},
      {11, Mode::kMixed, B::kMonomialOverZ, true},
      {12, Mode::kMixed, B::kMonomialOverZ, false, 0.5, false, true},
      {10, Mode::kMixed, B::kOddCosetLagrange},
      {10, Mode::kZeroAux, B::kOddCosetLagrange},
      {12, Mode::kRandomAux, B::kOddCosetLagrange},
      {11, Mode::kMixed, B::kOddCosetLagrange, true},
      {12, Mode::kMixed, B::kOddCosetLagrange, false, 0.5, false, true},
      {12, Mode::kMixed},
      {12, Mode::kMixed, B::kMonomialOverZ, false, 0.5, false, false, true},
      {12, Mode::kRandomAux, B::kOddCosetLagrange, false, 0.5, false, false, true},
      {12, Mode::kMixed, B::kMonomialOverZ, false, 0.5, false, true, true},
      {14, Mode::kMixed},
      {16, Mode::kMixed, B::kMonomialOverZ, false, 0.5, false, false, true},
      {14, Mode::kRandomAux},
      {14, Mode::kMixed, B::kOddCosetLagrange},
      {16, Mode::kMixed},
      {16, Mode::kZeroAux},
      {16, Mode::kMixed, B::kMonomialOverZ, false, 0.5, true},
      {18, Mode::kMixed},
      {20, Mode::kMixed},
      {20, Mode::kZeroAux},
  };
  for (const auto& cs : cases) {
    if (cs.log_m > max_log || (quick && cs.log_m > 14)) continue;
    run_case(backend, cs, seed++);
  }
  backend.set_options({});

  // Copies (groth16::KeyCopy): one upload, then every proof with the copy uploads nothing; two keys'
  // copies live side by side; a key held without its bases (ProvingKey::source) uploads piece by
  // piece, resident and streamed, and proves the same bytes.
  check("copies: one upload, two proofs with the copy upload nothing", [&](std::string& d) {
    Circuit c = random_circuit(15, Mode::kMixed, 77, false, true);  // 2^15 rows: converted on several threads
    auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(5));
    if (!pk) return d = pk.error(), false;
    gpu::CudaBackend be(tuned_options());
    auto copy = be.upload(*pk, &c.shape, {});
    if (!copy || !*copy) return d = copy ? "no copy" : copy.error(), false;
    auto s0 = be.stats();
    auto p1 = be.start(c.shape, c.w, *pk, **copy);
    auto p2 = be.start(c.shape, c.w, *pk, **copy);
    auto s1 = be.stats();
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    if (!p1 || !p2 || !cpu) return d = "start failed", false;
    ProofRandomness rs{Fr::from_u64(3), Fr::from_u64(4)};
    bool same = finish(*p2, *pk, rs) == finish(*cpu, *pk, rs) && finish(*p1, *pk, rs) == finish(*cpu, *pk, rs);
    char b[200];
    std::snprintf(b, sizeof b,
                  "after upload: key %zu shape %zu; after 2 proofs: key %zu shape %zu; copy %llu device bytes",
                  s0.key_uploads, s0.shape_uploads, s1.key_uploads, s1.shape_uploads,
                  (unsigned long long)(*copy)->device_bytes());
    d = b;
    const bool bytes_ok = be.device_bytes() == s1.device_bytes && (*copy)->device_bytes() > 0 && !(*copy)->streamed();
    return same && bytes_ok && s0.key_uploads == 1 && s1.key_uploads == 1 && s1.shape_uploads == 1 && s1.proofs == 2;
  });
  check("copies: two keys' copies side by side", [&](std::string& d) {
    Circuit c1 = random_circuit(10, Mode::kMixed, 78), c2 = random_circuit(11, Mode::kMixed, 79);
    auto k1 = generate_test_key(c1.shape, B::kMonomialOverZ, ToxicWaste::from_seed(6));
    auto k2 = generate_test_key(c2.shape, B::kOddCosetLagrange, ToxicWaste::from_seed(7));
    if (!k1 || !k2) return d = "keygen failed", false;
    gpu::CudaBackend be(tuned_options());
    auto x1 = be.upload(*k1, &c1.shape, {});
    auto x2 = be.upload(*k2, &c2.shape, {});
    if (!x1 || !x2) return d = "upload failed", false;
    ProofRandomness rs{Fr::from_u64(8), Fr::from_u64(9)};
    bool all = true;
    for (int round = 0; round < 2; ++round) {
      for (auto [c, k, x] : {std::tuple{&c1, &*k1, &*x1}, std::tuple{&c2, &*k2, &*x2}}) {
        auto g = be.start(c->shape, c->w, *k, **x);
        auto cpu = make_cpu_backend()->start(c->shape, c->w, *k);
        all = all && g && cpu && finish(*g, *k, rs) == finish(*cpu, *k, rs);
      }
    }
    auto wrong = be.start(c1.shape, c1.w, *k1, **x2);  // another key's copy
    d = "key uploads " + std::to_string(be.stats().key_uploads) +
        "; another key's copy: " + (wrong ? std::string("NO ERROR") : wrong.error());
    return all && be.stats().key_uploads == 2 && !wrong;
  });
  check("copies: a key without its bases uploads from its source in pieces", [&](std::string& d) {
    Circuit c = random_circuit(14, Mode::kMixed, 82);
    auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(12));
    if (!pk) return d = pk.error(), false;
    // A source over the decoded key, counting the pieces read.
    struct Source final : groth16::BaseSource {
      const ProvingKey* k;
      mutable std::atomic<int> reads{0};
      explicit Source(const ProvingKey* key) : k(key) {}
      std::size_t size(groth16::Query q) const override { return k->query_size(q); }
      Status read(groth16::Query q, std::size_t first, std::span<math::G1Affine> out) const override {
        const auto& v = q == groth16::Query::kH   ? k->h
                        : q == groth16::Query::kL ? k->l
                        : q == groth16::Query::kA ? k->a
                                                  : k->b_g1;
        if (first + out.size() > v.size()) return Error{"out of range"};
        std::copy(v.begin() + std::ptrdiff_t(first), v.begin() + std::ptrdiff_t(first + out.size()), out.begin());
        reads++;
        return ok_status();
      }
      Status read_b_g2(std::size_t first, std::span<math::G2Affine> out) const override {
        std::copy(k->b_g2.begin() + std::ptrdiff_t(first), k->b_g2.begin() + std::ptrdiff_t(first + out.size()),
                  out.begin());
        reads++;
        return ok_status();
      }
    };
    ProvingKey lazy;
    lazy.vk = pk->vk;
    lazy.h_basis = pk->h_basis;
    lazy.num_inputs = pk->num_inputs;
    lazy.num_aux = pk->num_aux;
    lazy.domain_log2 = pk->domain_log2;
    lazy.a_aux_density = pk->a_aux_density;
    lazy.b_input_density = pk->b_input_density;
    lazy.b_aux_density = pk->b_aux_density;
    auto src = std::make_shared<Source>(&*pk);
    lazy.source = src;
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    if (!cpu) return d = cpu.error(), false;
    ProofRandomness rs{Fr::from_u64(21), Fr::from_u64(22)};
    const auto want = finish(*cpu, *pk, rs).to_bytes();
    bool all = true;
    // Streamed from the file (issue 39): only H is read at the upload; every proof reads L, A, B_G1 and
    // B_G2 again, in chunks of 1024 (1000 asked; the last chunk is short), two proofs byte-identical. kAuto
    // takes that form when the pinned copy's charge is refused.
    const std::size_t asked = 1000, chunk = 1024;  // chunks are rounded up to a multiple of 64
    const std::size_t file_bytes = gpu::GpuKey::streamed_host_bytes(lazy, true, asked);
    const std::size_t proof_reads = 2 * (((lazy.query_size(groth16::Query::kL) + chunk - 1) / chunk) +
                                         ((lazy.query_size(groth16::Query::kA) + chunk - 1) / chunk) +
                                         2 * ((lazy.query_size(groth16::Query::kBG1) + chunk - 1) / chunk));
    struct Case {
      gpu::KeyResidency residency;
      const char* name;
      bool refuse_pinned;
    };
    for (const Case& k :
         {Case{gpu::KeyResidency::kResident, "resident", false}, Case{gpu::KeyResidency::kStreamed, "streamed", false},
          Case{gpu::KeyResidency::kStreamedFromFile, "from the file", false},
          Case{gpu::KeyResidency::kAuto, "auto, pinned copy refused", true}}) {
      gpu::CudaBackendOptions o = tuned_options();
      o.key_residency = k.residency;
      o.stream_chunk_bases = asked;
      if (k.refuse_pinned) o.max_resident_key_bytes = 1;  // streamed
      std::vector<std::size_t> charged;
      groth16::HostCharge charge = [&](std::uint64_t bytes) -> Result<std::shared_ptr<void>> {
        charged.push_back(bytes);
        if (k.refuse_pinned && bytes > file_bytes) return Error{"over the test's budget"};
        return std::shared_ptr<void>(new int(0), [](int* p) { delete p; });
      };
      std::vector<std::string> notes;
      o.on_note = [&](const std::string& n) { notes.push_back(n); };
      gpu::CudaBackend be(o);
      const int r0 = src->reads.load();
      auto copy = be.upload(lazy, &c.shape, charge);
      if (!copy) return d += copy.error(), false;
      const int r1 = src->reads.load();
      auto g = be.start(c.shape, c.w, lazy, **copy);
      auto g2 = be.start(c.shape, c.w, lazy, **copy);
      const int r2 = src->reads.load();
      const bool file = k.residency == gpu::KeyResidency::kStreamedFromFile || k.refuse_pinned;
      bool ok = g && g2 && finish(*g, lazy, rs).to_bytes() == want && finish(*g2, lazy, rs).to_bytes() == want &&
                (*copy)->streamed() == (k.residency != gpu::KeyResidency::kResident) && r1 - r0 >= 1;
      if (file) {
        ok = ok && std::size_t(r2 - r1) == proof_reads && (*copy)->host_bytes() == file_bytes && !charged.empty() &&
             charged.back() == file_bytes &&
             (!k.refuse_pinned ||
              (charged.size() == 2 &&
               (*copy)->reason().find("from its file: the memory budget refused") != std::string::npos &&
               std::any_of(notes.begin(), notes.end(),
                           [](const std::string& n) { return n.find("read from its file") != std::string::npos; })));
      } else {
        ok = ok && r2 == r1;
      }
      const bool bytes_ok =
          g && g2 && finish(*g, lazy, rs).to_bytes() == want && finish(*g2, lazy, rs).to_bytes() == want;
      d += std::string(k.name) + ": " + std::to_string(r1 - r0) + " pieces read at the upload, " +
           std::to_string(r2 - r1) + " by two proofs" + (file ? " (want " + std::to_string(proof_reads) + ")" : "") +
           ", pinned " + std::to_string((*copy)->host_bytes()) + " bytes, proofs " +
           (bytes_ok ? "identical" : "DIFFER") + (ok ? "" : " FAILED") + "; ";
      all = all && ok;
    }
    auto on_cpu = make_cpu_backend()->start(c.shape, c.w, lazy);  // no bases on the host: refused
    d += "CPU backend: " + (on_cpu ? std::string("NO ERROR") : on_cpu.error());
    return all && !on_cpu;
  });

  // Errors come back as Result errors; the backend stays usable.
  check("errors: wrong witness length, foreign key, impossible allocation", [&](std::string& d) {
    Circuit c = random_circuit(10, Mode::kMixed, 80), other = random_circuit(11, Mode::kMixed, 81);
    auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(10));
    auto pk_other = generate_test_key(other.shape, B::kMonomialOverZ, ToxicWaste::from_seed(11));
    if (!pk || !pk_other) return d = "keygen failed", false;
    std::vector<Fr> short_w(c.w.begin(), c.w.end() - 1);
    auto e1 = backend.start(c.shape, short_w, *pk);
    auto e2 = backend.start(c.shape, c.w, *pk_other);
    gpu::GpuKey::SyntheticSpec huge;
    huge.domain_log2 = 28;
    huge.num_inputs = 1;
    huge.num_aux = (1u << 30) - 16;  // L alone would need ~103 GB, A as much again
    auto e3 = gpu::GpuKey::synthetic(huge);
    auto ok = backend.start(c.shape, c.w, *pk);
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    ProofRandomness rs{Fr::from_u64(1), Fr::from_u64(2)};
    bool after = ok && cpu && finish(*ok, *pk, rs) == finish(*cpu, *pk, rs);
    d = "[" + (e1 ? std::string("no error") : e1.error()) + "] [" + (e2 ? std::string("no error") : e2.error()) +
        "] [" + (e3 ? std::string("no error") : e3.error()) + "] proof after: " + (after ? "ok" : "FAILED");
    return !e1 && !e2 && !e3 && after;
  });

  // Compact witnesses whose counts do not match are refused before any device work, with the
  // mismatch named; the same backend then proves a good compact witness correctly.
  check("compact errors: mismatched counts through CudaBackend and GpuProver", [&](std::string& d) {
    Circuit c = random_circuit(10, Mode::kMixed, 82);
    auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(12));
    if (!pk) return d = pk.error(), false;
    const CompactAssignment good = CompactAssignment::from_dense(c.w, c.shape.num_inputs);
    std::vector<std::pair<std::string, CompactAssignment>> bad;
    {
      auto x = good;
      x.values.pop_back();  // one value short
      bad.emplace_back("value short", std::move(x));
    }
    {
      auto x = good;
      x.values.push_back(Fr::from_u64(5));  // one value too many
      bad.emplace_back("value extra", std::move(x));
    }
    {
      auto x = good;
      x.is_binary.push_back(0);  // bitmaps longer than num_aux needs
      x.bits.push_back(0);
      bad.emplace_back("bitmap words", std::move(x));
    }
    {
      auto x = good;
      x.push_bit(true);  // one aux variable more than the circuit has
      bad.emplace_back("aux count", std::move(x));
    }
    {
      auto x = good;
      x.inputs.pop_back();  // one input short
      bad.emplace_back("inputs", std::move(x));
    }
    bool all_refused = true;
    for (const auto& [what, x] : bad) {
      auto r = backend.start(c.shape, x, *pk);
      d += "[" + what + ": " + (r ? std::string("NO ERROR") : r.error()) + "] ";
      all_refused = all_refused && !r;
    }
    // GpuProver directly: its own checks, not only check_prover_inputs in CudaBackend.
    auto gk = gpu::GpuKey::upload(*pk);
    auto gs = gpu::GpuShape::upload(c.shape);
    if (!gk || !gs) return d += "upload failed", false;
    gpu::GpuProver prover(g_tuning);
    for (const auto& [what, x] : bad) {
      auto r = prover.start(**gk, **gs, x);
      d += "[prover " + what + ": " + (r ? std::string("NO ERROR") : r.error()) + "] ";
      all_refused = all_refused && !r;
    }
    auto ok_direct = prover.start(**gk, **gs, good);
    auto ok = backend.start(c.shape, good, *pk);
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    ProofRandomness rs{Fr::from_u64(5), Fr::from_u64(6)};
    const bool after = ok && ok_direct && cpu && finish(*ok, *pk, rs) == finish(*cpu, *pk, rs) &&
                       finish(*ok_direct, *pk, rs) == finish(*cpu, *pk, rs);
    d += std::string("proofs after: ") + (after ? "ok" : "FAILED");
    return all_refused && after;
  });

  // The expansion's edges: all-binary (zero-aux) and all-value (random-aux) witnesses, aux counts on
  // and off a 64-variable word boundary (the rows vary per seed).
  check("compact: all-binary and all-value aux, word-aligned and not", [&](std::string& d) {
    bool all = true;
    for (std::uint64_t seed : {90, 91, 92, 93}) {
      for (Mode mode : {Mode::kZeroAux, Mode::kRandomAux, Mode::kMixed}) {
        Circuit c = random_circuit(11, mode, seed);
        auto pk = generate_test_key(c.shape, B::kOddCosetLagrange, ToxicWaste::from_seed(seed));
        if (!pk) return d = pk.error(), false;
        const auto cw = CompactAssignment::from_dense(c.w, c.shape.num_inputs);
        auto g = backend.start(c.shape, cw, *pk);
        auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
        ProofRandomness rs{Fr::from_u64(seed), Fr::from_u64(seed + 1)};
        const bool same = g && cpu && finish(*g, *pk, rs).to_bytes() == finish(*cpu, *pk, rs).to_bytes();
        d += std::string(mode_name(mode)) + " aux%64=" + std::to_string(cw.num_aux % 64) +
             " values=" + std::to_string(cw.values.size()) + (same ? " ok; " : " FAILED; ");
        all = all && same;
      }
    }
    return all;
  });

  // Streamed keys: the bases stay in pinned host memory and cross the bus in chunks at every proof.
  // Chunk sizes that divide no query length (even rounded up to multiples of 64), a single chunk per
  // query, the split off and always, H on its own thread (overlap) and not (profile), both H layouts,
  // every witness family, dense and compact: always the CPU backend's PendingProof and proof bytes,
  // and every base sent exactly once per proof.
  // Resident keys with shifted copies of the H bases (GpuKeyOptions::h_copies; all other cases take
  // the default, 3 when the device has room): 1 to 4 copies, both layouts, then the copies dropped
  // (the CudaBackend's out-of-memory step) and the same proof again.
  check("resident keys: H copies 1..4, drop_h_copies", [&](std::string& d) {
    struct S {
      int log_m;
      HBasis basis;
      int copies;
    };
    const S cases[] = {{12, B::kMonomialOverZ, 1}, {12, B::kMonomialOverZ, 2}, {12, B::kOddCosetLagrange, 3},
                       {16, B::kMonomialOverZ, 4}, {20, B::kMonomialOverZ, 2}, {20, B::kOddCosetLagrange, 3}};
    bool all = true;
    std::uint64_t sd = 900;
    for (const S& c : cases) {
      if (c.log_m > max_log || (quick && c.log_m > 16)) continue;
      Circuit circ = random_circuit(c.log_m, Mode::kMixed, sd++);
      auto pk = generate_test_key(circ.shape, c.basis, ToxicWaste::from_seed(sd));
      if (!pk) return d = pk.error(), false;
      auto cpu = make_cpu_backend()->start(circ.shape, circ.w, *pk);
      gpu::GpuKeyOptions ko;
      ko.h_copies = c.copies;
      auto gk = gpu::GpuKey::upload(*pk, ko);
      auto gs = gpu::GpuShape::upload(circ.shape);
      if (!cpu || !gk || !gs) return d = "setup failed: " + (gk ? std::string() : gk.error()), false;
      gpu::GpuProver prover(g_tuning);
      ProofRandomness rs{Fr::from_u64(sd), Fr::from_u64(sd + 1)};
      const auto want = finish(*cpu, *pk, rs).to_bytes();
      auto g1 = prover.start(**gk, **gs, circ.w, gpu::GpuProveOptions{});
      const bool with_ok = g1 && component_diff(*cpu, *g1).empty() && finish(*g1, *pk, rs).to_bytes() == want;
      const int held = (*gk)->h_copies();
      const std::size_t bytes_with = (*gk)->device_bytes();
      const bool dropped = (*gk)->drop_h_copies();
      const std::size_t freed = bytes_with - (*gk)->device_bytes();
      auto g2 = prover.start(**gk, **gs, circ.w, gpu::GpuProveOptions{});
      const bool without_ok = g2 && component_diff(*cpu, *g2).empty() && finish(*g2, *pk, rs).to_bytes() == want;
      const bool bookkeeping = held == c.copies && dropped == (c.copies > 1) && (*gk)->h_copies() == 1 &&
                               freed == std::size_t(c.copies - 1) * pk->h.size() * 96;
      char b[200];
      std::snprintf(b, sizeof b, "2^%d %s %d copies (held %d, %zu bytes freed): %s, dropped %s; ", c.log_m,
                    c.basis == B::kMonomialOverZ ? "bellperson" : "snarkjs", c.copies, held, freed,
                    with_ok ? "ok" : (g1 ? "MISMATCH" : g1.error().c_str()),
                    without_ok ? "ok" : (g2 ? "MISMATCH" : g2.error().c_str()));
      d += b;
      all = all && with_ok && without_ok && bookkeeping;
    }
    return all;
  });

  // `limited`: under a memory limit (the whole card), whose chunk MSMs group at most two windows and
  // give their workspaces back after each query (GpuProver::Impl::chunk_cfg).
  check("streamed keys: GpuProver, odd chunk sizes, both layouts, dense and compact", [&](std::string& d) {
    struct S {
      int log_m;
      Mode mode;
      HBasis basis;
      std::size_t chunk;
      double max_tail;
      bool profile;
      bool limited = false;
    };
    const S cases[] = {
        {10, Mode::kMixed, B::kMonomialOverZ, 100, 0.5, false},
        {12, Mode::kMixed, B::kMonomialOverZ, 1000, 0.5, false},
        {12, Mode::kRandomAux, B::kMonomialOverZ, 777, 0.5, true},
        {12, Mode::kZeroAux, B::kOddCosetLagrange, 1000, 0.5, false},
        {12, Mode::kMixed, B::kOddCosetLagrange, 4096, 0.0, false},
        {12, Mode::kMixed, B::kMonomialOverZ, std::size_t(1) << 20, 1.0, false},
        {14, Mode::kMixed, B::kMonomialOverZ, 5000, 0.5, false},
        {14, Mode::kRandomAux, B::kMonomialOverZ, 5000, 0.0, false, true},
        {20, Mode::kMixed, B::kMonomialOverZ, 300000, 0.5, false},
        {20, Mode::kRandomAux, B::kMonomialOverZ, 300000, 0.0, false, true},
    };
    bool all = true;
    std::uint64_t sd = 500;
    for (const S& c : cases) {
      if (c.log_m > max_log || (quick && c.log_m > 14)) continue;
      Circuit circ = random_circuit(c.log_m, c.mode, sd++);
      auto pk = generate_test_key(circ.shape, c.basis, ToxicWaste::from_seed(sd));
      if (!pk) return d = pk.error(), false;
      auto cpu = make_cpu_backend()->start(circ.shape, circ.w, *pk);
      gpu::GpuKeyOptions ko;
      ko.streamed = true;
      ko.chunk_bases = c.chunk;
      auto gk = gpu::GpuKey::upload(*pk, ko);
      auto gs = gpu::GpuShape::upload(circ.shape);
      if (!cpu || !gk || !gs) return d = "setup failed: " + (gk ? std::string() : gk.error()), false;
      gpu::GpuProver prover(g_tuning);
      gpu::GpuProveOptions po;
      po.split_max_tail = c.max_tail;
      po.profile = c.profile;
      if (c.limited) {
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        po.memory_limit = total_b;
      }
      gpu::GpuProveTimings t1, t2;
      auto g1 = prover.start(**gk, **gs, circ.w, po, &t1);
      const auto cw = CompactAssignment::from_dense(circ.w, circ.shape.num_inputs);
      auto g2 = prover.start(**gk, **gs, cw, po, &t2);
      ProofRandomness rs{Fr::from_u64(sd), Fr::from_u64(sd + 1)};
      const auto want = finish(*cpu, *pk, rs).to_bytes();
      const bool dense_ok = g1 && component_diff(*cpu, *g1).empty() && finish(*g1, *pk, rs).to_bytes() == want;
      const bool compact_ok = g2 && component_diff(*cpu, *g2).empty() && finish(*g2, *pk, rs).to_bytes() == want;
      const bool sent_once = t1.streamed && t2.streamed && t1.key_stream_bytes == (*gk)->host_bytes() &&
                             t2.key_stream_bytes == (*gk)->host_bytes();
      const bool counts = t1.l.n == pk->l.size() && t1.a.n == pk->a.size() && t1.b.n == pk->b_g1.size();
      char b[240];
      std::snprintf(b, sizeof b,
                    "2^%d %s %s chunk %zu split %.1f%s: dense %s compact %s, %zu of %zu host bytes sent%s; ", c.log_m,
                    mode_name(c.mode), c.basis == B::kMonomialOverZ ? "bellperson" : "snarkjs", c.chunk, c.max_tail,
                    c.limited ? " limited" : "", dense_ok ? "ok" : (g1 ? "MISMATCH" : g1.error().c_str()),
                    compact_ok ? "ok" : (g2 ? "MISMATCH" : g2.error().c_str()), t1.key_stream_bytes,
                    (*gk)->host_bytes(), counts ? "" : " (query counts WRONG)");
      d += b;
      all = all && dense_ok && compact_ok && sent_once && counts && (*gk)->streamed();
    }
    return all;
  });

  // Dense witnesses (issue 39: a 32 GiB WindowPoSt partition has 0.9 % bits): full MSMs over L, A, B
  // and H cut into pieces (GpuProveOptions::msm_piece_max; split off, on and always, so the tail MSMs
  // too), and pieces that gpus.memory_limit forces (a limit a little above what the device holds
  // before the proof): always the CPU backend's PendingProof and proof bytes, in more than one piece.
  check("dense witnesses: full MSMs in pieces, capped and under a memory limit", [&](std::string& d) {
    struct S {
      int log_m;
      Mode mode;
      HBasis basis;
      std::size_t piece_max;  // 0: the memory limit decides
      double max_tail;
    };
    const S cases[] = {
        {12, Mode::kRandomAux, B::kMonomialOverZ, 1000, 0.5}, {14, Mode::kRandomAux, B::kOddCosetLagrange, 3000, 0.0},
        {16, Mode::kMixed, B::kMonomialOverZ, 5000, 1.0},     {20, Mode::kRandomAux, B::kOddCosetLagrange, 300000, 0.5},
        {20, Mode::kRandomAux, B::kMonomialOverZ, 0, 0.5},
    };
    bool all = true;
    std::uint64_t sd = 1500;
    for (const S& c : cases) {
      if (c.log_m > max_log || (quick && c.log_m > 14)) continue;
      sd += 2;
      ProofRandomness rs{Fr::from_u64(sd), Fr::from_u64(sd + 1)};
      auto ref = make_reference(c.log_m, c.mode, c.basis, sd, rs);
      if (!ref) return d = ref.error(), false;
      auto gk = gpu::GpuKey::upload(ref->pk, gpu::GpuKeyOptions{});
      auto gs = gpu::GpuShape::upload(ref->circ.shape);
      if (!gk || !gs) return d = "setup failed: " + (gk ? std::string() : gk.error()), false;
      gpu::GpuProver prover(g_tuning);
      gpu::GpuProveOptions po;
      po.split_max_tail = c.max_tail;
      po.msm_piece_max = c.piece_max;
      if (!c.piece_max) {  // what the device holds now, plus 600 MiB: buffers and a few MSM pieces
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        po.memory_limit = total_b - free_b + (std::size_t(600) << 20);
      }
      gpu::GpuProveTimings t;
      auto g = prover.start(**gk, **gs, ref->circ.w, po, &t);
      const bool ok = g && component_diff(ref->cpu, *g).empty() && finish(*g, ref->pk, rs).to_bytes() == ref->want;
      char b[240];
      std::snprintf(b, sizeof b, "2^%d %s %s %s split %.1f: %s in %zu pieces (%zu halved, %zu row bytes freed); ",
                    c.log_m, mode_name(c.mode), c.basis == B::kMonomialOverZ ? "bellperson" : "snarkjs",
                    c.piece_max ? ("pieces <= " + std::to_string(c.piece_max)).c_str() : "memory limit", c.max_tail,
                    ok ? "ok" : (g ? ("MISMATCH" + component_diff(ref->cpu, *g)).c_str() : g.error().c_str()),
                    t.msm_pieces, t.msm_piece_retries, t.rows_freed_bytes);
      d += b;
      // Under the memory limit the dead row vectors go first (free_dead_rows); a cap alone frees nothing.
      all = all && ok && t.msm_pieces > 1 && (c.piece_max ? t.rows_freed_bytes == 0 : t.rows_freed_bytes > 0);
    }
    return all;
  });

  // Rows on the host (gpu/proof_memory.hpp, issue 39: a card too small for the shape beside a proof):
  // GpuProver::start_host_rows with resident and streamed keys, dense and compact witnesses, padded
  // domains and long rows; CudaBackend with RowsPlacement::kHost, and kAuto under a memory limit
  // that leaves no room for the shape; the snarkjs layout refused by name. Always the CPU's bytes.
  check("host rows: GpuProver and CudaBackend, byte-identical to the CPU", [&](std::string& d) {
    struct S {
      int log_m;
      Mode mode;
      bool padded, long_rows, streamed;
    };
    const S cases[] = {
        {10, Mode::kMixed, false, false, false},    {11, Mode::kMixed, true, false, true},
        {12, Mode::kRandomAux, false, true, false}, {14, Mode::kMixed, true, true, true},
        {16, Mode::kRandomAux, false, false, true}, {20, Mode::kMixed, false, true, false},
        {22, Mode::kRandomAux, true, false, true},
    };
    bool all = true;
    std::uint64_t sd = 2100;
    for (const S& c : cases) {
      if (c.log_m > max_log || (quick && c.log_m > 14)) continue;
      sd += 3;
      Circuit circ = random_circuit(c.log_m, c.mode, sd, c.padded, c.long_rows);
      auto pk = generate_test_key(circ.shape, B::kMonomialOverZ, ToxicWaste::from_seed(sd + 1));
      if (!pk) return d = pk.error(), false;
      auto cpu = make_cpu_backend()->start(circ.shape, circ.w, *pk);
      gpu::GpuKeyOptions ko;
      ko.streamed = c.streamed;
      ko.chunk_bases = 3000;
      auto gk = gpu::GpuKey::upload(*pk, ko);
      if (!cpu || !gk) return d = "setup failed: " + (gk ? std::string() : gk.error()), false;
      gpu::GpuProver prover(g_tuning);
      gpu::GpuProveTimings t1, t2;
      auto g1 = prover.start_host_rows(**gk, circ.shape, circ.w, {}, &t1);
      const auto cw = CompactAssignment::from_dense(circ.w, circ.shape.num_inputs);
      auto g2 = prover.start_host_rows(**gk, circ.shape, cw, {}, &t2);
      ProofRandomness rs{Fr::from_u64(sd), Fr::from_u64(sd + 1)};
      const auto want = finish(*cpu, *pk, rs).to_bytes();
      const bool dense_ok = g1 && component_diff(*cpu, *g1).empty() && finish(*g1, *pk, rs).to_bytes() == want;
      const bool compact_ok = g2 && component_diff(*cpu, *g2).empty() && finish(*g2, *pk, rs).to_bytes() == want;
      char b[240];
      std::snprintf(b, sizeof b, "2^%d %s%s%s %s: dense %s compact %s (host rows %.1f ms); ", c.log_m,
                    mode_name(c.mode), c.padded ? " padded" : "", c.long_rows ? " long-rows" : "",
                    c.streamed ? "streamed" : "resident", dense_ok ? "ok" : (g1 ? "MISMATCH" : g1.error().c_str()),
                    compact_ok ? "ok" : (g2 ? "MISMATCH" : g2.error().c_str()), t1.eval_ms);
      d += b;
      all = all && dense_ok && compact_ok && t1.rows_on_host && t2.rows_on_host;
    }
    // Through CudaBackend: asked, and decided under a memory limit with no room for the shape.
    Circuit circ = random_circuit(16, Mode::kMixed, 2199, false, true);
    auto pk = generate_test_key(circ.shape, B::kMonomialOverZ, ToxicWaste::from_seed(2200));
    auto snark = generate_test_key(circ.shape, B::kOddCosetLagrange, ToxicWaste::from_seed(2201));
    if (!pk || !snark) return d += "keygen failed", false;
    auto cpu = make_cpu_backend()->start(circ.shape, circ.w, *pk);
    ProofRandomness rs{Fr::from_u64(5), Fr::from_u64(6)};
    const auto want = finish(*cpu, *pk, rs).to_bytes();
    for (int variant = 0; variant < 2; ++variant) {
      gpu::CudaBackendOptions o = tuned_options();
      if (variant == 0) {
        o.rows = gpu::RowsPlacement::kHost;
      } else {  // what the device holds now plus the key's bases: no room left for the shape and a proof
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        o.prove.memory_limit = total_b - free_b + gpu::GpuKey::resident_bytes(*pk) + (std::size_t(1) << 30);
      }
      gpu::CudaBackend be(o);
      auto copy = be.upload(*pk, &circ.shape, {});
      if (!copy || !*copy) return d += "upload: " + (copy ? std::string("no copy") : copy.error()), false;
      auto g = be.start(circ.shape, circ.w, *pk, **copy);
      const bool ok = g && component_diff(*cpu, *g).empty() && finish(*g, *pk, rs).to_bytes() == want;
      const std::string why = (*copy)->reason();
      const bool said = why.find("rows on the host") != std::string::npos &&
                        (*copy)->summary().find("rows on the host") != std::string::npos;
      d += std::string(variant == 0 ? "CudaBackend kHost" : "CudaBackend kAuto under a limit") + ": " +
           (ok  ? "ok"
            : g ? "MISMATCH"
                : g.error()) +
           " (" + why + "); ";
      all = all && ok && said && be.last_timings().rows_on_host && be.stats().shape_uploads == 0;
    }
    gpu::GpuKeyOptions ko;
    auto sk = gpu::GpuKey::upload(*snark, ko);
    if (!sk) return d += sk.error(), false;
    gpu::GpuProver prover(g_tuning);
    auto refused = prover.start_host_rows(**sk, circ.shape, circ.w);
    const bool named = !refused && refused.error().find("bellperson layout") != std::string::npos;
    d += std::string("snarkjs layout: ") + (refused ? "ACCEPTED" : refused.error());
    return all && named;
  });

  // Cancellation inside the prover (issue 41 item 5): a check that says "cancelled" at its k-th call
  // (k = 1: at the first check, after the upload; larger k: between queries or MSM pieces), through
  // CudaBackend::set_cancel with a resident key and through GpuProver with a streamed one; each start
  // answers "cancelled", and the next proof with the same prover is byte-identical to the CPU's.
  check("cancellation: between stages, queries, MSM pieces and streamed chunks", [&](std::string& d) {
    ProofRandomness rs{Fr::from_u64(17), Fr::from_u64(18)};
    auto ref = make_reference(16, Mode::kRandomAux, B::kMonomialOverZ, 1700, rs);
    if (!ref) return d = ref.error(), false;
    const Circuit& circ = ref->circ;
    const ProvingKey* pk = &ref->pk;
    const auto& want = ref->want;
    bool all = true;
    gpu::CudaBackend be(tuned_options());
    auto copy = be.upload(*pk, &circ.shape, {});
    if (!copy) return d = copy.error(), false;
    for (int k : {1, 2, 3, 5, 8, 1000000}) {
      std::atomic<int> calls{0};
      be.set_cancel([&] { return ++calls >= k; });
      auto r = be.start(circ.shape, circ.w, *pk, **copy);
      be.set_cancel({});
      const bool said = k < 1000000 ? (!r && r.error() == "cancelled") : (r && finish(*r, *pk, rs).to_bytes() == want);
      auto again = be.start(circ.shape, circ.w, *pk, **copy);
      const bool after = again && finish(*again, *pk, rs).to_bytes() == want;
      d += "backend k=" + std::to_string(k) + " (" + std::to_string(calls.load()) +
           " checks): " + (said ? (r ? "proved" : "cancelled") : (r ? "NOT CANCELLED" : r.error())) + ", next " +
           (after ? "ok" : "WRONG") + "; ";
      all = all && said && after;
    }
    gpu::GpuKeyOptions ko;
    ko.streamed = true;
    ko.chunk_bases = 5000;
    auto gk = gpu::GpuKey::upload(*pk, ko);
    auto gs = gpu::GpuShape::upload(circ.shape);
    if (!gk || !gs) return d += "setup failed", false;
    gpu::GpuProver prover(g_tuning);
    for (int k : {4, 12}) {
      std::atomic<int> calls{0};
      gpu::GpuProveOptions po;
      po.msm_piece_max = 20000;
      po.cancelled = [&] { return ++calls >= k; };
      auto r = prover.start(**gk, **gs, circ.w, po);
      auto again = prover.start(**gk, **gs, circ.w, gpu::GpuProveOptions{});
      const bool ok = !r && r.error() == "cancelled" && again && finish(*again, *pk, rs).to_bytes() == want;
      d += "streamed k=" + std::to_string(k) + ": " + (ok ? "cancelled, next ok" : "WRONG") + "; ";
      all = all && ok;
    }
    return all;
  });

  // CudaBackend: streamed on request (kStreamed, or kAuto over max_resident_key_bytes), holding only
  // the chunk buffers on the device; the copy says it is streamed and holds its pinned bytes.
  check("streamed keys: CudaBackend kStreamed and kAuto over the byte limit", [&](std::string& d) {
    Circuit c = random_circuit(14, Mode::kMixed, 600);
    auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(601));
    if (!pk) return d = pk.error(), false;
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    ProofRandomness rs{Fr::from_u64(11), Fr::from_u64(12)};
    bool all = cpu.ok();
    for (int variant = 0; variant < 2; ++variant) {
      gpu::CudaBackendOptions o = tuned_options();
      o.stream_chunk_bases = 3001;
      if (variant == 0) o.key_residency = gpu::KeyResidency::kStreamed;
      else o.max_resident_key_bytes = gpu::GpuKey::resident_bytes(*pk) - 1;
      std::vector<std::string> notes;
      o.on_note = [&](const std::string& n) { notes.push_back(n); };
      gpu::CudaBackend be(o);
      auto copy = be.upload(*pk, &c.shape, {});
      if (!copy) return d = copy.error(), false;
      auto g = be.start(c.shape, c.w, *pk, **copy);
      auto g2 = be.start(c.shape, c.w, *pk, **copy);
      const bool same = g && g2 && finish(*g, *pk, rs).to_bytes() == finish(*cpu, *pk, rs).to_bytes() &&
                        finish(*g2, *pk, rs).to_bytes() == finish(*cpu, *pk, rs).to_bytes();
      const bool shape_ok = (*copy)->streamed() && (*copy)->host_bytes() == gpu::GpuKey::streamed_host_bytes(*pk) &&
                            (*copy)->device_bytes() < gpu::GpuKey::resident_bytes(*pk) && be.last_timings().streamed &&
                            be.stats().key_uploads == 1 && notes.size() == std::size_t(variant);
      d += std::string(variant == 0 ? "kStreamed" : "kAuto limit") + ": proofs " + (same ? "ok" : "FAILED") +
           ", host bytes " + std::to_string((*copy)->host_bytes()) + ", device bytes " +
           std::to_string((*copy)->device_bytes()) + (notes.empty() ? "" : ", note: " + notes[0]) + "; ";
      all = all && same && shape_ok;
    }
    return all;
  });

  // The pinned copy of a streamed key is charged (groth16::HostCharge) for exactly its bytes when
  // the copy is made and released when the copy is dropped; a refused charge fails the upload with
  // the reason, and the backend stays usable.
  check("streamed keys: pinned copy charged while the copy lives", [&](std::string& d) {
    Circuit c = random_circuit(12, Mode::kMixed, 620);
    auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(621));
    if (!pk) return d = pk.error(), false;
    ProofRandomness rs{Fr::from_u64(15), Fr::from_u64(16)};
    auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
    if (!cpu) return d = cpu.error(), false;
    const auto want = finish(*cpu, *pk, rs).to_bytes();
    std::vector<std::size_t> charged;
    int released = 0;
    std::string refuse;  // non-empty: the next charge fails with it
    groth16::HostCharge charge = [&](std::uint64_t bytes) -> Result<std::shared_ptr<void>> {
      if (!refuse.empty()) return Error{refuse};
      charged.push_back(bytes);
      return std::shared_ptr<void>(new int(0), [&](int* p) {
        delete p;
        ++released;
      });
    };
    gpu::CudaBackendOptions o = tuned_options();
    o.key_residency = gpu::KeyResidency::kStreamed;
    gpu::CudaBackend be(o);
    const std::size_t want_bytes = gpu::GpuKey::streamed_host_bytes(*pk);
    bool ok = true;
    auto expect = [&](bool cond, const std::string& what) {
      d += what + (cond ? " ok; " : " FAILED; ");
      ok = ok && cond;
    };
    {
      auto copy = be.upload(*pk, &c.shape, charge);
      if (!copy) return d = copy.error(), false;
      auto g1 = be.start(c.shape, c.w, *pk, **copy);
      auto g2 = be.start(c.shape, c.w, *pk, **copy);
      expect(g1 && g2 && finish(*g1, *pk, rs).to_bytes() == want && finish(*g2, *pk, rs).to_bytes() == want, "proofs");
      expect(charged.size() == 1 && charged[0] == want_bytes && released == 0,
             "one charge of " + std::to_string(want_bytes) + " B, held");
    }
    expect(released == 1, "dropping the copy releases it");
    refuse = "budget full";
    auto bad = be.upload(*pk, &c.shape, charge);
    expect(!bad && bad.error().find("pinned host memory") != std::string::npos &&
               bad.error().find("budget full") != std::string::npos,
           "refused: " + (bad ? std::string("NO ERROR") : bad.error()));
    refuse.clear();
    auto again = be.upload(*pk, &c.shape, charge);
    auto g3 = again ? be.start(c.shape, c.w, *pk, **again) : Result<PendingProof>(Error{again.error()});
    expect(g3 && finish(*g3, *pk, rs).to_bytes() == want && charged.size() == 2, "usable after a refusal");
    return ok;
  });

  // A key that does not fit: with most of the device memory taken, kAuto streams it (the upload's
  // out-of-memory switches the key), kResident reports the out-of-memory as an error; both backends
  // stay usable.
  if (max_log >= 20 && !quick) {
    check("streamed keys: kAuto streams a key that does not fit, kResident reports it", [&](std::string& d) {
      Circuit c = random_circuit(20, Mode::kMixed, 610);
      auto pk = generate_test_key(c.shape, B::kMonomialOverZ, ToxicWaste::from_seed(611));
      if (!pk) return d = pk.error(), false;
      auto cpu = make_cpu_backend()->start(c.shape, c.w, *pk);
      if (!cpu) return d = cpu.error(), false;
      ProofRandomness rs{Fr::from_u64(13), Fr::from_u64(14)};
      const auto want = finish(*cpu, *pk, rs).to_bytes();
      const std::size_t key_bytes = gpu::GpuKey::resident_bytes(*pk), chunk = 4096;
      // Room to prove with a streamed key, measured: the device memory a streamed proof holds (chunk
      // buffers, prover buffers, shape, MSM workspaces) plus a margin. A resident proof needs the key
      // besides about the same buffers, so it cannot fit when the key is larger than the margin:
      // kAuto's resident upload or its first proof then runs out of memory, and the key is streamed.
      const std::size_t margin = std::size_t(64) << 20;
      std::size_t room = 0, streamed_need = 0;
      {
        gpu::CudaBackendOptions probe_opt = tuned_options();
        probe_opt.key_residency = gpu::KeyResidency::kStreamed;
        probe_opt.stream_chunk_bases = chunk;
        std::size_t f0 = 0, f1 = 0, total_b = 0;
        cudaMemGetInfo(&f0, &total_b);
        gpu::CudaBackend probe(probe_opt);
        auto px = probe.upload(*pk, &c.shape, {});
        auto pp = px ? probe.start(c.shape, c.w, *pk, **px) : Result<PendingProof>(Error{px.error()});
        cudaMemGetInfo(&f1, &total_b);
        if (!pp || finish(*pp, *pk, rs).to_bytes() != want)
          return d = "streamed proof without the hog: " + (pp ? std::string("WRONG") : pp.error()), false;
        streamed_need = f0 - f1;
        room = streamed_need + margin;
      }
      if (key_bytes <= 2 * margin) return d = "test sizing: key " + std::to_string(key_bytes) + " B too small", false;
      gpu::CudaBackendOptions auto_opt = tuned_options(), res_opt = tuned_options();
      auto_opt.stream_chunk_bases = chunk;
      res_opt.key_residency = gpu::KeyResidency::kResident;
      gpu::CudaBackend be_auto(auto_opt), be_res(res_opt);
      Result<PendingProof> ga = Error{"not run"}, gr = Error{"not run"};
      std::shared_ptr<groth16::KeyCopy> auto_copy;
      {
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        gpu::DeviceBuffer hog(free_b - room);
        auto xa = be_auto.upload(*pk, &c.shape, {});
        if (xa) auto_copy = *xa;
        (void)(ga = xa ? be_auto.start(c.shape, c.w, *pk, **xa) : Result<PendingProof>(Error{xa.error()}));
        auto xr = be_res.upload(*pk, &c.shape, {});
        (void)(gr = xr ? be_res.start(c.shape, c.w, *pk, **xr) : Result<PendingProof>(Error{xr.error()}));
      }
      const auto sa = be_auto.stats();
      const bool auto_ok = ga && finish(*ga, *pk, rs).to_bytes() == want && auto_copy && auto_copy->streamed();
      const bool res_err = !gr && gr.error().find("out of memory") != std::string::npos;
      auto xr2 = be_res.upload(*pk, &c.shape, {});  // the memory is back: resident now
      auto after = xr2 ? be_res.start(c.shape, c.w, *pk, **xr2) : Result<PendingProof>(Error{xr2.error()});
      const bool after_ok = after && finish(*after, *pk, rs).to_bytes() == want && xr2 && !(*xr2)->streamed();
      d = "key " + std::to_string(key_bytes >> 20) + " MiB, a streamed proof holds " +
          std::to_string(streamed_need >> 20) + " MiB, room " + std::to_string(room >> 20) +
          " MiB | kAuto: " + (ga ? std::string("proved") : ga.error()) +
          (auto_ok ? " (streamed, proof ok, key uploads " + std::to_string(sa.key_uploads) + ")" : " WRONG") +
          " | kResident: " + (gr ? std::string("NO ERROR") : gr.error()) +
          " | kResident after: " + (after_ok ? "ok" : "FAILED");
      return auto_ok && res_err && after_ok;
    });
  }

  std::printf("GPU PROVER CHECK: %d passed, %d failed\n", g_passes, g_failures);
  return g_failures ? 1 : 0;
}
