// The engine's scheduling decisions as a plain data structure: no threads, no locks, no clocks. The
// engine calls it under its own mutex and does what it says; tests drive it directly
// (tests/engine/scheduler_test.cpp).
//
//   admission      accepting, and fewer than max_active unfinished jobs (urgent jobs counted apart,
//                  so that a queue full of PoRep does not refuse a WinningPoSt)
//   prepare queue  jobs by RunKey: priority (higher first), then arrival
//   partition queue every prepared job's partitions by RunKey: priority, arrival, partition index.
//                  Only the head is ever dispatched (strict head-of-line: a large partition is not
//                  overtaken by smaller ones behind it, so it cannot starve), and only when
//                   - a synthesis slot of a pool its urgency may use is free,
//                   - no proving key is waiting for memory that draining partitions would free
//                     (yield_to_key: the key goes first, or every partition would wait for it;
//                     urgent partitions do not hold back for a key), and
//                   - its memory reservation succeeds, leaving the headroom of the urgencies above
//                     its own free; after a refusal the head waits until something changes (the
//                     engine's change counter moves: a reservation returned, a job finished, a slot
//                     freed) instead of retrying in a loop.
//                  Small urgent partitions (Urgency::kSmall: the lane's) queue apart and are tried
//                  first, so a 2^19-row WinningPoSt never waits behind a 2^27-row WindowPoSt head.
//
// Urgency (docs/daemon.md, "Deadlines under load"): a partition whose priority is at least the
// policy's threshold is urgent; an urgent one whose key's domain is at most 2^lane_max_domain_log2
// is small (kSmall) when a lane exists. Each urgency has reserved capacity that lower urgencies
// cannot take: synthesis slots (a pool per urgency; a partition may use its own pool or any lower
// one), memory headroom, a preparer per urgent priority level, a backend worker per device and a
// finalizer, and the bounds of the backend and finalize queues do not apply to it. Reason: a
// WinningPoSt arriving while 32 GiB PoRep partitions hold every slot (each synthesizes for seconds
// and holds the device ~1.07 s) must meet a 1 s p99.
#pragma once

#include <array>
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
  Priority priority() const { return static_cast<Priority>(-prio); }
  auto operator<=>(const RunKey&) const = default;
};

// The capacity classes, lowest first; a partition may use the pools of its own urgency and below.
enum class Urgency : std::uint8_t { kNormal = 0, kUrgent = 1, kSmall = 2 };
inline constexpr int kUrgencies = 3;
inline const char* urgency_name(Urgency u) {
  return u == Urgency::kSmall ? "small" : u == Urgency::kUrgent ? "urgent" : "normal";
}
using PerUrgency32 = std::array<std::uint32_t, kUrgencies>;
using PerUrgency64 = std::array<std::uint64_t, kUrgencies>;

struct UrgencyPolicy {
  std::optional<Priority> threshold = Priority::kHigh;  // nullopt: nothing is urgent
  bool lane = false;                                    // small urgent partitions have a lane
  std::uint32_t lane_max_domain_log2 = 22;

  bool urgent(Priority p) const { return threshold && p >= *threshold; }
  bool urgent(const RunKey& k) const { return urgent(k.priority()); }
  Urgency classify(Priority p, std::uint32_t domain_log2) const {
    if (!urgent(p)) return Urgency::kNormal;
    return lane && domain_log2 <= lane_max_domain_log2 ? Urgency::kSmall : Urgency::kUrgent;
  }
};

// The synthesis pool a partition of urgency `u` takes: its own when free, else the next lower one
// with a free slot; nullopt when none is free.
inline std::optional<Urgency> pick_pool(Urgency u, const PerUrgency32& free_slots) {
  for (int p = int(u); p >= 0; --p)
    if (free_slots[std::size_t(p)] > 0) return Urgency(p);
  return std::nullopt;
}

// Bytes a reservation of urgency `u` must leave free: the headroom of every urgency above it, unless
// no partition holds memory at all (then a budget too small for both still runs one at a time).
inline std::uint64_t keep_free(Urgency u, const PerUrgency64& headroom, bool partitions_hold_memory) {
  if (!partitions_hold_memory) return 0;
  std::uint64_t n = 0;
  for (int p = int(u) + 1; p < kUrgencies; ++p) n += headroom[std::size_t(p)];
  return n;
}

// Where a synthesized partition goes: the lane (no device lock) or the device queue. A small urgent
// partition takes the lane, except that a lane which is only worth it while the devices are busy
// (the CPU lane: slower than an idle GPU) leaves it to an idle device that nothing queued is
// waiting for.
inline bool to_lane(Urgency u, bool lane_only_when_devices_busy, std::uint32_t idle_devices,
                    std::size_t queued_for_devices) {
  if (u != Urgency::kSmall) return false;
  return !lane_only_when_devices_busy || idle_devices <= queued_for_devices;
}

// What the memory budget looks like to the dispatcher.
struct BudgetView {
  std::uint64_t total = 0;
  std::uint64_t srs_used = 0;          // held by proving keys
  std::uint64_t key_waiter_bytes = 0;  // the first blocked key load's request (0: none)
};

