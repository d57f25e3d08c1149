#include "apps/common/gpu_tuning.hpp"

#include <charconv>
#include <string_view>
#include <system_error>

namespace cuzk::apps {
namespace {

constexpr long kNoDefault = -1;  // Knob::dflt of the overrides of curve- or size-dependent defaults

// One variable: its name, how it is checked, and where its value goes.
struct Knob {
  enum Kind { kInt, kBool, kPow2, kPlan };
  const char* name;
  Kind kind;
  long lo = 0, hi = 1;
  // The value a default GpuEnvTuning has (non-default values are listed); kNoDefault: the default
  // depends on the curve or the size, so any value set is an override.
  long dflt = 0;
  void (*set)(GpuEnvTuning&, long) = nullptr;
};

using T = GpuEnvTuning;

#define CUZK_SET(expr) [](T& t, long v) { expr; }
const Knob kKnobs[] = {
    {"CUZK_MSM_SEG", Knob::kInt, 1, 65536, 256, CUZK_SET(t.tuning.msm.seg = int(v))},
    {"CUZK_MSM_OCC", Knob::kInt, 1, 4, kNoDefault, CUZK_SET(t.tuning.msm.occ = int(v))},
    {"CUZK_MSM_AFFINE_LOG", Knob::kInt, 0, 31, kNoDefault, CUZK_SET(t.tuning.msm.affine_log = int(v))},
    {"CUZK_MSM_AFF_GROUP_LOG", Knob::kInt, 1, 30, kNoDefault, CUZK_SET(t.tuning.msm.aff_group_log = int(v))},
    {"CUZK_MSM_AFF_PER", Knob::kInt, 1, 4096, 16, CUZK_SET(t.tuning.msm.aff_per = int(v))},
    {"CUZK_MSM_AFF_PROFILE", Knob::kBool, 0, 1, 0, CUZK_SET(t.tuning.msm.aff_profile = v != 0)},
    {"CUZK_MSM_G2_CMAX", Knob::kInt, 2, 24, kNoDefault, CUZK_SET(t.tuning.msm.g2_cmax = int(v))},
    {"CUZK_MSM_MIXED", Knob::kBool, 0, 1, 1, CUZK_SET(t.tuning.msm.mixed = v != 0)},
    {"CUZK_MSM_RED_CHUNK", Knob::kInt, 1, 65536, kNoDefault, CUZK_SET(t.tuning.msm.red_chunk = int(v))},
    {"CUZK_SEL_PER", Knob::kInt, 0, 1L << 24, 0, CUZK_SET(t.tuning.msm.sel_per = int(v))},
    {"CUZK_SEL_OCC", Knob::kInt, 1, 4, 1, CUZK_SET(t.tuning.msm.sel_occ = int(v))},
    {"CUZK_NTT_INV_TABLE", Knob::kBool, 0, 1, 1, CUZK_SET(t.tuning.ntt.inverse_table = v != 0)},
    {"CUZK_NTT_SHAPE", Knob::kInt, 0, gpu::NttTuning::kShapeCount - 1, 0, CUZK_SET(t.tuning.ntt.shape = int(v))},
    {"CUZK_NTT_ELEMS", Knob::kPow2, 256, 2048, 1024, CUZK_SET(t.tuning.ntt.elems_per_block = int(v))},
    {"CUZK_NTT_PLAN", Knob::kPlan, 1, gpu::NttTuning::kMaxPassBits, kNoDefault, nullptr},
    {"CUZK_GPU_S0_PRIORITY", Knob::kBool, 0, 1, 1, CUZK_SET(t.tuning.prover.s0_priority = v != 0)},
    {"CUZK_GPU_LONG_ROWS", Knob::kBool, 0, 1, 1, CUZK_SET(t.tuning.prover.long_rows_in_pieces = v != 0)},
    {"CUZK_GPU_WITNESS_AFTER_NTT", Knob::kBool, 0, 1, 1, CUZK_SET(t.tuning.prover.witness_after_ntt = v != 0)},
    {"CUZK_GPU_H_THREAD", Knob::kBool, 0, 1, 1, CUZK_SET(t.tuning.prover.h_thread = v != 0)},
    {"CUZK_GPU_PROFILE", Knob::kBool, 0, 1, 0, CUZK_SET(t.profile = v != 0)},
    {"CUZK_GPU_H_COPIES", Knob::kInt, 0, 4, 0, CUZK_SET(t.h_copies = std::uint32_t(v))},
};
#undef CUZK_SET

std::optional<long> default_of(const Knob& k) {
  if (k.dflt == kNoDefault) return std::nullopt;
  return k.dflt;
}

std::string quoted(const char* name, std::string_view value) {
  return std::string(name) + "=\"" + std::string(value) + "\"";
}

// A whole decimal integer, or nullopt.
std::optional<long> to_long(std::string_view v) {
  long x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return x;
}

// CUZK_NTT_PLAN: "r0,r1,..." with each r in [lo, hi].
Result<std::vector<int>> parse_plan(const Knob& k, std::string_view v) {
  std::vector<int> plan;
  for (std::size_t p0 = 0; p0 <= v.size();) {
    const std::size_t p1 = std::min(v.find(',', p0), v.size());
    const auto r = to_long(v.substr(p0, p1 - p0));
    if (!r || *r < k.lo || *r > k.hi)
      return Error{quoted(k.name, v) + ": expected pass sizes r0,r1,... each from " + std::to_string(k.lo) + " to " +
                   std::to_string(k.hi)};
    plan.push_back(int(*r));
    p0 = p1 + 1;
  }
  return plan;
}

std::string accepts(const Knob& k) {
  switch (k.kind) {
    case Knob::kBool: return "0 or 1";
    case Knob::kPow2: return "a power of two from " + std::to_string(k.lo) + " to " + std::to_string(k.hi);
    case Knob::kPlan: return "pass sizes r0,r1,... each from " + std::to_string(k.lo) + " to " + std::to_string(k.hi);
    case Knob::kInt: break;
  }
  return "an integer from " + std::to_string(k.lo) + " to " + std::to_string(k.hi);
}

}  // namespace

Result<std::optional<long>> parse_env_int(const char* name, const char* value, long lo, long hi) {
  if (!value || !*value) return std::optional<long>();
  const std::string_view v(value);
  const auto x = to_long(v);
  if (!x || *x < lo || *x > hi)
    return Error{quoted(name, v) + ": expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi)};
  return x;
}

Result<GpuEnvTuning> gpu_tuning_from_env(const GetenvFn& getenv_fn) {
  GpuEnvTuning out;
  for (const Knob& k : kKnobs) {
    const char* raw = getenv_fn(k.name);
    if (!raw || !*raw) continue;
    const std::string_view v(raw);
    if (k.kind == Knob::kPlan) {
      auto plan = parse_plan(k, v);
      if (!plan) return Error{plan.error()};
      out.tuning.ntt.plan = std::move(*plan);
      out.non_default.push_back(std::string(k.name) + "=" + std::string(v));
      continue;
    }
    const auto x = to_long(v);
    const bool pow2 = x && *x > 0 && (*x & (*x - 1)) == 0;
    if (!x || *x < k.lo || *x > k.hi || (k.kind == Knob::kPow2 && !pow2))
      return Error{quoted(k.name, v) + ": expected " + accepts(k)};
    k.set(out, *x);
    if (default_of(k) != *x) out.non_default.push_back(std::string(k.name) + "=" + std::to_string(*x));
  }
  return out;
}

std::vector<std::string> gpu_tuning_variables() {
  std::vector<std::string> v;
  for (const Knob& k : kKnobs) v.push_back(std::string(k.name) + ": " + accepts(k));
  return v;
}

}  // namespace cuzk::apps
