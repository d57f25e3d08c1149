#include "apps/cuzk-daemon/plan.hpp"

#include <algorithm>

#include "engine/kinds/builtin_kinds.hpp"
#include "engine/kinds/filecoin_keys.hpp"
#include "engine/units.hpp"

namespace cuzk::apps {
namespace {

// A GPU backend was asked for and this probe can serve none of it: the listed devices, or every
// device when none is listed. Present devices that are not listed are never taken instead (another
// daemon's GPU).
struct DeviceChoice {
  std::vector<std::uint32_t> devices;  // what stays of gpus.devices
  std::vector<std::string> warnings;
  bool cpu_fallback = false;
};

DeviceChoice choose_devices(const DaemonConfig& cfg, const BackendProbe& probe) {
  DeviceChoice c;
  c.devices = cfg.devices;
  if (cfg.backend == "cpu") return c;
  const std::vector<std::uint32_t> usable = probe.usable();
  if (!cfg.devices.empty()) {
    c.devices.clear();
    for (std::uint32_t d : cfg.devices) {
      const bool present = d < probe.devices.size();
      // A device not present is kept: engine_options_from names it in its error.
      if (!present || std::find(usable.begin(), usable.end(), d) != usable.end()) c.devices.push_back(d);
      else c.warnings.push_back("gpus.devices: GPU " + std::to_string(d) + " is left out: " + probe.devices[d].problem);
    }
  }
  const bool none_listed = !cfg.devices.empty() && c.devices.empty() && !usable.empty();
  if (probe.cuda_devices > 0 && (usable.empty() || none_listed)) {
    c.warnings.push_back(std::string("no usable CUDA device") + (none_listed ? " among gpus.devices" : "") +
                         ": proving on the CPU backend (backend.kind = \"" + cfg.backend + "\")");
    c.cpu_fallback = true;
    c.devices.clear();
  }
  return c;
}

std::string urgent_line(const engine::EngineOptions& o) {
  if (!o.urgent_priority) return "urgent work off";
  return std::string("urgent from ") + engine::priority_name(*o.urgent_priority) + " (" +
         std::to_string(o.urgent_synthesis_workers) + " reserved synthesis workers, headroom " +
         (o.urgent_memory_reserve ? engine::format_bytes(*o.urgent_memory_reserve) : std::string("auto")) + "), lane " +
         (o.lane_devices.empty() ? std::string("off")
                                 : engine::lane_name(o.lane) + (" up to 2^" + std::to_string(o.lane_max_domain_log2)));
}

std::string abandoned_line(const engine::EngineOptions& o) {
  std::string k;
  for (std::uint32_t w : o.cancel_abandoned ? *o.cancel_abandoned : o.kinds.deadline_bound())
    k += (k.empty() ? "" : ", ") + o.kinds.name(w);
  return "cancelled when abandoned: " + (k.empty() ? std::string("none") : k);
}

}  // namespace

std::string DaemonPlan::summary() const {
  return "config ok: budget " + engine::format_bytes(engine.memory_budget_bytes) + ", " +
         std::to_string(engine.synthesis_workers) + " synthesis workers, " + std::to_string(engine.devices.size()) +
         " device(s) x " + std::to_string(engine.workers_per_device) + " backend workers, backend " +
         engine::backend_name(engine.backend) + "\ndeadlines: " + urgent_line + "; " + abandoned_line;
}

Result<DaemonPlan> plan_daemon(DaemonConfig cfg, const BackendProbe& probe, const PlanEnvironment& env) {
  DaemonPlan p;
  DeviceChoice devices = choose_devices(cfg, probe);
  p.warnings = std::move(devices.warnings);
  p.cpu_fallback = devices.cpu_fallback;
  cfg.devices = devices.devices;
  if (p.cpu_fallback) cfg.backend = "cpu";
  auto opts = engine_options_from(cfg, env.hardware_threads, {probe.cuda_built, probe.cuda_devices, probe.usable()});
  if (!opts) return opts.failure();
  p.engine = std::move(*opts);
  if (p.engine.param_cache.empty()) p.engine.param_cache = engine::kinds::default_param_cache(env.param_cache);
  engine::kinds::register_builtin_kinds(p.engine.kinds, {env.shape_cache});
  if (cfg.cancel_abandoned) {
    auto kinds = p.engine.kinds.wires(*cfg.cancel_abandoned);
    if (!kinds) return Error{"scheduler.cancel_abandoned: " + kinds.error()};
    p.engine.cancel_abandoned = *kinds;
  }
  p.urgent_line = urgent_line(p.engine);
  p.abandoned_line = abandoned_line(p.engine);
  return p;
}

}  // namespace cuzk::apps