inline Status admit(bool accepting, std::uint32_t active_jobs, std::uint32_t max_active_jobs) {
  if (!accepting) return Error{"the daemon is shutting down and accepts no new jobs", ErrorCode::kUnavailable};
  if (active_jobs >= max_active_jobs) {
    return Error{"too many unfinished jobs (" + std::to_string(active_jobs) + "); try again later",
                 ErrorCode::kResourceExhausted};
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
  // The first queued job, if its priority is at least `at_least` (a preparer reserved for urgent
  // work passes its level; the others pass nothing).
  std::optional<JobT> next_job(std::optional<Priority> at_least = std::nullopt) {
    if (!has_jobs(at_least)) return std::nullopt;
    JobT j = std::move(jobs_.begin()->second);
    jobs_.erase(jobs_.begin());
    return j;
  }
  bool has_jobs(std::optional<Priority> at_least = std::nullopt) const {
    return !jobs_.empty() && (!at_least || jobs_.begin()->first.priority() >= *at_least);
  }

  // ---- partition queue
  void queue_partition(RunKey k, std::uint64_t bytes, TaskT task, Urgency u = Urgency::kNormal) {
    parts_[q_of(u)].emplace(k, Part{bytes, u, std::move(task)});
    ++changes_;
  }

  struct Head {
    RunKey key;
    std::uint64_t bytes = 0;
    Urgency urgency = Urgency::kNormal;
    Urgency pool = Urgency::kNormal;  // the synthesis pool it would take
    int queue = 0;                    // 0: the main queue, 1: the small urgent partitions'
  };
  // The partition to dispatch next, if any may go now: the small urgent queue's head, else the
  // main queue's, provided a synthesis pool it may use has a free slot and something changed since
  // that queue's head was last refused memory.
  std::optional<Head> head(const PerUrgency32& free_slots) const {
    for (int q : {1, 0}) {
      if (parts_[q].empty() || refused_at_[q] == changes_) continue;
      const auto& [k, p] = *parts_[q].begin();
      auto pool = pick_pool(p.urgency, free_slots);
      if (!pool) continue;
      return Head{k, p.bytes, p.urgency, *pool, q};
    }
    return std::nullopt;
  }
  // Every slot in the normal pool (tests of the plain head-of-line rules).
  std::optional<Head> head(std::uint32_t free_slots) const { return head(PerUrgency32{free_slots, 0, 0}); }
  const TaskT* task_of(const Head& h) const {
    auto it = parts_[h.queue].find(h.key);
    return it == parts_[h.queue].end() ? nullptr : &it->second.task;
  }
  // The head's reservation was refused: its queue waits for the next change.
  void refused(const Head& h) { refused_at_[h.queue] = changes_; }
  void refused() { refused_at_[0] = changes_; }
  // Something the head may be waiting for happened (memory returned, a slot freed, a job ended).
  void changed() { ++changes_; }
  std::uint64_t changes() const { return changes_; }
  // Removes and returns the head if it is still `h` (another thread may have changed the queue
  // while the reservation was made).
  std::optional<TaskT> take(const Head& h) {
    auto& m = parts_[h.queue];
    if (m.empty() || !(m.begin()->first == h.key)) return std::nullopt;
    TaskT t = std::move(m.begin()->second.task);
    m.erase(m.begin());
    return t;
  }
  std::optional<TaskT> take(RunKey k) { return take(Head{k, 0, Urgency::kNormal, Urgency::kNormal, 0}); }
  // Removes the head `h` whatever it has become (its job has ended).
  std::optional<TaskT> pop(const Head& h) {
    auto& m = parts_[h.queue];
    if (m.empty()) return std::nullopt;
    TaskT t = std::move(m.begin()->second.task);
    m.erase(m.begin());
    return t;
  }

  // Removes every queued job and partition for which `pred` is true; the partitions are returned
  // (the caller destroys them outside its lock: they hold memory reservations).
  template <class JobPred, class TaskPred>
  std::vector<TaskT> drop(JobPred job_pred, TaskPred task_pred) {
    for (auto it = jobs_.begin(); it != jobs_.end();) it = job_pred(it->second) ? jobs_.erase(it) : std::next(it);
    std::vector<TaskT> out;
    for (auto& m : parts_) {
      for (auto it = m.begin(); it != m.end();) {
        if (task_pred(it->second.task)) {
          out.push_back(std::move(it->second.task));
          it = m.erase(it);
        } else {
          ++it;
        }
      }
    }
    ++changes_;
    return out;
  }

  std::size_t queued_jobs() const { return jobs_.size(); }
  std::size_t queued_partitions() const { return parts_[0].size() + parts_[1].size(); }
  template <class Fn>
  void for_each_job(Fn&& fn) const {
    for (auto& [_, j] : jobs_) fn(j);
  }
  template <class Fn>
  void for_each_partition(Fn&& fn) const {
    for (auto& m : parts_)
      for (auto& [_, p] : m) fn(p.task);
  }
  // Everything still queued (shutdown).
  std::pair<std::vector<JobT>, std::vector<TaskT>> take_all() {
    std::pair<std::vector<JobT>, std::vector<TaskT>> out;
    for (auto& [_, j] : jobs_) out.first.push_back(std::move(j));
    for (auto& m : parts_) {
      for (auto& [_, p] : m) out.second.push_back(std::move(p.task));
      m.clear();
    }
    jobs_.clear();
    return out;
  }

 private:
  struct Part {
    std::uint64_t bytes;
    Urgency urgency;
    TaskT task;
  };
  static int q_of(Urgency u) { return u == Urgency::kSmall ? 1 : 0; }
  std::map<RunKey, JobT> jobs_;
  std::array<std::map<RunKey, Part>, 2> parts_;
  std::uint64_t changes_ = 1;
  std::array<std::uint64_t, 2> refused_at_{0, 0};
};

}  // namespace cuzk::engine
