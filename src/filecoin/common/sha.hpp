// SHA-256 for the sealing hot paths (labels, tree D, ids). OpenSSL's block function uses the SHA
// extensions when the CPU has them, which matters: a 512 MiB seal hashes ~700M blocks.
#pragma once

#include <cstdint>
#include <span>

#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin {

// Incremental SHA-256 (one object per thread; no allocation).
class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::uint8_t> bytes);
  Bytes32 finish();  // the object must be reset() before reuse
  void reset();

 private:
  alignas(16) unsigned char ctx_[128];  // opaque SHA256_CTX (112 bytes in OpenSSL 3)
};

Bytes32 sha256(std::span<const std::uint8_t> bytes);
// SHA-256 with bits 254 and 255 cleared (Filecoin's Sha256Domain).
Bytes32 sha254(std::span<const std::uint8_t> bytes);

}  // namespace cuzk::filecoin
