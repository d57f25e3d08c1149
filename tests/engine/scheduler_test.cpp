// The scheduler's decisions without threads (engine/scheduler.hpp): run order by priority, arrival
// and partition; strict head-of-line dispatch; a key waiting for memory goes before partitions; a
// refused reservation waits for the next change; admission.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/kind_registry.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "engine/scheduler.hpp"

namespace cuzk::engine {
namespace {

using Sched = Scheduler<std::string, std::string>;  // jobs and partitions named by strings

void queue_job_parts(Sched& s, Priority p, std::uint64_t seq, const std::string& job, std::uint32_t n,
                     std::uint64_t bytes = 100) {
  for (std::uint32_t i = 0; i < n; ++i) s.queue_partition(RunKey::of(p, seq, i), bytes, job + "/" + std::to_string(i));
}

// Takes every partition in the order the dispatcher would (no memory limits).
std::vector<std::string> drain(Sched& s) {
  std::vector<std::string> out;
  while (auto h = s.head(1)) out.push_back(*s.take(h->key));
  return out;
}

TEST(Scheduler, PriorityThenArrivalThenPartition) {
  Sched s;
  queue_job_parts(s, Priority::kNormal, 1, "porep", 3);
  queue_job_parts(s, Priority::kLow, 2, "low", 1);
  queue_job_parts(s, Priority::kCritical, 3, "winning", 2);
  queue_job_parts(s, Priority::kNormal, 4, "porep2", 1);
  queue_job_parts(s, Priority::kHigh, 5, "wpost", 1);
  EXPECT_EQ(drain(s), (std::vector<std::string>{"winning/0", "winning/1", "wpost/0", "porep/0", "porep/1", "porep/2",
                                                "porep2/0", "low/0"}));
}

TEST(Scheduler, PrepareQueueOrderAndPosition) {
  Sched s;
  s.queue_job(RunKey::of(Priority::kNormal, 1), "a");
  s.queue_job(RunKey::of(Priority::kNormal, 2), "b");
  // A CRITICAL job arriving third is served first among the queued; with 5 unfinished jobs (2 queued,
  // 2 past the prepare queue, itself) it has the 2 running ones ahead of it.
  EXPECT_EQ(s.position(RunKey::of(Priority::kCritical, 3), 5), 2u);
  EXPECT_EQ(s.position(RunKey::of(Priority::kNormal, 3), 5), 4u);
  s.queue_job(RunKey::of(Priority::kCritical, 3), "c");
  EXPECT_EQ(*s.next_job(), "c");
  EXPECT_EQ(*s.next_job(), "a");
  EXPECT_EQ(*s.next_job(), "b");
  EXPECT_FALSE(s.next_job());
}

TEST(Scheduler, OnlyTheHeadIsDispatchedAndOnlyWithAFreeSlot) {
  Sched s;
  queue_job_parts(s, Priority::kNormal, 1, "big", 1, 3000);
  queue_job_parts(s, Priority::kNormal, 2, "small", 1, 10);
  EXPECT_FALSE(s.head(0));  // no synthesis slot
  auto h = s.head(1);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->bytes, 3000u);
  // The small partition behind it cannot be taken in its place.
  EXPECT_FALSE(s.take(RunKey::of(Priority::kNormal, 2, 0)));
  EXPECT_EQ(*s.take(h->key), "big/0");
  EXPECT_EQ(s.head(1)->bytes, 10u);
}

TEST(Scheduler, RefusedReservationWaitsForTheNextChange) {
  Sched s;
  queue_job_parts(s, Priority::kNormal, 1, "big", 1, 3000);
  queue_job_parts(s, Priority::kNormal, 2, "small", 1, 10);
  ASSERT_TRUE(s.head(1));
  s.refused();  // the budget said no to 3000 bytes
  EXPECT_FALSE(s.head(1)) << "retried without anything having changed";
  EXPECT_FALSE(s.head(2)) << "a second slot does not let the small partition jump the queue";
  s.changed();  // e.g. a reservation was returned
  auto h = s.head(1);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->bytes, 3000u) << "after the change the same head is tried again";
  // A new partition queued behind it is also a change, but the head stays the head.
  s.refused();
  queue_job_parts(s, Priority::kLow, 3, "later", 1, 1);
  EXPECT_EQ(s.head(1)->bytes, 3000u);
  // A higher-priority arrival becomes the head.
  queue_job_parts(s, Priority::kCritical, 4, "winning", 1, 5);
  EXPECT_EQ(s.head(1)->bytes, 5u);
}

