// Shared helpers for the engine tests: fixture paths, file reading, bounded polling.
#pragma once

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

namespace cuzk::test {

inline std::string fixture(const std::string& circuit, const std::string& file) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/snarkjs/" + circuit + "/" + file;
}
inline std::string zkey_of(const std::string& circuit) { return fixture(circuit, circuit + ".zkey"); }

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Polls `cond` every millisecond until it holds or `timeout` passes; returns the last value.
inline bool eventually(const std::function<bool()>& cond,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return cond();
}

}  // namespace cuzk::test
