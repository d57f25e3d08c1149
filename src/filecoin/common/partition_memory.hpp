// The host memory one partition holds in the engine, as every family's job models it (the engine
// reserves max(model, 1.1 × measured); docs/daemon.md §3). Fr = 32 bytes, n = variables,
// m = 2^domain_log2 rows, C = the compact witness:
//   synthesis  what the family says its witness takes while it grows (`synthesis_bytes`)
//   backend    cpu:  C + the dense assignment it expands to (n Fr) + a, b, c padded to m and one
//                    m-sized copy while they are resized (4m Fr) + the A and B scalar selections
//                    (<= 2n Fr) + MSM buckets (8 MiB)
//              cuda: C + 8 MiB (the host holds only the witness until start() returns; the staging
//                    buffers are the backend's, allocated once; everything else is device memory)
// plus the family's `slack` (its decoded inputs, allocator slack); after start() 64 KiB remain.
#pragma once

#include <algorithm>
#include <cstdint>

namespace cuzk::filecoin {

struct PartitionBytes {
  std::uint64_t full = 0, after_start = 0;
};

inline PartitionBytes model_partition_bytes(std::uint64_t compact_bytes, std::uint64_t n_vars,
                                            std::uint32_t domain_log2, bool device_backend,
                                            std::uint64_t synthesis_bytes, std::uint64_t slack) {
  const std::uint64_t fr = 32;
  const std::uint64_t m = std::uint64_t(1) << domain_log2;
  const std::uint64_t backend = device_backend
                                    ? compact_bytes + (8u << 20)
                                    : compact_bytes + n_vars * fr + 4 * m * fr + 2 * n_vars * fr + (8u << 20);
  return {std::max(synthesis_bytes, backend) + slack, 64u << 10};
}

}  // namespace cuzk::filecoin
