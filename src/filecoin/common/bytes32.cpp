#include "filecoin/common/bytes32.hpp"

#include "circuit/sha256_native.hpp"

namespace cuzk::filecoin {

Fr fr_from_bytes(const Bytes32& b) { return circuit::fr_from_le_bytes(b); }

Bytes32 fr_to_bytes(const Fr& x) { return circuit::fr_to_le_bytes(x); }

}  // namespace cuzk::filecoin
