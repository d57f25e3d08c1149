// The engine's scheduling decisions as a plain data structure: no threads, no locks, no clocks. The
// engine calls it under its own mutex and does what it says; tests drive it directly
// (tests/engine/scheduler_test.cpp).
//
//   admission      accepting, and fewer than max_active unfinished jobs
//   prepare queue  jobs by RunKey: priority (higher first), then arrival
//   partition queue every prepared job's partitions by RunKey: priority, arrival, partition index.
//                  Only the head is ever dispatched (strict head-of-line: a large partition is not
//                  overtaken by smaller ones behind it, so it cannot starve), and only when
//                   - a synthesis slot is free,
//                   - no proving key is waiting for memory that draining partitions would free
//                     (yield_to_key: the key goes first, or every partition would wait for it), and
//                   - its memory reservation succeeds; after a refusal the head waits until
//                     something changes (the engine's change counter moves: a reservation returned,
//                     a job finished, a slot freed) instead of retrying in a loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engine/types.hpp"

namespace cuzk::engine {

// Run order: higher priority first, then earlier arrival (job sequence), then lower partition index.
struct RunKey {
  int prio = 0;  // negated priority: smaller runs first
  std::uint64_t seq = 0;
  std::uint32_t index = 0;
  static RunKey of(Priority p, std::uint64_t seq, std::uint32_t index = 0) {
    return RunKey{-static_cast<int>(p), seq, index};
  }
  auto operator<=>(const RunKey&) const = default;
};

// What the memory budget looks like to the dispatcher.
struct BudgetView {
  std::uint64_t total = 0;
  std::uint64_t srs_used = 0;          // held by proving keys
  std::uint64_t key_waiter_bytes = 0;  // the first blocked key load's request (0: none)
};

inline Status admit(bool accepting, std::uint32_t active_jobs, std::uint32_t max_active_jobs) {
  if (!accepting) return Error{"the daemon is shutting down and accepts no new jobs"};
  if (active_jobs >= max_active_jobs) {
    return Error{"too many unfinished jobs (" + std::to_string(active_jobs) + "); try again later"};
  }
  return ok_status();
}

// A key load blocked on memory goes before the partitions when it would fit once the partitions'
// reservations are returned; one that would not fit even then must not stop them.
inline bool yield_to_key(const BudgetView& b) {
  return b.key_waiter_bytes && b.key_waiter_bytes <= b.total - std::min(b.total, b.srs_used);
}

template <class JobT, class TaskT>
class Scheduler {
 public:
  // ---- prepare queue
  void queue_job(RunKey k, JobT job) { jobs_.emplace(k, std::move(job)); }
  // Unfinished jobs served before one with key `k` that is about to be queued: those queued ahead
  // of it, and those already past the prepare queue (`active_jobs` counts every unfinished job,
  // the new one included).
  std::uint32_t position(RunKey k, std::uint32_t active_jobs) const {
    std::uint32_t ahead = 0;
    for (auto& [qk, _] : jobs_)
      if (qk < k) ++ahead;
    const std::uint32_t others = active_jobs ? active_jobs - 1 : 0;
    return ahead + (others - std::min<std::uint32_t>(others, std::uint32_t(jobs_.size())));
  }
  std::optional<JobT> next_job() {
    if (jobs_.empty()) return std::nullopt;
    JobT j = std::move(jobs_.begin()->second);
    jobs_.erase(jobs_.begin());
    return j;
  }
  bool has_jobs() const { return !jobs_.empty(); }

  // ---- partition queue
  void queue_partition(RunKey k, std::uint64_t bytes, TaskT task) {
    parts_.emplace(k, Part{bytes, std::move(task)});
    ++changes_;
  }

  struct Head {
    RunKey key;
    std::uint64_t bytes = 0;
  };
  // The partition to dispatch next, if any may go now: the queue is not empty, a synthesis slot is
  // free, and something changed since the head was last refused memory.
  std::optional<Head> head(std::uint32_t free_slots) const {
    if (parts_.empty() || free_slots == 0 || refused_at_ == changes_) return std::nullopt;
    return Head{parts_.begin()->first, parts_.begin()->second.bytes};
  }
  const TaskT* head_task() const { return parts_.empty() ? nullptr : &parts_.begin()->second.task; }
  // The head's reservation was refused: wait for the next change.
  void refused() { refused_at_ = changes_; }
  // Something the head may be waiting for happened (memory returned, a slot freed, a job ended).
  void changed() { ++changes_; }
  std::uint64_t changes() const { return changes_; }
  // Removes and returns the head if it is still `k` (another thread may have changed the queue
  // while the reservation was made).
  std::optional<TaskT> take(RunKey k) {
    if (parts_.empty() || !(parts_.begin()->first == k)) return std::nullopt;
    TaskT t = std::move(parts_.begin()->second.task);
    parts_.erase(parts_.begin());
    return t;
  }
  // Removes the head whatever it is (its job has ended).
  std::optional<TaskT> pop_head() {
    if (parts_.empty()) return std::nullopt;
    return take(parts_.begin()->first);
  }

  // Removes every queued job and partition for which `pred` is true; the partitions are returned
  // (the caller destroys them outside its lock: they hold memory reservations).
  template <class JobPred, class TaskPred>
  std::vector<TaskT> drop(JobPred job_pred, TaskPred task_pred) {
    for (auto it = jobs_.begin(); it != jobs_.end();) it = job_pred(it->second) ? jobs_.erase(it) : std::next(it);
    std::vector<TaskT> out;
    for (auto it = parts_.begin(); it != parts_.end();) {
      if (task_pred(it->second.task)) {
        out.push_back(std::move(it->second.task));
        it = parts_.erase(it);
      } else {
        ++it;
      }
    }
    ++changes_;
    return out;
  }

  std::size_t queued_jobs() const { return jobs_.size(); }
  std::size_t queued_partitions() const { return parts_.size(); }
  template <class Fn>
  void for_each_job(Fn&& fn) const {
    for (auto& [_, j] : jobs_) fn(j);
  }
  template <class Fn>
  void for_each_partition(Fn&& fn) const {
    for (auto& [_, p] : parts_) fn(p.task);
  }
  // Everything still queued (shutdown).
  std::pair<std::vector<JobT>, std::vector<TaskT>> take_all() {
    std::pair<std::vector<JobT>, std::vector<TaskT>> out;
    for (auto& [_, j] : jobs_) out.first.push_back(std::move(j));
    for (auto& [_, p] : parts_) out.second.push_back(std::move(p.task));
    jobs_.clear();
    parts_.clear();
    return out;
  }

 private:
  struct Part {
    std::uint64_t bytes;
    TaskT task;
  };
  std::map<RunKey, JobT> jobs_;
  std::map<RunKey, Part> parts_;
  std::uint64_t changes_ = 1;
  std::uint64_t refused_at_ = 0;
};

}  // namespace cuzk::engine
