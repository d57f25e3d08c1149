#include "filecoin/porep/graph.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "base/parallel.hpp"
#include "filecoin/common/chacha.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::porep {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

Graph::Graph(const porep::PorepConfig& config)
    : Graph(config.nodes, porep::porep_id(config), config.api_version == "V1_0_0") {}

Graph::Graph(std::uint64_t nodes, const Bytes32& porep_id, bool legacy_v1_0)
    : nodes_(nodes),
      porep_id_(porep_id),
      legacy_(legacy_v1_0),
      keys_(Feistel::keys_for(porep_id)),
      feistel_(nodes * kExpDegree, keys_) {
  if (nodes < 2 || nodes > (std::uint64_t(1) << 32)) throw std::invalid_argument("sdr graph: node count out of range");
  Sha256 h;
  h.update(as_bytes("Filecoin_DRSample"));
  h.update(porep_id);
  const Bytes32 d = h.finish();
  std::memcpy(drg_seed_.data(), d.data(), drg_seed_.size());
}

void Graph::drg_parents(std::uint64_t node, std::uint32_t out[kDrgDegree]) const {
  if (node < 2) {  // nodes 0 and 1 have only node 0 before them
    for (std::size_t i = 0; i < kDrgDegree; ++i) out[i] = 0;
    return;
  }
  // Bucket sampling (BucketGraph, m' = 5 random parents): the RNG is seeded per node, so each node's
  // parents are independent of every other node's.
  std::array<std::uint8_t, 32> seed;
  std::memcpy(seed.data(), drg_seed_.data(), 28);
  for (int i = 0; i < 4; ++i) seed[std::size_t(28 + i)] = std::uint8_t(node >> (8 * i));
  ChaCha8Rng rng(seed);
  constexpr std::uint64_t m_prime = kDrgDegree - 1;
  const std::uint64_t meta = node * m_prime;
  // ceil(log2(meta)) computed exactly (upstream uses f64, which is exact for meta < 2^53).
  const std::uint64_t n_buckets = std::uint64_t(std::bit_width(meta - 1));
  // V1_1+ put the immediate predecessor first; V1_0 puts it last.
  const std::size_t first = legacy_ ? 0 : 1;
  for (std::size_t k = 0; k < m_prime; ++k) {
    const std::uint64_t bucket = rng.next_u64() % n_buckets + 1;
    const std::uint64_t hi = std::min<std::uint64_t>(meta, std::uint64_t(1) << bucket);
    const std::uint64_t lo = std::max<std::uint64_t>(2, hi >> 1);
    const std::uint64_t dist = lo + rng.next_u64() % (hi - lo + 1);
    const std::uint64_t p = (meta - dist) / m_prime;
    out[first + k] = std::uint32_t(p == node ? node - 1 : p);
  }
  out[legacy_ ? m_prime : 0] = std::uint32_t(node - 1);
}

void Graph::exp_parents(std::uint64_t node, std::uint32_t out[kExpDegree]) const {
  for (std::size_t i = 0; i < kExpDegree; ++i) {
    const std::uint64_t t = feistel_.permute(node * kExpDegree + i);
    // V1_0_0 truncates the permuted index to u32 before dividing (a known bias for >= 32 GiB);
    // later versions divide the full value, which always fits u32 after the division.
    out[i] = legacy_ ? std::uint32_t(t) / std::uint32_t(kExpDegree) : std::uint32_t(t / kExpDegree);
  }
}

void Graph::parents(std::uint64_t node, std::uint32_t out[kDegree]) const {
  drg_parents(node, out);
  exp_parents(node, out + kDrgDegree);
}

std::vector<std::uint32_t> build_parent_cache(const Graph& g) {
  std::vector<std::uint32_t> cache(g.nodes() * kDegree);
  parallel_for(
      std::size_t(g.nodes()), [&](std::size_t n) { g.parents(n, cache.data() + kDegree * n); }, 4096);
  return cache;
}

Bytes32 parent_cache_digest(const Graph& g) {
  // Streamed in chunks so that large graphs need no full cache in memory.
  constexpr std::uint64_t kChunk = 1 << 16;
  std::vector<std::uint32_t> rows(kChunk * kDegree);
  std::vector<std::uint8_t> bytes(rows.size() * 4);
  Sha256 h;
  for (std::uint64_t base = 0; base < g.nodes(); base += kChunk) {
    const std::uint64_t count = std::min(kChunk, g.nodes() - base);
    parallel_for(
        std::size_t(count), [&](std::size_t i) { g.parents(base + i, rows.data() + kDegree * i); }, 1024);
    for (std::size_t i = 0; i < count * kDegree; ++i)
      for (int b = 0; b < 4; ++b) bytes[4 * i + std::size_t(b)] = std::uint8_t(rows[i] >> (8 * b));
    h.update({bytes.data(), std::size_t(count * kDegree * 4)});
  }
  return h.finish();
}

std::string parent_cache_name(const Graph& g) {
  const std::string identifier =
      "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
      std::to_string(g.nodes()) + "; degree: 6; hasher: poseidon_hasher} }";
  Sha256 h;
  h.update(as_bytes("poseidon_hasher"));
  h.update(as_bytes(identifier));
  for (std::uint64_t k : g.feistel_keys()) {
    std::uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(k >> (8 * i));
    h.update(b);
  }
  std::uint8_t n[4];
  for (int i = 0; i < 4; ++i) n[i] = std::uint8_t(g.nodes() >> (8 * i));
  h.update(n);
  return "v28-sdr-parent-" + bytes32_hex(h.finish());
}

}  // namespace cuzk::filecoin::porep
