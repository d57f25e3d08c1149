// The low-level SHA256_* API is deprecated in OpenSSL 3 but remains the only way to hash without an
// EVP context allocation per call; the tree-D level hashes are only two blocks each.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "filecoin/common/sha.hpp"

#include <openssl/sha.h>

namespace cuzk::filecoin {

static_assert(sizeof(SHA256_CTX) <= 128, "Sha256::ctx_ too small for SHA256_CTX");

namespace {
SHA256_CTX* ctx(unsigned char* p) { return reinterpret_cast<SHA256_CTX*>(p); }
}  // namespace

Sha256::Sha256() { reset(); }

void Sha256::reset() { SHA256_Init(ctx(ctx_)); }

void Sha256::update(std::span<const std::uint8_t> bytes) { SHA256_Update(ctx(ctx_), bytes.data(), bytes.size()); }

Bytes32 Sha256::finish() {
  Bytes32 out;
  SHA256_Final(out.data(), ctx(ctx_));
  return out;
}

Bytes32 sha256(std::span<const std::uint8_t> bytes) {
  Bytes32 out;
  SHA256(bytes.data(), bytes.size(), out.data());
  return out;
}

Bytes32 sha254(std::span<const std::uint8_t> bytes) {
  Bytes32 out = sha256(bytes);
  trim_to_fr(out);
  return out;
}

}  // namespace cuzk::filecoin
