#include "filecoin/porep/shape.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "base/parallel.hpp"
#include "circuit/constraint_system.hpp"
#include "filecoin/porep/stacked_circuit.hpp"

namespace cuzk::filecoin::porep {
namespace {

constexpr circuit::RecordOptions kShapeOnly{.values = false, .densities = false};

// nullopt when some challenge did not have challenge 0's shape (then the caller records
// sequentially; the gadgets never branch on values, so this does not happen).
std::optional<groth16::R1csShape> record_parallel(const porep::PorepConfig& config, std::size_t threads) {
  const auto params = porep::StackedCircuitParams::from_config(config);
  const auto values = porep::dummy_partition_values(params);
  circuit::ShapeRecorder rec(kShapeOnly);
  const auto shared = porep::synthesize_stacked_prefix(rec, params, values);
  const std::size_t n = values.challenges.size();
  if (n > 0) {
    // The size of one challenge from a pass that writes nothing (windows of capacity 0), so every
    // challenge, the first included, is recorded straight into arrays sized once — no growth, no
    // copies, no slack.
    const circuit::MatrixWindow count_only[3] = {};
    circuit::SliceRecorder counter(count_only, rec.num_inputs(), rec.num_aux());
    porep::synthesize_stacked_challenge(counter, params, values, shared, 0);
    const circuit::SliceSize slice = counter.size();
    auto slices = rec.append_slices(slice, n);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> mismatch{false};
    const std::size_t workers = std::min(threads, n);
    parallel_chunks(workers, workers, [&](std::size_t, std::size_t, std::size_t) {
      for (std::size_t k; (k = next.fetch_add(1)) < n;) {
        porep::synthesize_stacked_challenge(slices[k], params, values, shared, k);
        if (!(slices[k].size() == slice)) mismatch = true;
      }
    });
    if (mismatch) return std::nullopt;
    rec.merge_slices(slices);
  }
  return std::move(rec).finish().shape;
}

}  // namespace

groth16::R1csShape record_porep_shape_sequential(const porep::PorepConfig& config) {
  const auto params = porep::StackedCircuitParams::from_config(config);
  const auto values = porep::dummy_partition_values(params);
  auto rec =
      circuit::record_shape([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, values); }, kShapeOnly);
  return std::move(rec.shape);
}

groth16::R1csShape record_porep_shape(const porep::PorepConfig& config) {
  if (auto s = record_parallel(config, default_threads())) return std::move(*s);
  return record_porep_shape_sequential(config);
}

filecoin::ShapeLoad load_or_record_porep_shape(const porep::PorepConfig& config, const std::string& cache_path,
                                               ShapeCachePolicy policy) {
  auto counts = [&] {
    const auto params = porep::StackedCircuitParams::from_config(config);
    const auto values = porep::dummy_partition_values(params);
    const auto c = circuit::count_constraints([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, values); });
    return ShapeCounts{c.num_inputs(), c.num_aux(), c.num_groth16_rows()};
  };
  return filecoin::load_or_record_shape(config.name, cache_path, policy, counts,
                                        [&] { return record_porep_shape(config); });
}

PorepWitnessCounts count_porep_witness(const porep::PorepConfig& config) {
  static std::mutex mu;
  static std::map<std::string, PorepWitnessCounts> memo;
  {
    std::lock_guard<std::mutex> g(mu);
    if (auto it = memo.find(config.name); it != memo.end()) return it->second;
  }
  const auto params = porep::StackedCircuitParams::from_config(config);
  const auto values = porep::dummy_partition_values(params);
  circuit::CountingCS cs;
  porep::synthesize_stacked_circuit(cs, params, values);
  const PorepWitnessCounts c{cs.num_inputs(), cs.num_aux(), cs.num_binary_aux()};
  std::lock_guard<std::mutex> g(mu);
  memo.emplace(config.name, c);
  return c;
}

}  // namespace cuzk::filecoin::porep
