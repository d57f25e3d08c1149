// The order of a query streamed from its key's file (src/gpu/staging_pipeline.hpp), on a host
// emulation of the device: a copy engine thread that drains the queued sends one after another with
// random delays, reads and uses with random delays too. Whatever the timing, every chunk is read once
// into slot chunk & 1, no read overwrites a slot before the send out of it has finished, every use sees
// its own chunk in its buffer, in order; a read error and a cancellation end the run with their
// exception after the helper thread has finished.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gpu/staging_pipeline.hpp"

namespace cuzk::gpu {
namespace {

// Slots and device buffers hold a chunk number (-1: nothing yet).
struct FakeDevice {
  std::mutex mu;
  std::condition_variable cv;
  long slot[2] = {-1, -1};
  long buffer[2] = {-1, -1};
  int sends_pending[2] = {0, 0};  // per slot: sends queued out of it and not finished
  std::deque<std::pair<std::size_t, int>> queue;
  bool stop = false;
  std::vector<std::string> violations;
  std::vector<std::size_t> reads, uses;
  std::atomic<int> reading{0};
  std::mt19937 rng;
  std::thread engine;

  explicit FakeDevice(unsigned seed) : rng(seed) {
    engine = std::thread([this] {
      std::unique_lock<std::mutex> lk(mu);
      while (true) {
        cv.wait(lk, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        auto [j, s] = queue.front();
        lk.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(delay()));
        lk.lock();
        if (slot[s] != long(j))
          violations.push_back("send " + std::to_string(j) + ": the slot holds " + std::to_string(slot[s]));
        buffer[s] = slot[s];
        queue.pop_front();
        sends_pending[s]--;
        cv.notify_all();
      }
    });
  }
  ~FakeDevice() {
    {
      std::lock_guard<std::mutex> g(mu);
      stop = true;
    }
    cv.notify_all();
    engine.join();
  }
  int delay() {
    static std::mutex m;
    std::lock_guard<std::mutex> g(m);
    return int(rng() % 400);
  }

  StagingSteps steps(long fail_read = -1, long cancel_at = -1) {
    StagingSteps s;
    s.read = [this, fail_read](std::size_t j, int sl) {
      reading++;
      std::this_thread::sleep_for(std::chrono::microseconds(delay()));
      std::lock_guard<std::mutex> g(mu);
      reading--;
      reads.push_back(j);
      if (sl != int(j & 1)) violations.push_back("read " + std::to_string(j) + " into slot " + std::to_string(sl));
      if (sends_pending[sl]) violations.push_back("read " + std::to_string(j) + " overwrote a slot still being sent");
      if (long(j) == fail_read) throw std::runtime_error("x.params: section l point 7: not on the curve");
      slot[sl] = long(j);
    };
    s.wait_sent = [this](int sl) {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return sends_pending[sl] == 0; });
    };
    s.send = [this](std::size_t j, int sl) {
      std::lock_guard<std::mutex> g(mu);
      sends_pending[sl]++;
      queue.emplace_back(j, sl);
      cv.notify_all();
    };
    s.use = [this](std::size_t j, int sl) {
      {
        std::unique_lock<std::mutex> lk(mu);
        // the chunk's arrival (cudaStreamWaitEvent); another chunk there is a violation, not a hang
        if (!cv.wait_for(lk, std::chrono::seconds(5), [&] { return buffer[sl] == long(j); }))
          violations.push_back("use " + std::to_string(j) + ": buffer " + std::to_string(sl) + " holds " +
                               std::to_string(buffer[sl]));
        uses.push_back(j);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(delay()));
    };
    s.between = [cancel_at](std::size_t j) {
      if (long(j) == cancel_at) throw std::runtime_error("cancelled");
    };
    return s;
  }
};

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(StagingPipeline, EveryChunkReadOnceIntoItsSlotAndUsedInOrderWhateverTheTiming) {
  for (std::size_t chunks : {1u, 2u, 3u, 7u, 120u}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(std::to_string(chunks) + " chunks, seed " + std::to_string(seed));
      FakeDevice dev(seed);
      const double waited = run_staged(chunks, dev.steps());
      EXPECT_GE(waited, 0.0);
      std::lock_guard<std::mutex> g(dev.mu);
      EXPECT_TRUE(dev.violations.empty()) << dev.violations.front();
      EXPECT_EQ(dev.reads, iota(chunks));
      EXPECT_EQ(dev.uses, iota(chunks));
    }
  }
}

TEST(StagingPipeline, AReadErrorEndsTheRunWithItsMessageAndNothingAfterIt) {
  FakeDevice dev(9);
  try {
    run_staged(50, dev.steps(/*fail_read=*/5));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "x.params: section l point 7: not on the curve");
  }
  EXPECT_EQ(dev.reading.load(), 0);  // the helper thread is done
  std::lock_guard<std::mutex> g(dev.mu);
  EXPECT_TRUE(dev.violations.empty());
  EXPECT_EQ(dev.reads, iota(6));  // 0..5, the failed one last
  EXPECT_EQ(dev.uses, iota(4));   // chunk 4's use waits for chunk 5's read, which failed
}

TEST(StagingPipeline, ACancellationStopsBeforeTheNextChunkAndJoinsTheReader) {
  FakeDevice dev(3);
  EXPECT_THROW(run_staged(50, dev.steps(-1, /*cancel_at=*/10)), std::runtime_error);
  EXPECT_EQ(dev.reading.load(), 0);
  std::lock_guard<std::mutex> g(dev.mu);
  EXPECT_TRUE(dev.violations.empty());
  EXPECT_EQ(dev.uses, iota(10));
  EXPECT_LE(dev.reads.size(), 12u);  // at most two chunks read ahead
}

}  // namespace
}  // namespace cuzk::gpu
