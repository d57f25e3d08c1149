// The daemon's start-up decisions as one pure function (issue 40 item 3): what the config asks and
// what the machine offers (the device probe) → the backend that serves, on which devices, with
// which urgent lane, the kinds it registers and the lines its log shows. No I/O, no globals:
// tests/apps/daemon_plan_test.cpp gives it configs and probes and reads the decisions, so the device
// fallback ("a listed GPU that cannot be used is left out; none left → the CPU backend, never
// another daemon's GPU") is specified by tests, not by reading run_daemon.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/common/device_backends.hpp"
#include "apps/cuzk-daemon/config.hpp"
#include "base/result.hpp"
#include "engine/engine.hpp"

namespace cuzk::apps {

// What the daemon reads from its surroundings before planning (the probe apart).
struct PlanEnvironment {
  unsigned hardware_threads = 1;  // std::thread::hardware_concurrency()
  std::string param_cache;        // FIL_PROOFS_PARAMETER_CACHE, "" = unset
  bool shape_cache = true;        // CUZK_SHAPE_CACHE: keep recorded shapes in "<params>.shape"
};

struct DaemonPlan {
  // Everything the engine needs but the executor (the backends, made from the plan by the daemon),
  // the device callbacks and the timeline sink.
  engine::EngineOptions engine;
  // Decisions the operator must see at warn level: a listed device left out and why, the CPU
  // fallback and why. Empty when the config got what it asked for.
  std::vector<std::string> warnings;
  bool cpu_fallback = false;   // a GPU backend was asked (cuda, auto) and none can serve
  std::string urgent_line;     // "urgent from high (1 reserved synthesis workers, …), lane gpu up to 2^22"
  std::string abandoned_line;  // "cancelled when abandoned: window-post, winning-post"
  // `--check-config`'s two lines.
  std::string summary() const;
};

// config + probe + environment → the plan, or the one-line error the daemon exits with.
Result<DaemonPlan> plan_daemon(DaemonConfig cfg, const BackendProbe& probe, const PlanEnvironment& env);

}  // namespace cuzk::apps
