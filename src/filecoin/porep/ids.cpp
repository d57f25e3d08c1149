#include "filecoin/porep/ids.hpp"

#include <vector>

#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::porep {

Bytes32 porep_id_from_number(std::uint64_t registered_id) {
  Bytes32 id{};
  for (int i = 0; i < 8; ++i) id[std::size_t(i)] = std::uint8_t(registered_id >> (8 * i));
  return id;  // bytes 8..15 are the nonce, always 0
}

Bytes32 porep_id(const porep::PorepConfig& config) { return porep_id_from_number(config.id); }

Bytes32 replica_id(const Bytes32& prover_id, std::uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id) {
  std::uint8_t msg[32 + 8 + 32 + 32 + 32];
  std::uint8_t* p = msg;
  for (std::uint8_t b : prover_id) *p++ = b;
  for (int i = 7; i >= 0; --i) *p++ = std::uint8_t(sector_id >> (8 * i));
  for (std::uint8_t b : ticket) *p++ = b;
  for (std::uint8_t b : comm_d) *p++ = b;
  for (std::uint8_t b : porep_id) *p++ = b;
  return sha254(msg);
}

Bytes32 prover_id_from_actor(std::uint64_t actor) {
  Bytes32 id{};
  std::size_t i = 0;
  do {
    std::uint8_t byte = actor & 0x7f;
    actor >>= 7;
    if (actor) byte |= 0x80;
    id[i++] = byte;
  } while (actor);
  return id;
}

}  // namespace cuzk::filecoin::porep
