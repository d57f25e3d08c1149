// The engine's operator logs go through named spdlog loggers: "engine" (jobs, drain) and "srs"
// (proving keys, shape caches). The daemon creates them up front on its one stderr sink, with their
// levels (apps/common/logging.hpp); where nobody did (unit tests, other executables), the first use
// creates the logger on the default logger's sinks, at the registry's level. Private to src/engine/.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include <spdlog/spdlog.h>

namespace cuzk::engine::log {

inline std::shared_ptr<spdlog::logger> named(const std::string& name) {
  if (auto l = spdlog::get(name)) return l;
  static std::mutex mu;  // two first uses at once create it once
  std::lock_guard<std::mutex> g(mu);
  if (auto l = spdlog::get(name)) return l;
  auto def = spdlog::default_logger();
  auto l = def ? std::make_shared<spdlog::logger>(name, def->sinks().begin(), def->sinks().end())
               : std::make_shared<spdlog::logger>(name);
  spdlog::initialize_logger(l);
  return l;
}

inline std::shared_ptr<spdlog::logger> engine() { return named("engine"); }
inline std::shared_ptr<spdlog::logger> srs() { return named("srs"); }

}  // namespace cuzk::engine::log
