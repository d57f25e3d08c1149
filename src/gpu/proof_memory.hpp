// Where a proof's row values a, b, c are made, from the device memory a proof needs (issue 39 item 3:
// a 32 GiB WindowPoSt partition on a 24 GB card).
//
// On the device (the default), the rows are evaluated from the shape resident beside the key
// (GpuShape): nothing crosses the bus, but the device holds the shape and three row vectors. On the
// host (bellperson's way), the prover evaluates one matrix at a time on the host threads from the
// R1csShape the backend is given, into its pinned staging buffers, and copies it up: the device holds
// no shape and two row vectors (A's transform, then B's, their product in A's buffer, then C's
// coefficients in B's). A 2^27 WindowPoSt partition (126.9M variables, a dense witness): shape 9.6 GB
// + witness 4.1 GB + rows 12.9 GB on the device, against witness 4.1 GB + rows 8.6 GB on the host
// path; with its key streamed from its file (3.2 GB of chunk buffers) only the second fits 24 GiB.
//
// Plain arithmetic with no CUDA types, so that CI (no GPU) tests it: tests/gpu/proof_memory_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace cuzk::gpu {

enum class RowsPlacement { kAuto, kDevice, kHost };

// What sizes a proof's device buffers.
struct ProofFootprint {
  std::uint32_t domain_log2 = 0;
  std::uint64_t num_variables = 0;
  std::uint64_t a_n = 0, b_n = 0;  // the A and B queries' lengths (their scalars are gathered)
  bool snarkjs_layout = false;     // HBasis::kOddCosetLagrange: four row buffers, rows on the device only
  bool has_c = true;               // false (snarkjs): c = a * b on the device, rows on the device only
  bool host_rows_possible() const { return !snarkjs_layout && has_c; }
};

// MSM workspaces, NTT tables and CUB scratch beside a proof's fixed buffers: the least a proof is
// planned with (a 2^22-base chunk's G2 workspace is ~1 GB; the MSMs cut themselves to what is left).
inline constexpr std::uint64_t kProofWorkspaceReserve = std::uint64_t(2) << 30;

// Device bytes of one proof's fixed buffers at their peak (32 bytes an element): the witness and the
// row vectors while H is computed; later the witness, H's scalars and the gathered A/B scalars (the
// dead rows are freed for them when memory is short).
inline std::uint64_t proof_fixed_bytes(const ProofFootprint& p, bool rows_on_host) {
  constexpr std::uint64_t kFr = 32;
  const std::uint64_t m = std::uint64_t(1) << p.domain_log2;
  const std::uint64_t w = p.num_variables * kFr, q = std::max(p.a_n, p.b_n) * kFr;
  const std::uint64_t rows = (rows_on_host ? 2 : p.snarkjs_layout ? 4 : 3) * m * kFr;
  return std::max(w + rows, w + m * kFr + q);
}

struct RowsPlan {
  bool on_host = false;
  std::string why;  // for the key copy's reason: the sizes compared, or what was asked
};

// `free_bytes`: what the device has for the shape and a proof once the key's copy is made (under
// gpus.memory_limit). kAuto: the device path while the shape, a proof's fixed buffers and
// kProofWorkspaceReserve fit; else the host path where the proof allows it.
inline RowsPlan plan_rows(RowsPlacement asked, const ProofFootprint& p, std::uint64_t shape_bytes,
                          std::uint64_t free_bytes) {
  auto mib = [](std::uint64_t b) { return std::to_string(b >> 20) + " MiB"; };
  const std::uint64_t device_need = shape_bytes + proof_fixed_bytes(p, false) + kProofWorkspaceReserve;
  const std::uint64_t host_need = proof_fixed_bytes(p, true) + kProofWorkspaceReserve;
  const std::string sizes = "the shape " + mib(shape_bytes) + " + a proof " +
                            mib(proof_fixed_bytes(p, false) + kProofWorkspaceReserve) +
                            (device_need <= free_bytes ? " <= " : " > ") + mib(free_bytes) + " free";
  if (asked == RowsPlacement::kDevice) return {false, "rows on the device: asked"};
  if (!p.host_rows_possible())
    return {false, std::string("rows on the device: ") +
                       (p.snarkjs_layout ? "the snarkjs layout" : "a shape without C") + " has no host path"};
  if (asked == RowsPlacement::kHost) return {true, "rows on the host: asked"};
  if (device_need <= free_bytes) return {false, "rows on the device: " + sizes};
  return {true, "rows on the host: " + sizes + " (a proof then needs " + mib(host_need) + ")"};
}

}  // namespace cuzk::gpu
