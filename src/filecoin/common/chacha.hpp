// ChaCha keystreams in the two layouts SDR needs:
//  * rand_chacha 0.3 ChaCha8Rng (DRG parent sampling): original layout, 8 rounds, 64-bit block
//    counter in words 12–13, stream id 0 in words 14–15, keystream consumed as LE u32 words,
//    next_u64 = low word then high word;
//  * ChaCha20-IETF (synthetic challenges): 20 rounds, 32-bit counter in word 12, 96-bit nonce.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace cuzk::filecoin {

// One 64-byte block as 16 LE words: state = constants ‖ key ‖ tail (words 12..15).
void chacha_block(const std::uint32_t key[8], const std::uint32_t tail[4], int rounds, std::uint32_t out[16]);

class ChaCha8Rng {
 public:
  explicit ChaCha8Rng(std::span<const std::uint8_t, 32> seed);
  std::uint32_t next_u32();
  std::uint64_t next_u64() {
    std::uint64_t lo = next_u32();
    return lo | std::uint64_t(next_u32()) << 32;
  }

 private:
  std::uint32_t key_[8];
  std::uint64_t counter_ = 0;
  std::uint32_t buf_[16];
  int pos_ = 16;
};

// Writes out.size() bytes of the ChaCha20-IETF keystream starting at byte `offset` (block counter
// starts at 0), i.e. what encrypting zeros after seeking to `offset` yields.
void chacha20_ietf_keystream(std::span<const std::uint8_t, 32> key, std::span<const std::uint8_t, 12> nonce,
                             std::uint64_t offset, std::span<std::uint8_t> out);

}  // namespace cuzk::filecoin
