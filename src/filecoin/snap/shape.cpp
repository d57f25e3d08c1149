#include "filecoin/snap/shape.hpp"

#include <atomic>
#include <bit>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "base/parallel.hpp"
#include "circuit/constraint_system.hpp"
#include "circuit/slice_recorder.hpp"
#include "filecoin/snap/update_circuit.hpp"
#include "filecoin/snap/update_poseidon_circuit.hpp"

namespace cuzk::filecoin::snap {
namespace {

constexpr circuit::RecordOptions kShapeOnly{.values = false, .densities = false};

// The partitioned circuit: the prefix sequentially, then the challenge blocks (one shape: the gadgets
// never branch on values) each by its own thread into its window; nullopt when a block did not have
// block 0's size (then the caller records sequentially).
std::optional<groth16::R1csShape> record_parallel(const SnapGeometry& g, std::size_t threads) {
  const PartitionValues values = dummy_partition_values(g);
  circuit::ShapeRecorder rec(kShapeOnly);
  const UpdatePrefix prefix = synthesize_update_prefix(rec, g, values);
  const std::size_t n = g.challenge_count;
  const circuit::MatrixWindow count_only[3] = {};
  circuit::SliceRecorder counter(count_only, rec.num_inputs(), rec.num_aux());
  synthesize_update_challenge(counter, g, values, prefix, 0);
  const circuit::SliceSize slice = counter.size();
  auto slices = rec.append_slices(slice, n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> mismatch{false};
  const std::size_t workers = std::max<std::size_t>(1, std::min(threads, n));
  parallel_chunks(workers, workers, [&](std::size_t, std::size_t, std::size_t) {
    for (std::size_t k; (k = next.fetch_add(1)) < n;) {
      synthesize_update_challenge(slices[k], g, values, prefix, k);
      if (!(slices[k].size() == slice)) mismatch = true;
    }
  });
  if (mismatch) return std::nullopt;
  rec.merge_slices(slices);
  return std::move(rec).finish().shape;
}

}  // namespace

groth16::R1csShape record_update_shape_sequential(const SnapGeometry& g) {
  const PartitionValues values = dummy_partition_values(g);
  auto rec = circuit::record_shape(
      [&](auto& cs) {
        if (g.variant == UpdateVariant::kPoseidon) synthesize_update_poseidon_circuit(cs, g, values);
        else synthesize_update_circuit(cs, g, values);
      },
      kShapeOnly);
  return std::move(rec.shape);
}

groth16::R1csShape record_update_shape(const SnapGeometry& g) {
  if (g.variant == UpdateVariant::kPartitioned)
    if (auto s = record_parallel(g, default_threads())) return std::move(*s);
  return record_update_shape_sequential(g);
}

std::uint32_t UpdateCircuitCounts::domain_log2() const { return std::uint32_t(std::bit_width(groth16_rows() - 1)); }

UpdateCircuitCounts count_update_circuit(const SnapGeometry& g) {
  static std::mutex mu;
  static std::map<std::tuple<std::uint64_t, int>, UpdateCircuitCounts> memo;
  const auto key = std::make_tuple(g.nodes, int(g.variant));
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  const PartitionValues values = dummy_partition_values(g);
  UpdateCircuitCounts c;
  if (g.variant == UpdateVariant::kPoseidon) {
    const auto cs = circuit::count_constraints([&](auto& s) { synthesize_update_poseidon_circuit(s, g, values); });
    c = {cs.num_constraints(), cs.num_inputs(), cs.num_aux(), cs.num_binary_aux()};
  } else {
    // The prefix once, one challenge block times C (every block has one shape).
    circuit::CountingCS cs;
    const UpdatePrefix prefix = synthesize_update_prefix(cs, g, values);
    const std::uint64_t rows0 = cs.num_constraints(), aux0 = cs.num_aux(), bin0 = cs.num_binary_aux();
    synthesize_update_challenge(cs, g, values, prefix, 0);
    const std::uint64_t n = g.challenge_count;
    c.rows = rows0 + (cs.num_constraints() - rows0) * n;
    c.inputs = cs.num_inputs();
    c.aux = aux0 + (cs.num_aux() - aux0) * n;
    c.binary_aux = bin0 + (cs.num_binary_aux() - bin0) * n;
  }
  std::lock_guard<std::mutex> lock(mu);
  memo.emplace(key, c);
  return c;
}

ShapeLoad load_or_record_update_shape(const SnapGeometry& g, const std::string& name, const std::string& cache_path,
                                      ShapeCachePolicy policy) {
  auto counts = [&] {
    const UpdateCircuitCounts c = count_update_circuit(g);
    return ShapeCounts{c.inputs, c.aux, c.groth16_rows()};
  };
  return load_or_record_shape(name, cache_path, policy, counts, [&] { return record_update_shape(g); });
}

}  // namespace cuzk::filecoin::snap