TEST(Scheduler, KeyWaitingForMemoryGoesFirstWhenPartitionsWouldMakeRoom) {
  const std::uint64_t G = 1u << 30;
  // 4 GiB budget, no key loaded, a 3 GiB key load blocked: partitions must not take the memory the
  // key will get once running partitions drain.
  EXPECT_TRUE(yield_to_key({4 * G, 0, 3 * G}));
  // The same key when 2 GiB are already held by other keys: it cannot fit even with every
  // partition gone, so waiting for it would only stall the partitions.
  EXPECT_FALSE(yield_to_key({4 * G, 2 * G, 3 * G}));
  // Nothing waiting.
  EXPECT_FALSE(yield_to_key({4 * G, 0, 0}));
  // Exactly the room that is left.
  EXPECT_TRUE(yield_to_key({4 * G, G, 3 * G}));
}

TEST(Scheduler, DropRemovesAFinishedJobsQueuedWork) {
  Sched s;
  s.queue_job(RunKey::of(Priority::kNormal, 1), "a");
  s.queue_job(RunKey::of(Priority::kNormal, 2), "b");
  queue_job_parts(s, Priority::kNormal, 1, "a", 2);
  queue_job_parts(s, Priority::kNormal, 2, "b", 1);
  auto dropped =
      s.drop([](const std::string& j) { return j == "a"; }, [](const std::string& t) { return t.rfind("a/", 0) == 0; });
  EXPECT_EQ(dropped, (std::vector<std::string>{"a/0", "a/1"}));
  EXPECT_EQ(*s.next_job(), "b");
  EXPECT_EQ(drain(s), (std::vector<std::string>{"b/0"}));
}

TEST(Scheduler, UrgencyClassesByPriorityAndDomain) {
  UrgencyPolicy p;  // HIGH and above, no lane
  EXPECT_EQ(p.classify(Priority::kNormal, 10), Urgency::kNormal);
  EXPECT_EQ(p.classify(Priority::kHigh, 10), Urgency::kUrgent);
  EXPECT_EQ(p.classify(Priority::kCritical, 27), Urgency::kUrgent);
  p.lane = true;
  p.lane_max_domain_log2 = 22;
  EXPECT_EQ(p.classify(Priority::kCritical, 19), Urgency::kSmall);  // a 32 GiB WinningPoSt
  EXPECT_EQ(p.classify(Priority::kCritical, 22), Urgency::kSmall);
  EXPECT_EQ(p.classify(Priority::kHigh, 27), Urgency::kUrgent);  // a 32 GiB WindowPoSt
  EXPECT_EQ(p.classify(Priority::kLow, 10), Urgency::kNormal);
  p.threshold = Priority::kCritical;
  EXPECT_EQ(p.classify(Priority::kHigh, 10), Urgency::kNormal);
  EXPECT_TRUE(p.urgent(RunKey::of(Priority::kCritical, 7, 3)));
  EXPECT_FALSE(p.urgent(RunKey::of(Priority::kHigh, 7, 3)));
  p.threshold.reset();
  EXPECT_EQ(p.classify(Priority::kCritical, 10), Urgency::kNormal);
}

