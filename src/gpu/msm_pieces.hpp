// Dense MSMs in pieces that fit the device memory left (issue 39). A query whose scalars are mostly
// neither 0 nor 1 (a 32 GiB WindowPoSt partition: 0.9 % of its aux are bits, against PoRep's 98.7 %)
// is a full MSM over all its n scalars, and one MSM's workspace grows with n: at 2^27 about 16 GB in
// G1 and 44 GB in G2 (Msm::workspace_bytes_for), beside a key of 57 GB. GpuProver cuts such a query
// into the fewest pieces whose workspace fits what the card has left under gpus.memory_limit, and
// adds the pieces' sums (the bases stay where they are: Msm::msm_device_range). One piece is the
// single MSM of before, so a query that fits runs exactly as it did.
//
// Plain arithmetic with no CUDA types, so that CI (no GPU) tests it: tests/gpu/msm_pieces_test.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

namespace cuzk::gpu {

// A query of n scalars in `pieces` pieces of `piece` scalars (the last may be shorter).
struct MsmPieces {
  std::size_t pieces = 1, piece = 0;
  bool fits = true;  // false: not even a piece of kMsmMinPiece scalars fits the budget
};

inline constexpr std::size_t kMsmPieceAlign = 64;                  // pieces start on a 64-scalar boundary
inline constexpr std::size_t kMsmMinPiece = std::size_t(1) << 16;  // below this, fixed costs dominate

// The fewest pieces whose largest, ceil(n / pieces) rounded up to kMsmPieceAlign, needs at most
// `budget` bytes of workspace, with at most max_piece scalars each when max_piece > 0.
// workspace_for(k): bytes of workspace for an MSM of k scalars, non-decreasing in k.
inline MsmPieces plan_msm_pieces(std::size_t n, std::size_t budget, std::size_t max_piece,
                                 const std::function<std::size_t(std::size_t)>& workspace_for) {
  MsmPieces r;
  if (n == 0) return r;
  auto piece_of = [&](std::size_t p) {
    const std::size_t k = (n + p - 1) / p;
    return std::min(n, (k + kMsmPieceAlign - 1) / kMsmPieceAlign * kMsmPieceAlign);
  };
  std::size_t p = 1;
  if (max_piece > 0) p = std::max<std::size_t>(1, (n + max_piece - 1) / max_piece);
  while (max_piece > 0 && piece_of(p) > max_piece && piece_of(p) > kMsmPieceAlign) ++p;  // alignment rounded up
  for (;;) {
    const std::size_t k = piece_of(p);
    const std::size_t need = workspace_for(k);
    if (need <= budget) break;
    if (k <= kMsmMinPiece || k <= kMsmPieceAlign) {
      r.fits = false;
      break;
    }
    // workspace is about linear in k: jump to the proportional count, at least one more piece
    const std::size_t scaled = budget ? std::size_t(double(p) * double(need) / double(budget)) + 1 : p + 1;
    std::size_t next = std::max(p + 1, scaled);
    if (piece_of(next) < kMsmMinPiece) next = std::max(p + 1, (n + kMsmMinPiece - 1) / kMsmMinPiece);
    p = next;
  }
  r.piece = piece_of(p);
  r.pieces = (n + r.piece - 1) / r.piece;
  return r;
}

// Bytes an MSM may still allocate on a device with `free` of `total` bytes free, when cuzk plans with
// `limit` bytes of that card (gpus.memory_limit): device_free_under, less a margin of 256 MiB + 1 % of
// the limit (allocation granularity, CUB's scratch, the other stream's small buffers).
// The free memory of a device under `limit` bytes of it (0 or above the card: all of it): the free
// memory, capped at what the limit leaves after what is in use.
inline std::size_t device_free_under(std::size_t free, std::size_t total, std::size_t limit) {
  if (!limit || limit >= total) return free;
  const std::size_t used = total > free ? total - free : 0;
  return limit > used ? std::min(free, limit - used) : 0;
}

inline std::size_t device_room(std::size_t free, std::size_t total, std::size_t limit) {
  const std::size_t cap = (limit && limit < total) ? limit : total;
  const std::size_t room = device_free_under(free, total, limit);
  const std::size_t margin = (std::size_t(256) << 20) + cap / 100;
  return room > margin ? room - margin : 0;
}

}  // namespace cuzk::gpu
