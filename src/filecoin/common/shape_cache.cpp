#include "filecoin/common/shape_cache.hpp"

#include <chrono>
#include <filesystem>

#include "circuit/shape_io.hpp"

namespace cuzk::filecoin {
namespace {

using Clock = std::chrono::steady_clock;
double secs_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

const char* to_string(ShapeLoad::Source s) {
  switch (s) {
    case ShapeLoad::Source::kCache: return "loaded from cache";
    case ShapeLoad::Source::kRecordedSaved: return "recorded, cache written";
    case ShapeLoad::Source::kRecordedUnsaved: return "recorded, cache not written";
    case ShapeLoad::Source::kRecordedNoCache: return "recorded, cache disabled";
  }
  return "?";
}

std::string shape_cache_path(const std::string& params_path) { return params_path + ".shape"; }

ShapeLoad load_or_record_shape(const std::string& name, const std::string& cache_path, ShapeCachePolicy policy,
                               const std::function<ShapeCounts()>& expected_counts,
                               const std::function<groth16::R1csShape()>& record) {
  ShapeLoad out;
  const bool enabled = !cache_path.empty() && policy == ShapeCachePolicy::kEnabled;
  std::error_code ec;
  if (enabled && std::filesystem::exists(cache_path, ec)) {
    const auto t0 = Clock::now();
    auto loaded = circuit::load_shape(cache_path);
    if (loaded) {
      const ShapeCounts expected = expected_counts();
      if (!loaded->has_c) out.note = cache_path + ": has no C matrix";
      else if (loaded->num_inputs != expected.inputs) out.note = cache_path + ": inputs differ from " + name;
      else if (loaded->num_aux != expected.aux) out.note = cache_path + ": aux count differs from " + name;
      else if (loaded->num_constraints() != expected.rows) out.note = cache_path + ": row count differs from " + name;
      else {
        out.shape = std::move(*loaded);
        out.source = ShapeLoad::Source::kCache;
        out.load_s = secs_since(t0);
        return out;
      }
    } else {
      out.note = loaded.error();
    }
    out.load_s = secs_since(t0);
  }
  auto t0 = Clock::now();
  out.shape = record();
  out.record_s = secs_since(t0);
  if (!enabled) {
    out.source = ShapeLoad::Source::kRecordedNoCache;
    return out;
  }
  t0 = Clock::now();
  const Status st = circuit::save_shape(out.shape, cache_path);
  out.save_s = secs_since(t0);
  if (st) {
    out.source = ShapeLoad::Source::kRecordedSaved;
  } else {
    out.source = ShapeLoad::Source::kRecordedUnsaved;
    out.note = out.note.empty() ? st.error() : out.note + "; " + st.error();
  }
  return out;
}

}  // namespace cuzk::filecoin
