// Small helpers shared by the cuzk subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "base/parallel.hpp"
#include "base/result.hpp"
#include "formats/binfile.hpp"

namespace cuzk::cli {

class Stopwatch {
 public:
  double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// --threads N: the worker count of every parallel loop (over $CUZK_THREADS, read by main()).
inline void add_threads_option(CLI::App* sub) {
  sub->add_option_function<unsigned>(
         "--threads", [](unsigned n) { cuzk::set_default_threads(n); },
         "worker threads (default: all cores, or $CUZK_THREADS)")
      ->check(CLI::Range(1u, 4096u));
}

// Replaces the file all at once (formats::write_file_bytes: a temporary name, fsync, rename): a
// killed tool never leaves half a proof or half a JSON file under the name.
inline Status write_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  return formats::write_file_bytes(path, bytes);
}

// A regular file, whole (formats::read_file_bytes: devices and FIFOs are refused, not read forever).
inline Result<std::vector<std::uint8_t>> read_file(const std::string& path) { return formats::read_file_bytes(path); }

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace cuzk::cli
