// What the status outputs say about each accelerator: one DeviceInfo per CUDA device the daemon
// serves, read fresh at every GetStatus, GET /status and GET /metrics through a DeviceProvider.
// The server and the renderers do not know the devices (only the daemon's main, which probed CUDA,
// does), so main hands them this provider; an unset provider or an empty list means no GPU (the CPU
// backend), and the outputs then name the engine's device slots "cpu".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cuzk::server {

struct DeviceInfo {
  std::uint32_t ordinal = 0;  // the CUDA ordinal, as in gpus.devices and the engine's worker devices
  std::string name;           // "NVIDIA H200"
  std::uint64_t total_bytes = 0, free_bytes = 0;
  int cc_major = 0, cc_minor = 0;
};

using DeviceProvider = std::function<std::vector<DeviceInfo>()>;

}  // namespace cuzk::server
