// The pipeline's stages share one shape: a bounded queue of items in run order, guarded by the
// engine's mutex, and N workers that each take the first item, mark their status slot busy, work on
// it outside the lock, and mark the slot idle. StageQueue is the queue (FIFO, or by RunKey so that a
// CRITICAL partition overtakes queued NORMAL ones); run_stage_worker is the worker loop. A stage's
// own work (synthesis, Backend::start, finish) is the callable passed in; it sees no queue or lock.
//
// Urgent work (scheduler.hpp) passes the bound (push with `ignore_bound`: lower priorities can fill
// the queue, never close it to urgent items) and has workers of its own: a worker may take only
// items whose key its `accept` admits (an urgent-only worker; a backend worker whose device is
// busy admits nothing). Since waiters differ in what they accept, every change wakes all of them.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "engine/scheduler.hpp"

namespace cuzk::engine {

enum class StageOrder { kFifo, kByKey };

struct AcceptAll {
  bool operator()(const RunKey&) const { return true; }
};

template <class Item, StageOrder Order>
class StageQueue {
 public:
  explicit StageQueue(std::size_t capacity = SIZE_MAX) : cap_(capacity) {}
  void set_capacity(std::size_t c) { cap_ = c; }

  // Appends an item, waiting (lk held on the engine mutex) while the queue is full unless `give_up`
  // becomes true or `ignore_bound` is set; returns false (item untouched) when it gave up.
  template <class GiveUp>
  bool push(std::unique_lock<std::mutex>& lk, RunKey key, Item& item, GiveUp&& give_up, bool ignore_bound = false) {
    space_.wait(lk, [&] { return give_up() || ignore_bound || size() < cap_; });
    if (give_up()) return false;
    push_now(key, std::move(item));
    return true;
  }
  // Unbounded append (the dispatcher feeds synthesis only when a slot is free).
  void push_now(RunKey key, Item item) {
    if constexpr (Order == StageOrder::kFifo) {
      fifo_.emplace_back(key, std::move(item));
    } else {
      keyed_.emplace(key, std::move(item));
    }
    ready_.notify_all();
  }
  // Waits (lk held) for an item whose key `accept` admits, or for `stopping`; nullopt when stopping.
  // Only the first item is ever considered (run order is kept; an urgent-only worker waits when the
  // first item is not urgent, which means no urgent item is queued).
  template <class Accept = AcceptAll>
  std::optional<Item> pop(std::unique_lock<std::mutex>& lk, const bool& stopping, Accept&& accept = {}) {
    ready_.wait(lk, [&] { return stopping || (size() > 0 && accept(front_key())); });
    if (stopping) return std::nullopt;
    std::optional<Item> out;
    if constexpr (Order == StageOrder::kFifo) {
      out.emplace(std::move(fifo_.front().second));
      fifo_.pop_front();
    } else {
      out.emplace(std::move(keyed_.begin()->second));
      keyed_.erase(keyed_.begin());
    }
    return out;
  }
  // Removes the items `pred` selects and returns them (to be destroyed outside the lock).
  template <class Pred>
  std::vector<Item> drop(Pred&& pred) {
    std::vector<Item> out;
    if constexpr (Order == StageOrder::kFifo) {
      for (auto it = fifo_.begin(); it != fifo_.end();) {
        if (pred(it->second)) {
          out.push_back(std::move(it->second));
          it = fifo_.erase(it);
        } else {
          ++it;
        }
      }
    } else {
      for (auto it = keyed_.begin(); it != keyed_.end();) {
        if (pred(it->second)) {
          out.push_back(std::move(it->second));
          it = keyed_.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (!out.empty()) space_.notify_all();
    return out;
  }
  std::vector<Item> take_all() {
    return drop([](const Item&) { return true; });
  }
  std::size_t size() const { return Order == StageOrder::kFifo ? fifo_.size() : keyed_.size(); }
  void notify_space() { space_.notify_all(); }
  // Something an `accept` depends on changed (a device was released).
  void notify_ready() { ready_.notify_all(); }
  void wake_all() {
    ready_.notify_all();
    space_.notify_all();
  }

 private:
  const RunKey& front_key() const {
    if constexpr (Order == StageOrder::kFifo) {
      return fifo_.front().first;
    } else {
      return keyed_.begin()->first;
    }
  }
  std::size_t cap_;
  std::deque<std::pair<RunKey, Item>> fifo_;
  std::map<RunKey, Item> keyed_;
  std::condition_variable ready_, space_;
};

// One worker of a stage: take an item its `accept` admits (under `mu`), call busy(item) under the
// lock, work(item) outside it, then idle() under the lock; until the queue reports `stopping`.
template <class Item, StageOrder Order, class Accept, class Busy, class Work, class Idle>
void run_stage_worker(std::mutex& mu, const bool& stopping, StageQueue<Item, Order>& q, Accept&& accept, Busy&& busy,
                      Work&& work, Idle&& idle) {
  while (true) {
    std::optional<Item> item;
    {
      std::unique_lock<std::mutex> lk(mu);
      item = q.pop(lk, stopping, accept);
      if (!item) return;
      busy(*item);
    }
    q.notify_space();
    work(*item);
    {
      std::lock_guard<std::mutex> g(mu);
      idle();
    }
  }
}

}  // namespace cuzk::engine
