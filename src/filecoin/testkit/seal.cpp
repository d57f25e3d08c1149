#include "filecoin/testkit/seal.hpp"

#include <chrono>
#include <stdexcept>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/common/chacha.hpp"
#include "filecoin/testkit/fr32.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/testkit/labels.hpp"

namespace cuzk::filecoin::testkit {

using namespace porep;  // the PoRep vocabulary (graph, labels, C1 model) this tooling builds on
namespace {

class PhaseClock {
 public:
  PhaseClock(std::vector<PhaseTiming>& out, const PhaseCallback& cb) : out_(out), cb_(cb) {}
  void lap(const char* phase) {
    const auto now = std::chrono::steady_clock::now();
    out_.push_back({phase, std::chrono::duration<double>(now - t_).count()});
    if (cb_) cb_(out_.back());
    t_ = now;
  }

 private:
  std::vector<PhaseTiming>& out_;
  const PhaseCallback& cb_;
  std::chrono::steady_clock::time_point t_ = std::chrono::steady_clock::now();
};

constexpr std::uint64_t kMaxInMemorySector = std::uint64_t(1) << 30;

}  // namespace

void require_in_memory_sealable(const porep::PorepConfig& config) {
  if (config.sector_size > kMaxInMemorySector)
    throw std::invalid_argument(config.name + " is too large for the in-memory sealer (at most 1 GiB sectors)");
  if (config.layers == 0 || config.layers > 16) throw std::invalid_argument("seal: unsupported layer count");
}

std::vector<std::uint8_t> SealedSector::replica_bytes() const {
  const auto leaves = tree_r.leaves();
  std::vector<std::uint8_t> out(leaves.size() * 32);
  parallel_for(
      leaves.size(),
      [&](std::size_t i) {
        leaves[i].to_bytes_le({out.data() + 32 * i, 32});
      },
      4096);
  return out;
}

std::vector<std::uint8_t> random_unpadded_data(const porep::PorepConfig& config, std::uint64_t rng_seed) {
  require_in_memory_sealable(config);
  std::array<std::uint8_t, 32> key{};
  for (int i = 0; i < 8; ++i) key[std::size_t(i)] = std::uint8_t(rng_seed >> (8 * i));
  constexpr std::array<std::uint8_t, 12> kNonce = {'c', 'u', 'z', 'k', '-', 's', 'e', 'a', 'l', 0, 0, 0};
  std::vector<std::uint8_t> out(unpadded_size(config.sector_size));
  chacha20_ietf_keystream(key, kNonce, 0, out);
  return out;
}

SealedSector seal(const porep::PorepConfig& config, const SealInputs& in, const PhaseCallback& on_phase,
                  const LayerCallback& on_layer) {
  require_in_memory_sealable(config);
  const std::uint64_t raw_size = unpadded_size(config.sector_size);
  if (in.data.size() > raw_size)
    throw std::invalid_argument("seal: data is " + std::to_string(in.data.size()) + " bytes, more than the " +
                                std::to_string(raw_size) + " unpadded bytes of " + config.name);
  SealedSector s;
  s.config = config;
  s.prover_id = in.prover_id;
  s.sector_id = in.sector_id;
  s.ticket = in.ticket;
  PhaseClock clock(s.timings, on_phase);
  const std::uint64_t n = config.nodes;

  // Data → tree D → comm_d. A short input is zero-filled (as an unsealed file of zero pieces).
  std::vector<Bytes32> nodes;
  if (in.data.size() == raw_size) {
    nodes = fr32_pad(in.data);
  } else {
    std::vector<std::uint8_t> full(in.data);
    full.resize(raw_size, 0);
    nodes = fr32_pad(full);
  }
  clock.lap("fr32 pad");
  s.tree_d = ShaTree(std::move(nodes));
  s.comm_d = s.tree_d.root();
  clock.lap("tree D");

  s.porep_id = porep_id(config);
  s.replica_id = replica_id(s.prover_id, s.sector_id, s.ticket, s.comm_d, s.porep_id);
  const Graph graph(config);
  {
    const std::vector<std::uint32_t> cache = build_parent_cache(graph);
    clock.lap("parent cache");
    s.labels = generate_labels(graph, cache, s.replica_id, config.layers, on_layer);
    clock.lap("labels");
  }

  // Tree C: each leaf is the Poseidon (arity L) hash of the node's column of labels.
  const circuit::TreeShape shape = config.tree_rc_shape();
  {
    const circuit::PoseidonConstants& col = circuit::poseidon_constants(config.layers);
    std::vector<Fr> leaves(n);
    parallel_for(
        std::size_t(n),
        [&](std::size_t i) {
          Fr column[16];
          for (std::size_t l = 0; l < config.layers; ++l) column[l] = fr_from_bytes(s.labels[l * n + i]);
          leaves[i] = circuit::poseidon_hash(col, std::span<const Fr>(column, config.layers));
        },
        256);
    clock.lap("column hashes");
    s.tree_c = PoseidonTree(shape, std::move(leaves));
    s.comm_c = fr_to_bytes(s.tree_c.root());
    clock.lap("tree C");
  }

  // Tree R over the replica: label_L + data as field elements.
  {
    std::vector<Fr> replica(n);
    const Bytes32* last = s.labels.data() + (config.layers - 1) * n;
    const auto data = s.tree_d.leaves();
    parallel_for(
        std::size_t(n), [&](std::size_t i) { replica[i] = fr_from_bytes(last[i]) + fr_from_bytes(data[i]); }, 4096);
    clock.lap("replica");
    s.tree_r = PoseidonTree(shape, std::move(replica));
    s.comm_r_last = fr_to_bytes(s.tree_r.root());
    clock.lap("tree R");
  }

  const Fr pair[2] = {s.tree_c.root(), s.tree_r.root()};
  s.comm_r = fr_to_bytes(circuit::poseidon_hash(circuit::poseidon_constants(2), pair));
  return s;
}

}  // namespace cuzk::filecoin::testkit
