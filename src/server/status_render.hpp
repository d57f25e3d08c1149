// The engine's status snapshot rendered for people and scrapers: GET /status (JSON, built with
// nlohmann::json so every string is escaped by the library) and GET /metrics / GetMetrics
// (Prometheus text exposition 0.0.4). Both take one Engine::status() snapshot and the kind registry,
// which names the kinds and gives every served kind its zero series from the start.
#pragma once

#include <string>

#include "engine/kind_registry.hpp"
#include "engine/status.hpp"

namespace cuzk::server {

std::string status_json(const engine::StatusSnapshot& s, const engine::KindRegistry& kinds);
std::string prometheus_text(const engine::StatusSnapshot& s, const engine::KindRegistry& kinds);

}  // namespace cuzk::server
