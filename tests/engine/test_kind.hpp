// The engine tests' controllable kind (engine_test, devices_test): P partitions that each prove the
// mulchain fixture, with a gate, an injected failure and throws, and counters; and small_options().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "groth16/verifier.hpp"
#include "test_util.hpp"

namespace cuzk::engine {

inline constexpr std::uint32_t kTestKind = 5000;

// A small engine on the CPU backend with the built-in kinds: 256 MiB, 2 workers per stage.
inline EngineOptions small_options() {
  EngineOptions o;
  kinds::register_builtin_kinds(o.kinds);
  o.memory_budget_bytes = 256u << 20;
  o.srs_min_idle = std::chrono::milliseconds(0);
  o.prepare_workers = 2;
  o.synthesis_workers = 2;
  o.workers_per_device = 2;
  o.finalizer_threads = 2;
  return o;
}

// A controllable kind: P partitions that each prove `circuit` with its fixture witness; synthesis
// can be held at a gate, can fail on one partition, and counts its calls.
struct TestKindControl {
  std::mutex mu;
  std::condition_variable cv;
  bool gate_open = true;
  std::set<std::string> gated_jobs;  // request ids held at the gate (all when empty and gate closed)
  std::atomic<int> synth_calls{0};
  std::atomic<int> in_synthesis{0};
  int fail_partition = -1;
  bool spin_until_cancelled = false;
  std::string throw_in;  // "prepare", "synthesis" or "verify": that stage throws (exception barriers)
  std::uint64_t partition_bytes = 1u << 20;
  std::uint32_t partitions = 1;
  std::vector<std::string> order;        // request ids in synthesis start order
  std::multiset<std::uint64_t> sectors;  // sector_number of every request synthesized
  std::uint64_t parse_bytes = 0;         // JobKind::parse_bytes (0: the default bound)
  std::atomic<int> prepare_calls{0};
  std::atomic<std::uint64_t> parse_seen{0};  // PrepareContext::parse as the last prepare saw it

  void open() {
    {
      std::lock_guard<std::mutex> g(mu);
      gate_open = true;
    }
    cv.notify_all();
  }
};

class TestPrepared final : public PreparedJob {
 public:
  TestPrepared(std::shared_ptr<const ProofRequest> req, SrsLease lease, std::vector<math::Fr> w, TestKindControl& c)
      : req_(std::move(req)), lease_(std::move(lease)), w_(std::move(w)), c_(c) {}
  std::uint32_t num_partitions() const override { return c_.partitions; }
  PartitionMemory partition_memory(std::uint32_t) const override { return {c_.partition_bytes, 4096}; }
  Result<SynthesizedPartition> synthesize(std::uint32_t index, const CancelToken& cancel) override {
    c_.synth_calls++;
    c_.in_synthesis++;
    {
      std::unique_lock<std::mutex> lk(c_.mu);
      c_.order.push_back(req_->request_id);
      c_.sectors.insert(req_->sector_number);
      auto released = [&] {
        bool held = !c_.gate_open && (c_.gated_jobs.empty() || c_.gated_jobs.count(req_->request_id));
        return !held || cancel.cancelled();
      };
      while (!released()) c_.cv.wait_for(lk, std::chrono::milliseconds(1));  // cancellation is polled, as real kinds do
    }
    while (c_.spin_until_cancelled && !cancel.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    c_.in_synthesis--;
    if (c_.throw_in == "synthesis") throw std::length_error("vector too long");
    if (cancel.cancelled()) return Error{"cancelled"};
    if (int(index) == c_.fail_partition) return Error{"injected failure"};
    SynthesizedPartition s;
    s.shape = &lease_->shape;
    s.key = &lease_->pk;
    s.witness = w_;
    return s;
  }
  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_->pk; }
  Status verify(std::span<const groth16::Proof> proofs) override {
    if (c_.throw_in == "verify") throw 42;  // not even a std::exception
    std::vector<math::Fr> pub(w_.begin() + 1, w_.begin() + 1 + lease_->n_public);
    for (auto& p : proofs) {
      auto ok = groth16::verify(lease_->pk.vk, pub, p);
      if (!ok || !*ok) return Error{"test kind: a partition proof does not verify"};
    }
    return ok_status();
  }

 private:
  std::shared_ptr<const ProofRequest> req_;
  SrsLease lease_;
  std::vector<math::Fr> w_;
  TestKindControl& c_;
};

class TestKind final : public JobKind {
 public:
  explicit TestKind(TestKindControl& c) : c_(c) {}
  std::string name() const override { return "test-kind"; }
  std::uint64_t parse_bytes(const ProofRequest& req) const override {
    return c_.parse_bytes ? c_.parse_bytes : JobKind::parse_bytes(req);
  }
  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    c_.prepare_calls++;
    c_.parse_seen = ctx.parse.bytes();
    if (c_.throw_in == "prepare") throw std::bad_alloc();
    auto lease = ctx.srs.acquire("mulchain");
    if (!lease) return Error{lease.error()};
    auto w = formats::read_wtns(test::fixture("mulchain", "witness.wtns"));
    if (!w) return Error{w.error()};
    return std::unique_ptr<PreparedJob>(std::make_unique<TestPrepared>(req, std::move(*lease), std::move(*w), c_));
  }

 private:
  TestKindControl& c_;
};

inline ProofRequest test_request(const std::string& id, Priority prio = Priority::kNormal) {
  ProofRequest r;
  r.request_id = id;
  r.proof_kind = kTestKind;
  r.priority = static_cast<std::uint32_t>(prio);
  return r;
}

}  // namespace cuzk::engine
