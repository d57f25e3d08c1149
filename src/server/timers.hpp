// Callbacks at deadlines on one thread: AwaitProof's timeout_ms costs an entry here, not a server
// thread blocked in a wait (issue 28 item 5: 300 blocked awaits were 300 threads and +2.3 GB).
// Callbacks run on the timer thread, outside the lock, one at a time; they must be quick.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace cuzk::server {

class Timers {
 public:
  using Clock = std::chrono::steady_clock;
  Timers();
  ~Timers();  // stops the thread; callbacks not yet run never run
  Timers(const Timers&) = delete;
  Timers& operator=(const Timers&) = delete;

  // Runs `f` at `when` (at once, on the timer thread, when it has passed). Returns its handle.
  std::uint64_t at(Clock::time_point when, std::function<void()> f);
  // Drops a callback that has not started; no-op once it runs or ran.
  void cancel(std::uint64_t handle);
  std::size_t pending() const;

 private:
  void run();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<Clock::time_point, std::uint64_t>, std::function<void()>> queue_;
  std::unordered_map<std::uint64_t, Clock::time_point> when_;
  std::uint64_t next_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::server
