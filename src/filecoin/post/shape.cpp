#include "filecoin/post/shape.hpp"

#include <atomic>
#include <bit>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "base/parallel.hpp"
#include "circuit/constraint_system.hpp"
#include "circuit/slice_recorder.hpp"
#include "filecoin/post/fallback_circuit.hpp"

namespace cuzk::filecoin::post {
namespace {

constexpr circuit::RecordOptions kShapeOnly{.values = false, .densities = false};

// nullopt when some sector block did not have block 0's shape (then the caller records sequentially;
// the gadgets never branch on values, so this does not happen).
std::optional<groth16::R1csShape> record_parallel(const PostConfig& config, std::size_t threads) {
  const auto params = FallbackPostParams::from_config(config);
  const PostSectorValues values = dummy_sector_values(params);
  circuit::ShapeRecorder rec(kShapeOnly);
  const std::size_t n = params.sector_count;
  const circuit::MatrixWindow count_only[3] = {};
  circuit::SliceRecorder counter(count_only, rec.num_inputs(), rec.num_aux());
  synthesize_post_sector(counter, params, values, 0);
  const circuit::SliceSize slice = counter.size();
  auto slices = rec.append_slices(slice, n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> mismatch{false};
  const std::size_t workers = std::max<std::size_t>(1, std::min(threads, n));
  parallel_chunks(workers, workers, [&](std::size_t, std::size_t, std::size_t) {
    for (std::size_t k; (k = next.fetch_add(1)) < n;) {
      synthesize_post_sector(slices[k], params, values, k);
      if (!(slices[k].size() == slice)) mismatch = true;
    }
  });
  if (mismatch) return std::nullopt;
  rec.merge_slices(slices);
  return std::move(rec).finish().shape;
}

}  // namespace

PostSectorValues dummy_sector_values(const FallbackPostParams& p, std::uint64_t seed) {
  PostSectorValues v;
  v.comm_r = circuit::Fr::from_u64(13 + seed);
  v.comm_c = circuit::Fr::from_u64(15 + seed);
  v.comm_r_last = circuit::Fr::from_u64(14 + seed);
  const auto arities = p.tree.level_arities();
  for (std::size_t n = 0; n < p.challenge_count; ++n) {
    circuit::MerkleProof m;
    std::uint64_t index = (seed * 131 + n * 7 + 1) % p.tree.num_leaves();
    m.leaf = circuit::Fr::from_u64(index + 1);
    m.root = v.comm_r_last;
    for (std::size_t arity : arities) {
      m.positions.push_back(std::size_t(index % arity));
      index /= arity;
      std::vector<circuit::Fr> sib;
      for (std::size_t k = 0; k + 1 < arity; ++k) sib.push_back(circuit::Fr::from_u64(100 + k));
      m.siblings.push_back(std::move(sib));
    }
    v.paths.push_back(std::move(m));
  }
  return v;
}

groth16::R1csShape record_post_shape_sequential(const PostConfig& config) {
  const auto params = FallbackPostParams::from_config(config);
  const PostSectorValues values = dummy_sector_values(params);
  auto rec = circuit::record_shape(
      [&](auto& cs) {
        for (std::size_t i = 0; i < params.sector_count; ++i) synthesize_post_sector(cs, params, values, i);
      },
      kShapeOnly);
  return std::move(rec.shape);
}

groth16::R1csShape record_post_shape(const PostConfig& config) {
  if (auto s = record_parallel(config, default_threads())) return std::move(*s);
  return record_post_shape_sequential(config);
}

std::uint32_t PostCircuitCounts::domain_log2() const { return std::uint32_t(std::bit_width(groth16_rows() - 1)); }

PostCircuitCounts count_post_circuit(const PostConfig& config) {
  static std::mutex mu;
  static std::map<std::uint32_t, PostCircuitCounts> memo;
  {
    std::lock_guard<std::mutex> g(mu);
    if (auto it = memo.find(config.code); it != memo.end()) return it->second;
  }
  const auto params = FallbackPostParams::from_config(config);
  const PostSectorValues values = dummy_sector_values(params);
  circuit::CountingCS cs;
  synthesize_post_sector(cs, params, values, 0);
  const std::uint64_t s = params.sector_count;
  PostCircuitCounts c;
  c.rows = cs.num_constraints() * s;
  c.inputs = 1 + (cs.num_inputs() - 1) * s;
  c.aux = cs.num_aux() * s;
  c.binary_aux = cs.num_binary_aux() * s;
  std::lock_guard<std::mutex> g(mu);
  memo.emplace(config.code, c);
  return c;
}

ShapeLoad load_or_record_post_shape(const PostConfig& config, const std::string& cache_path, ShapeCachePolicy policy) {
  auto counts = [&] {
    const PostCircuitCounts c = count_post_circuit(config);
    return ShapeCounts{c.inputs, c.aux, c.groth16_rows()};
  };
  return load_or_record_shape(config.name, cache_path, policy, counts, [&] { return record_post_shape(config); });
}

}  // namespace cuzk::filecoin::post
