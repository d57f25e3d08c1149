// The dense MSMs' split arithmetic (src/gpu/msm_pieces.hpp), with no GPU: the fewest pieces that fit
// the budget, aligned, capped, never below the smallest piece; and the device room under
// gpus.memory_limit. The workspace model here is the shape of Msm::workspace_bytes_for (a fixed part
// plus bytes per scalar): G1 at 2^27 about 120 bytes per scalar, G2 about 330.
#include <gtest/gtest.h>

#include "gpu/msm_pieces.hpp"

namespace cuzk {
namespace {

using gpu::device_room;
using gpu::kMsmMinPiece;
using gpu::kMsmPieceAlign;
using gpu::plan_msm_pieces;

constexpr std::size_t GiB = std::size_t(1) << 30, MiB = std::size_t(1) << 20;

std::size_t linear(std::size_t k, std::size_t per, std::size_t fixed) { return fixed + per * k; }

TEST(MsmPieces, AQueryThatFitsIsOnePieceOfItsOwnLength) {
  const std::size_t n = 96'205'645;  // the 32 GiB WindowPoSt A query
  const auto p = plan_msm_pieces(n, 80 * GiB, 0, [](std::size_t k) { return linear(k, 120, 64 * MiB); });
  EXPECT_EQ(p.pieces, 1u);
  EXPECT_EQ(p.piece, n);  // not rounded past n
  EXPECT_TRUE(p.fits);
}

TEST(MsmPieces, TheFewestPiecesThatFitAndNoFewer) {
  // B in G2 at 2^27 (91,925,767 scalars) on the memory a 24 GiB card leaves: every budget from 1 to
  // 40 GiB gives pieces that fit, and one piece fewer would not.
  const std::size_t n = 91'925'767;
  auto ws = [](std::size_t k) { return linear(k, 330, 200 * MiB); };
  for (std::size_t budget = 1 * GiB; budget <= 40 * GiB; budget += GiB / 2) {
    const auto p = plan_msm_pieces(n, budget, 0, ws);
    ASSERT_TRUE(p.fits) << budget;
    EXPECT_LE(ws(p.piece), budget) << budget;
    if (p.pieces > 1) EXPECT_EQ(p.piece % kMsmPieceAlign, 0u);  // one piece is the query itself
    EXPECT_EQ(p.pieces, (n + p.piece - 1) / p.piece);
    EXPECT_GE(p.piece * p.pieces, n);
    EXPECT_LT(p.piece * (p.pieces - 1), n);  // no empty piece
    if (p.pieces > 1) {
      const std::size_t fewer =
          ((n + p.pieces - 2) / (p.pieces - 1) + kMsmPieceAlign - 1) / kMsmPieceAlign * kMsmPieceAlign;
      EXPECT_GT(ws(fewer), budget) << budget << ": " << p.pieces - 1 << " pieces would have fit";
    }
  }
  EXPECT_EQ(plan_msm_pieces(n, 8 * GiB, 0, ws).pieces, 4u);  // 30.3 GB in pieces of <= 8 GiB: 23.0M scalars
}

TEST(MsmPieces, MaxPieceCapsThePieces) {
  const std::size_t n = (std::size_t(1) << 20) + 3;
  const auto p = plan_msm_pieces(n, 1000 * GiB, std::size_t(1) << 18, [](std::size_t) { return std::size_t(0); });
  EXPECT_EQ(p.pieces, 5u);  // the fewest under the cap, of equal length (not 4 full ones and 3 scalars)
  EXPECT_EQ(p.piece, 209'728u);
  // an unaligned cap: pieces stay aligned and below it
  const auto q = plan_msm_pieces(n, 1000 * GiB, 100'000, [](std::size_t) { return std::size_t(0); });
  EXPECT_LE(q.piece, 100'000u);
  EXPECT_EQ(q.piece % kMsmPieceAlign, 0u);
  EXPECT_EQ(q.pieces, (n + q.piece - 1) / q.piece);
}

TEST(MsmPieces, NoRoomAtAllSaysItDoesNotFit) {
  const std::size_t n = std::size_t(1) << 27;
  const auto p = plan_msm_pieces(n, 0, 0, [](std::size_t k) { return linear(k, 120, 64 * MiB); });
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.piece, kMsmMinPiece);  // the smallest piece is tried (and its out-of-memory reported)
  EXPECT_EQ(p.pieces, n / kMsmMinPiece);
  EXPECT_TRUE(plan_msm_pieces(0, 0, 0, [](std::size_t) { return std::size_t(1); }).fits);
}

TEST(MsmPieces, SmallQueriesAreNeverCutBelowTheSmallestPiece) {
  const auto p = plan_msm_pieces(kMsmMinPiece, 1, 0, [](std::size_t k) { return k; });
  EXPECT_EQ(p.pieces, 1u);
  EXPECT_FALSE(p.fits);
}

TEST(MsmPieces, DeviceRoomHonoursTheLimit) {
  const std::size_t total = 141 * GiB;
  // no limit: the free memory less 256 MiB + 1 % of the card
  EXPECT_EQ(device_room(100 * GiB, total, 0), 100 * GiB - 256 * MiB - total / 100);
  // a limit above the card is the card
  EXPECT_EQ(device_room(100 * GiB, total, 200 * GiB), device_room(100 * GiB, total, 0));
  // 24 GiB of a card with 41 GiB in use (by cuzk or anyone): nothing left
  EXPECT_EQ(device_room(100 * GiB, total, 24 * GiB), 0u);
  // 24 GiB with 4 GiB in use: 20 GiB less the margin, though 137 GiB are free
  EXPECT_EQ(device_room(137 * GiB, total, 24 * GiB), 20 * GiB - 256 * MiB - 24 * GiB / 100);
  // never more than is free: 1 GiB free is less than the margin of a 140 GiB limit
  EXPECT_EQ(device_room(1 * GiB, total, 140 * GiB), 0u);
  EXPECT_EQ(device_room(10 * GiB, 80 * GiB, 0), 10 * GiB - 256 * MiB - 80 * GiB / 100);
}

}  // namespace
}  // namespace cuzk
