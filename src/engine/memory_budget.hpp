// MemoryBudget: one byte budget for everything big the daemon holds — resident proving keys and the
// working set of every in-flight partition (ARCHITECTURE.md seam 5). Nothing large is allocated
// without a reservation, so when submissions outnumber the budget the pipeline waits instead of
// running out of memory.
//
// Fairness and wake-ups (the Rust daemon's lost-wakeup window, cuzk-behaviour.md 8.1 #7, cannot
// happen here): blocking reserve() calls queue in FIFO order under one mutex and condition variable;
// try_reserve() never jumps that queue. Every release notifies the listeners (the dispatcher), after
// the budget's own mutex is dropped. A request larger than the whole budget fails at once instead
// of blocking forever.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/result.hpp"

namespace cuzk::engine {

class MemoryBudget;

// RAII: whatever is still held is returned on destruction. Movable, not copyable.
class Reservation {
 public:
  Reservation() = default;
  Reservation(Reservation&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_), tag_(o.tag_) {
    o.budget_ = nullptr;
    o.bytes_ = 0;
  }
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { reset(); }

  std::uint64_t bytes() const { return bytes_; }
  explicit operator bool() const { return budget_ != nullptr; }
  // Returns n bytes (clamped to what is held) to the budget early.
  void release(std::uint64_t n);
  void reset();  // returns everything

 private:
  friend class MemoryBudget;
  Reservation(MemoryBudget* b, std::uint64_t bytes, int tag) : budget_(b), bytes_(bytes), tag_(tag) {}
  MemoryBudget* budget_ = nullptr;
  std::uint64_t bytes_ = 0;
  int tag_ = 0;
};

class MemoryBudget {
 public:
  // What a reservation is for; used only for the status breakdown.
  // kRequests: the engine's slice for requests' bytes (EngineOptions::request_budget_bytes); kParse:
  // a request's parse bound (JobKind::parse_bytes), held while its job is prepared.
  enum Tag : int { kPartition = 0, kSrs = 1, kOther = 2, kRequests = 3, kParse = 4, kNumTags = 5 };

  explicit MemoryBudget(std::uint64_t total_bytes);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Immediate: succeeds only when the bytes fit and (unless jump_queue) nobody is queued in reserve().
  // When they do not fit, the evictor (if any) is asked to free the shortfall once and the attempt
  // is repeated. The engine's partitions jump the queue: a proving key waiting for memory must not
  // stall the partitions of jobs that hold other keys (which only finishing them can free); the
  // dispatcher instead holds back when draining partitions alone would let the key in.
  // `keep_free`: succeed only if that many bytes stay free afterwards (headroom for urgent work).
  std::optional<Reservation> try_reserve(std::uint64_t bytes, Tag tag = kPartition, bool jump_queue = false,
                                         std::uint64_t keep_free = 0);
  // try_reserve(bytes, tag, jump_queue = true) as a shared token, for memory a component holds on
  // behalf of work already admitted (a backend's pinned copy of the key a running job holds: it must
  // not wait behind a key load, as partitions do not); the error says what is free.
  Result<std::shared_ptr<void>> charge(std::uint64_t bytes, Tag tag);
  // Bytes wanted by the first blocked reserve() call; 0 when nobody waits.
  std::uint64_t head_waiter_bytes() const;

  // Blocking, FIFO. Returns an error when bytes exceed the total, when `cancelled` turns true, or when
  // the deadline passes. `cancelled` is polled every few milliseconds while waiting.
  Result<Reservation> reserve(
      std::uint64_t bytes, Tag tag, const std::function<bool()>& cancelled,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

  // The evictor frees idle cached data (proving keys) and returns how many bytes it released back
  // into this budget. Called without any budget lock held.
  void set_evictor(std::function<std::uint64_t(std::uint64_t needed)> evictor);
  // Called after memory is released or a waiter leaves (without the budget's lock held).
  void add_listener(std::function<void()> fn);
  // Drops the evictor and every listener (before what they refer to is destroyed).
  void detach_callbacks();

  std::uint64_t total() const { return total_; }
  std::uint64_t used() const;
  std::uint64_t used(Tag tag) const;
  std::uint64_t peak() const;  // highest used() ever
  std::uint32_t waiters() const;
  void reset_peak();

 private:
  friend class Reservation;
  void give_back(std::uint64_t bytes, int tag);
  void notify_listeners();

  const std::uint64_t total_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t used_ = 0;
  std::uint64_t peak_ = 0;
  std::uint64_t by_tag_[kNumTags] = {};
  struct Waiter {
    std::uint64_t ticket, bytes;
  };
  std::deque<Waiter> queue_;  // blocked reserve() calls, FIFO
  std::uint64_t next_ticket_ = 0;
  std::function<std::uint64_t(std::uint64_t)> evictor_;
  std::vector<std::function<void()>> listeners_;
};

}  // namespace cuzk::engine
