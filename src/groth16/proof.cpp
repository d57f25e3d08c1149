#include "groth16/proof.hpp"

#include <algorithm>
#include <string>

#include "math/ec/encoding.hpp"

namespace cuzk::groth16 {

std::array<std::uint8_t, kProofBytes> Proof::to_bytes() const {
  std::array<std::uint8_t, kProofBytes> out{};
  auto ea = math::g1_to_compressed(a);
  auto eb = math::g2_to_compressed(b);
  auto ec = math::g1_to_compressed(c);
  std::copy(ea.begin(), ea.end(), out.begin());
  std::copy(eb.begin(), eb.end(), out.begin() + 48);
  std::copy(ec.begin(), ec.end(), out.begin() + 144);
  return out;
}

Result<Proof> Proof::from_bytes(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != kProofBytes) {
    return Error{"proof: expected 192 bytes, got " + std::to_string(bytes.size())};
  }
  auto a = math::g1_from_compressed(bytes.subspan(0, 48));
  if (!a) return Error{"proof A: " + a.error()};
  auto b = math::g2_from_compressed(bytes.subspan(48, 96));
  if (!b) return Error{"proof B: " + b.error()};
  auto c = math::g1_from_compressed(bytes.subspan(144, 48));
  if (!c) return Error{"proof C: " + c.error()};
  if (a->is_identity() || b->is_identity() || c->is_identity()) {
    return Error{"proof: a component is the point at infinity"};
  }
  return Proof{*a, *b, *c};
}

std::vector<std::uint8_t> concat_proofs(std::span<const Proof> proofs) {
  std::vector<std::uint8_t> out;
  out.reserve(proofs.size() * kProofBytes);
  for (const auto& p : proofs) {
    auto b = p.to_bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

Result<std::vector<Proof>> split_proofs(std::span<const std::uint8_t> bytes) {
  if (bytes.empty() || bytes.size() % kProofBytes != 0) {
    return Error{"proof file: " + std::to_string(bytes.size()) + " bytes is not a positive multiple of 192"};
  }
  std::vector<Proof> out;
  for (std::size_t off = 0; off < bytes.size(); off += kProofBytes) {
    auto p = Proof::from_bytes(bytes.subspan(off, kProofBytes));
    if (!p) return Error{"partition " + std::to_string(off / kProofBytes) + ": " + p.error()};
    out.push_back(*p);
  }
  return out;
}

}  // namespace cuzk::groth16