TEST(Scheduler, PoolsAreOwnOrLowerAndHeadroomIsTheUrgenciesAbove) {
  // A partition takes its own pool first, then the next lower one with a free slot.
  EXPECT_EQ(pick_pool(Urgency::kSmall, {1, 1, 1}), Urgency::kSmall);
  EXPECT_EQ(pick_pool(Urgency::kSmall, {1, 1, 0}), Urgency::kUrgent);
  EXPECT_EQ(pick_pool(Urgency::kSmall, {1, 0, 0}), Urgency::kNormal);
  EXPECT_EQ(pick_pool(Urgency::kUrgent, {0, 0, 1}), std::nullopt);  // never a higher one
  EXPECT_EQ(pick_pool(Urgency::kNormal, {0, 5, 5}), std::nullopt);
  EXPECT_EQ(pick_pool(Urgency::kNormal, {2, 0, 0}), Urgency::kNormal);
  const PerUrgency64 room{0, 300, 20};
  EXPECT_EQ(keep_free(Urgency::kNormal, room, true), 320u);
  EXPECT_EQ(keep_free(Urgency::kUrgent, room, true), 20u);
  EXPECT_EQ(keep_free(Urgency::kSmall, room, true), 0u);
  EXPECT_EQ(keep_free(Urgency::kNormal, room, false), 0u);  // a lone partition may use everything
}

TEST(Scheduler, LaneOrDevice) {
  EXPECT_FALSE(to_lane(Urgency::kUrgent, false, 0, 3));  // large: the device, at the next boundary
  EXPECT_FALSE(to_lane(Urgency::kNormal, false, 0, 0));
  EXPECT_TRUE(to_lane(Urgency::kSmall, false, 1, 0));  // the GPU lane, even beside an idle device
  // The CPU lane only while no device is free for it.
  EXPECT_TRUE(to_lane(Urgency::kSmall, true, 0, 0));
  EXPECT_FALSE(to_lane(Urgency::kSmall, true, 1, 0));
  EXPECT_TRUE(to_lane(Urgency::kSmall, true, 1, 1));  // the idle device has queued work first
  EXPECT_FALSE(to_lane(Urgency::kSmall, true, 2, 1));
}

TEST(Scheduler, UrgentPartitionsUseTheirPoolsAndSmallOnesPassALargeHead) {
  Sched s;
  // A large urgent WindowPoSt partition is the main queue's head; a small urgent WinningPoSt of the
  // same priority arrives after it, and a NORMAL one.
  s.queue_partition(RunKey::of(Priority::kHigh, 1), 500, "wpost/0", Urgency::kUrgent);
  s.queue_partition(RunKey::of(Priority::kHigh, 2), 5, "winning/0", Urgency::kSmall);
  s.queue_partition(RunKey::of(Priority::kNormal, 3), 50, "porep/0", Urgency::kNormal);
  // Every pool full but the normal one: the small partition goes first, into the normal pool.
  auto h = s.head(PerUrgency32{1, 0, 0});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->bytes, 5u);
  EXPECT_EQ(h->pool, Urgency::kNormal);
  // Its reservation is refused: the main queue's head is tried while the small one waits.
  s.refused(*h);
  h = s.head(PerUrgency32{1, 1, 1});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->bytes, 500u);
  EXPECT_EQ(h->pool, Urgency::kUrgent);
  EXPECT_EQ(*s.take(*h), "wpost/0");
  // Memory came back: the small one may take the urgent pool (the next lower one: its own is full).
  s.changed();
  h = s.head(PerUrgency32{0, 1, 0});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->bytes, 5u);
  EXPECT_EQ(h->pool, Urgency::kUrgent);
  EXPECT_EQ(*s.take(*h), "winning/0");
  EXPECT_FALSE(s.head(PerUrgency32{0, 1, 1}));  // porep/0 needs a normal slot
  EXPECT_EQ(s.head(PerUrgency32{1, 0, 0})->bytes, 50u);
  EXPECT_EQ(s.queued_partitions(), 1u);
}

TEST(Scheduler, ReservedPreparersTakeOnlyTheirLevel) {
  Sched s;
  s.queue_job(RunKey::of(Priority::kNormal, 1), "porep");
  EXPECT_FALSE(s.has_jobs(Priority::kHigh));
  EXPECT_FALSE(s.next_job(Priority::kHigh));
  s.queue_job(RunKey::of(Priority::kHigh, 2), "wpost");
  s.queue_job(RunKey::of(Priority::kCritical, 3), "winning");
  EXPECT_EQ(*s.next_job(Priority::kCritical), "winning");
  EXPECT_FALSE(s.next_job(Priority::kCritical));
  EXPECT_EQ(*s.next_job(Priority::kHigh), "wpost");
  EXPECT_EQ(*s.next_job(), "porep");
}

