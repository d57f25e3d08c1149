// A minimal fork-join helper for the CPU paths of math/ and groth16/. These layers must build with
// only a compiler (the GPU host has no oneTBB), so they use std::thread directly: split [0, n) into
// contiguous chunks, one per worker, and join. Upper layers may use oneTBB.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace cuzk {

namespace detail {
inline std::atomic<std::size_t>& thread_count_setting() {
  static std::atomic<std::size_t> n{0};
  return n;
}
}  // namespace detail

// The worker count of every parallel loop: what the executable set at start-up (from --threads,
// CUZK_THREADS or its config; apps/common/cpu_tuning.hpp), else the hardware concurrency.
inline void set_default_threads(std::size_t n) { detail::thread_count_setting().store(n); }
inline std::size_t default_threads() {
  static const std::size_t hardware = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  const std::size_t n = detail::thread_count_setting().load(std::memory_order_relaxed);
  return n ? n : hardware;
}

// Calls fn(begin, end, chunk_index) for `chunks` contiguous pieces of [0, n); chunk 0 runs on the
// calling thread. Returns when all pieces are done.
template <class Fn>
void parallel_chunks(std::size_t n, std::size_t chunks, Fn&& fn) {
  chunks = std::max<std::size_t>(1, std::min(chunks, n));
  if (chunks == 1) {
    fn(std::size_t(0), n, std::size_t(0));
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(chunks - 1);
  for (std::size_t c = 1; c < chunks; ++c) {
    std::size_t b = n * c / chunks, e = n * (c + 1) / chunks;
    workers.emplace_back([&fn, b, e, c] { fn(b, e, c); });
  }
  fn(std::size_t(0), n / chunks, std::size_t(0));
  for (auto& w : workers) w.join();
}

// parallel_for over [0, n) with a grain size below which it stays on one thread.
template <class Fn>
void parallel_for(std::size_t n, Fn&& fn, std::size_t grain = 1024) {
  std::size_t chunks = std::min(default_threads(), (n + grain - 1) / std::max<std::size_t>(grain, 1));
  parallel_chunks(n, chunks, [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) fn(i);
  });
}

}  // namespace cuzk
