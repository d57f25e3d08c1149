#include "engine/job.hpp"

namespace cuzk::engine {
namespace {

std::uint64_t ms_between(Micros a, Micros b) { return b > a ? (b - a + 500) / 1000 : 0; }

}  // namespace

JobResult Job::make_result(ResultStatus st, std::string proof, std::string error, std::uint64_t verify_ms,
                           Micros now) const {
  JobResult r;
  r.job_id = id;
  r.status = st;
  r.proof = std::move(proof);
  r.error = std::move(error);
  r.proof_kind = kind;
  r.num_partitions = num_parts;
  r.submitted = submitted;
  r.completed = now;
  r.total_ms = ms_between(r.submitted, r.completed);
  r.srs_load_ms = srs_load_ms;
  r.verify_ms = verify_ms;
  r.partitions = times;
  Micros first_dispatch = 0;
  std::uint64_t synth_us = 0, gpu_us = 0;
  for (const auto& t : times) {
    if (t.dispatched && (!first_dispatch || t.dispatched < first_dispatch)) first_dispatch = t.dispatched;
    if (t.synth_end > t.synth_start && t.synth_start) synth_us += t.synth_end - t.synth_start;
    Micros gpu_end = t.finalize_end ? t.finalize_end : t.backend_end;
    if (t.backend_start && gpu_end > t.backend_start) gpu_us += gpu_end - t.backend_start;
  }
  r.synthesis_ms = (synth_us + 500) / 1000;
  r.gpu_compute_ms = (gpu_us + 500) / 1000;
  if (first_dispatch) {
    std::uint64_t waited = ms_between(r.submitted, first_dispatch);
    r.queue_wait_ms = waited > r.srs_load_ms ? waited - r.srs_load_ms : 0;
  } else {
    r.queue_wait_ms = r.total_ms > r.srs_load_ms ? r.total_ms - r.srs_load_ms : 0;
  }
  return r;
}

std::optional<Job::Claim> Job::claim(ResultStatus status, std::string proof, std::string error, std::uint64_t verify_ms,
                                     Micros now) {
  std::lock_guard<std::mutex> g(mu);
  if (claimed_) return std::nullopt;
  claimed_ = true;
  stop.store(true);
  Claim c;
  c.result = make_result(status, std::move(proof), std::move(error), verify_ms, now);
  finished_at = c.result.completed;
  c.prepared = std::move(prepared);
  // A retained result must not keep the inputs; the digest still recognises a resubmission.
  c.request = std::move(req);
  c.request_charge = std::move(request_charge);
  proofs.clear();
  return c;
}

void Job::publish(JobResult r) {
  std::vector<std::pair<std::uint64_t, std::function<void()>>> callbacks;
  {
    std::lock_guard<std::mutex> g(mu);
    result = std::move(r);
    state = State::kDone;
    callbacks.swap(callbacks_);
  }
  cv.notify_all();
  for (auto& [_, f] : callbacks) f();
}

std::uint64_t Job::on_done(std::function<void()> f) {
  {
    std::lock_guard<std::mutex> g(mu);
    if (!result) {
      const std::uint64_t h = next_callback_++;
      callbacks_.emplace_back(h, std::move(f));
      return h;
    }
  }
  f();
  return 0;
}

void Job::forget_done(std::uint64_t handle) {
  if (handle == 0) return;
  std::function<void()> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> g(mu);
  for (auto it = callbacks_.begin(); it != callbacks_.end(); ++it) {
    if (it->first == handle) {
      dropped = std::move(it->second);
      callbacks_.erase(it);
      break;
    }
  }
}

std::optional<JobResult> Job::current_result() const {
  std::lock_guard<std::mutex> g(mu);
  return result;
}

JobResult Job::wait(std::chrono::milliseconds timeout, const std::function<bool()>& abandon) {
  using Clock = std::chrono::steady_clock;
  // A timeout beyond a year is no deadline (now + 2^62 ms would overflow the clock and time out at once).
  const bool bounded = timeout.count() > 0 && timeout <= std::chrono::hours(24 * 366);
  const auto deadline = bounded ? Clock::now() + timeout : Clock::time_point::max();
  std::unique_lock<std::mutex> lk(mu);
  while (!result) {
    auto now = Clock::now();
    if (now >= deadline || (abandon && abandon())) {
      JobResult r;
      r.job_id = id;
      r.status = ResultStatus::kTimeout;
      r.proof_kind = kind;
      r.error = now >= deadline ? "timed out after " + std::to_string(timeout.count()) + " ms; the job is still running"
                                : "the caller stopped waiting";
      return r;
    }
    auto slice = now + std::chrono::milliseconds(abandon ? 50 : 1000);
    cv.wait_until(lk, std::min(deadline, slice));
  }
  return *result;
}

bool Job::add_proof(std::uint32_t index, const groth16::Proof& proof, std::vector<groth16::Proof>& all) {
  std::lock_guard<std::mutex> g(mu);
  if (claimed_ || proofs[index]) return false;
  proofs[index] = proof;
  if (++parts_done != num_parts) return false;
  for (auto& p : proofs) all.push_back(*p);
  return true;
}

}  // namespace cuzk::engine