TEST(Scheduler, Admission) {
  EXPECT_TRUE(admit(true, 0, 1));
  auto full = admit(true, 4, 4);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error(), "too many unfinished jobs (4); try again later");
  EXPECT_EQ(full.code(), ErrorCode::kResourceExhausted);  // the server's RESOURCE_EXHAUSTED
  auto closing = admit(false, 0, 4);
  ASSERT_FALSE(closing);
  EXPECT_NE(closing.error().find("shutting down"), std::string::npos);
  EXPECT_EQ(closing.code(), ErrorCode::kUnavailable);  // UNAVAILABLE
}

// The kind table: every name, label, priority and message derives from the rows.
TEST(KindRegistry, BuiltinRowsDriveNamesPrioritiesAndMessages) {
  KindRegistry r;
  kinds::register_builtin_kinds(r);
  ASSERT_EQ(r.rows().size(), 5u);
  EXPECT_EQ(r.name(1), "porep-c2");
  EXPECT_EQ(r.label(4), "winning_post");
  EXPECT_EQ(r.name(7), "kind-7");
  EXPECT_EQ(r.priority(0, 4), Priority::kCritical);
  EXPECT_EQ(r.priority(0, 3), Priority::kHigh);
  EXPECT_EQ(r.priority(0, 1), Priority::kNormal);
  EXPECT_EQ(r.priority(1, 4), Priority::kLow);  // an explicit priority wins over the kind's default
  EXPECT_EQ(r.priority(9, 4), Priority::kNormal);
  EXPECT_EQ(r.unknown_kind_message(7),
            "unknown proof_kind 7 (expected 1 POREP_SEAL_COMMIT, 2 SNAP_DEALS_UPDATE, 3 WINDOW_POST_PARTITION, "
            "4 WINNING_POST or 1000 GENERIC_GROTH16)");
  ASSERT_TRUE(r.find(std::string_view("WPOST")));
  EXPECT_EQ(r.find(std::string_view("wpost"))->wire, 3u);
  EXPECT_EQ(r.find(std::string_view("seal-commit"))->wire, 1u);
  EXPECT_FALSE(r.find(std::string_view("porep-c3")));
  // One loader per Filecoin family, none for generic-groth16.
  EXPECT_EQ(r.loaders().size(), 4u);
  // A second row with a taken wire value or name is refused.
  KindRow dup = *r.find(1);
  EXPECT_FALSE(r.add(dup));
  dup.wire = 77;
  EXPECT_FALSE(r.add(dup));  // name taken
  dup.name = "other";
  dup.aliases = {"snap"};
  EXPECT_FALSE(r.add(dup));  // alias taken
  dup.aliases = {};
  EXPECT_TRUE(r.add(dup));
  EXPECT_EQ(r.name(77), "other");
}

// The registered proof a tool sends when given none, and the names each kind's row knows.
TEST(KindRegistry, RowsCarryTheirDefaultRegisteredProofAndItsNames) {
  KindRegistry r;
  kinds::register_builtin_kinds(r);
  EXPECT_EQ(r.find(1)->default_registered_proof, 0u);   // PoRep: the C1 carries it
  EXPECT_EQ(r.find(2)->default_registered_proof, 3u);   // SnapDeals 32 GiB
  EXPECT_EQ(r.find(3)->default_registered_proof, 13u);  // StackedDrgWindow32GiBV1_1
  EXPECT_EQ(r.find(4)->default_registered_proof, 3u);   // StackedDrgWinning32GiBV1
  EXPECT_FALSE(r.find(1)->registered_proof_by_name);
  EXPECT_FALSE(r.find(1000)->registered_proof_by_name);
  EXPECT_EQ(*r.find(3)->registered_proof_by_name("StackedDrgWindow2KiBV1_1"), 10u);
  EXPECT_EQ(*r.find(4)->registered_proof_by_name("StackedDrgWinning64GiBV1"), 4u);
  EXPECT_EQ(*r.find(2)->registered_proof_by_name("StackedDrg32GiBV1"), 3u);
  EXPECT_FALSE(r.find(3)->registered_proof_by_name("StackedDrgWindow3GiBV1_1"));
}

}  // namespace
}  // namespace cuzk::engine
