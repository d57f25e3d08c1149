#include "server/timers.hpp"

namespace cuzk::server {

Timers::Timers() : thread_([this] { run(); }) {}

Timers::~Timers() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::uint64_t Timers::at(Clock::time_point when, std::function<void()> f) {
  std::uint64_t h;
  bool first;
  {
    std::lock_guard<std::mutex> g(mu_);
    h = next_++;
    queue_.emplace(std::pair{when, h}, std::move(f));
    when_.emplace(h, when);
    first = queue_.begin()->first.second == h;
  }
  if (first) cv_.notify_all();  // an earlier deadline than the thread sleeps for
  return h;
}

void Timers::cancel(std::uint64_t handle) {
  std::function<void()> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> g(mu_);
  auto it = when_.find(handle);
  if (it == when_.end()) return;
  auto q = queue_.find({it->second, handle});
  dropped = std::move(q->second);
  queue_.erase(q);
  when_.erase(it);
}

std::size_t Timers::pending() const {
  std::lock_guard<std::mutex> g(mu_);
  return queue_.size();
}

void Timers::run() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    if (queue_.empty()) {
      cv_.wait(lk);
      continue;
    }
    auto first = queue_.begin();
    if (first->first.first > Clock::now()) {
      // A copy: wait_until reads its deadline again after waking, and cancel() may have erased the
      // node meanwhile (a use-after-free ASan found in await_test).
      const Clock::time_point deadline = first->first.first;
      cv_.wait_until(lk, deadline);
      continue;
    }
    std::function<void()> f = std::move(first->second);
    when_.erase(first->first.second);
    queue_.erase(first);
    lk.unlock();
    f();
    f = nullptr;
    lk.lock();
  }
}

}  // namespace cuzk::server
