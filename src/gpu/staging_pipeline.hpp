// The order in which a query streamed from its key's file crosses to the device (GpuKeyOptions::
// from_file; GpuProver's for_each_file_chunk), as plain C++ so that CI checks it without a device
// (tests/gpu/staging_pipeline_test.cpp). Two pinned staging slots and two device buffers: chunk j is
// read and decoded into slot j & 1 on a helper thread, sent from that slot into device buffer j & 1,
// and used. The read of chunk j + 2 into slot j & 1 first waits for chunk j's send out of it to finish
// (wait_sent), and runs while chunk j is used, so the host's decoding hides behind the GPU's sums
// (issue 39: the witness queries of a 32 GiB WindowPoSt key are ~48 GB of the file per proof). A read
// error or a cancellation (`between` throws) ends the run with that exception, after the helper
// thread has finished.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <future>

namespace cuzk::gpu {

struct StagingSteps {
  std::function<void(std::size_t chunk, int slot)> read;  // host: chunk into the slot (throws on error)
  std::function<void(int slot)> wait_sent;                // host: the last send out of the slot has finished
  std::function<void(std::size_t chunk, int slot)> send;  // queue the slot's copy into device buffer `slot`
  std::function<void(std::size_t chunk, int slot)> use;   // wait for the chunk's arrival, use it; returns when done
  std::function<void(std::size_t chunk)> between;         // before chunk > 0 is used (the cancellation check)
};

// Runs `chunks` chunks through the steps; returns the milliseconds the calling thread waited for
// reads (the decoding the device did not hide).
inline double run_staged(std::size_t chunks, const StagingSteps& s) {
  using Clock = std::chrono::steady_clock;
  double waited_ms = 0;
  auto since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  if (chunks == 0) return 0;
  bool used[2] = {false, false};  // touched only by one read at a time
  auto read = [&](std::size_t j) {
    const int slot = int(j & 1);
    if (used[slot]) s.wait_sent(slot);
    used[slot] = true;
    s.read(j, slot);
  };
  auto t0 = Clock::now();
  read(0);
  s.send(0, 0);
  std::future<void> next;  // the read of chunk j + 1 (a std::async future: its destructor waits)
  if (chunks > 1) next = std::async(std::launch::async, read, std::size_t(1));
  waited_ms += since(t0);
  for (std::size_t j = 0; j < chunks; ++j) {
    if (j) s.between(j);
    if (j + 1 < chunks) {
      t0 = Clock::now();
      next.get();  // chunk j + 1 is in its slot
      waited_ms += since(t0);
      s.send(j + 1, int((j + 1) & 1));  // device buffer (j + 1) & 1 was last used by chunk j - 1
      if (j + 2 < chunks) next = std::async(std::launch::async, read, j + 2);
    }
    s.use(j, int(j & 1));
  }
  return waited_ms;
}

}  // namespace cuzk::gpu
