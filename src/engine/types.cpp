#include "engine/types.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>

namespace cuzk::engine {

const char* priority_name(Priority p) {
  switch (p) {
    case Priority::kLow: return "LOW";
    case Priority::kNormal: return "NORMAL";
    case Priority::kHigh: return "HIGH";
    case Priority::kCritical: return "CRITICAL";
  }
  return "NORMAL";
}

const char* status_name(ResultStatus s) {
  switch (s) {
    case ResultStatus::kCompleted: return "COMPLETED";
    case ResultStatus::kFailed: return "FAILED";
    case ResultStatus::kCancelled: return "CANCELLED";
    case ResultStatus::kTimeout: return "TIMEOUT";
    case ResultStatus::kUnknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

OpenFile::~OpenFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t ProofRequest::held_bytes() const {
  std::uint64_t n = sizeof(ProofRequest);
  for (const std::string* s : {&request_id, &vanilla_proof, &randomness, &comm_r_old, &comm_r_new, &comm_d_new,
                               &circuit_id, &witness_wtns, &witness_path, &owner})
    n += s->size();
  for (const auto& v : vanilla_proofs) n += sizeof(std::string) + v.size();
  return n;
}

ContentDigest ProofRequest::content_digest() const {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
  auto u64 = [&](std::uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
    EVP_DigestUpdate(ctx.get(), b, sizeof b);
  };
  auto bytes = [&](const std::string& s) {
    u64(s.size());
    EVP_DigestUpdate(ctx.get(), s.data(), s.size());
  };
  for (std::uint64_t v : {std::uint64_t(proof_kind), sector_size, registered_proof, sector_number, miner_id,
                          std::uint64_t(partition_index)})
    u64(v);
  bytes(vanilla_proof);
  u64(vanilla_proofs.size());
  for (const auto& v : vanilla_proofs) bytes(v);
  for (const std::string* s :
       {&randomness, &comm_r_old, &comm_r_new, &comm_d_new, &circuit_id, &witness_wtns, &witness_path})
    bytes(*s);
  ContentDigest d{};
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx.get(), d.data(), &n);
  return d;
}

std::string content_tag(const ContentDigest& d, std::size_t hex_chars) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < hex_chars && i / 2 < d.size(); ++i) {
    const std::uint8_t b = d[i / 2];
    s.push_back(kHex[i % 2 ? b & 15 : b >> 4]);
  }
  return s;
}

}  // namespace cuzk::engine
