#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/memory_budget.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

TEST(MemoryBudget, ReserveAndRelease) {
  MemoryBudget b(1000);
  auto r1 = b.try_reserve(600);
  ASSERT_TRUE(r1);
  EXPECT_EQ(b.used(), 600u);
  EXPECT_FALSE(b.try_reserve(500));
  r1->release(200);
  EXPECT_EQ(b.used(), 400u);
  auto r2 = b.try_reserve(500);
  ASSERT_TRUE(r2);
  EXPECT_EQ(b.used(), 900u);
  EXPECT_EQ(b.peak(), 900u);
  r1.reset();
  EXPECT_EQ(b.used(), 500u);
  {
    Reservation moved = std::move(*r2);
    EXPECT_EQ(b.used(), 500u);
  }
  EXPECT_EQ(b.used(), 0u);
  EXPECT_EQ(b.peak(), 900u);
}

// keep_free: the headroom lower priorities leave for urgent partitions; the evictor is asked for it.
TEST(MemoryBudget, KeepFreeLeavesHeadroom) {
  MemoryBudget b(1000);
  auto r1 = b.try_reserve(300, MemoryBudget::kPartition, true, 400);
  ASSERT_TRUE(r1);
  EXPECT_FALSE(b.try_reserve(301, MemoryBudget::kPartition, true, 400));  // 300 + 301 + 400 > 1000
  auto r2 = b.try_reserve(300, MemoryBudget::kPartition, true, 400);
  ASSERT_TRUE(r2);  // exactly 400 left
  EXPECT_FALSE(b.try_reserve(1, MemoryBudget::kPartition, true, 400));
  auto urgent = b.try_reserve(400, MemoryBudget::kPartition, true, 0);  // the urgent one takes it
  ASSERT_TRUE(urgent);
  EXPECT_EQ(b.used(), 1000u);
  EXPECT_FALSE(b.try_reserve(1, MemoryBudget::kPartition, true, 2000));  // more than the total: no evictor call
  urgent.reset();
  std::uint64_t asked = 0;
  auto key = b.try_reserve(100, MemoryBudget::kSrs);
  ASSERT_TRUE(key);
  b.set_evictor([&](std::uint64_t needed) {
    asked = needed;
    key.reset();
    return std::uint64_t(100);
  });
  auto r3 = b.try_reserve(100, MemoryBudget::kPartition, true, 300);  // 700 used: 100 short, the key goes
  ASSERT_TRUE(r3);
  EXPECT_EQ(asked, 100u);
  EXPECT_EQ(b.used(), 700u);
}

TEST(MemoryBudget, MoreThanTotalFailsAtOnce) {
  MemoryBudget b(1000);
  EXPECT_FALSE(b.try_reserve(1001));
  auto r = b.reserve(1001, MemoryBudget::kSrs, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("whole memory budget"), std::string::npos) << r.error();
}

TEST(MemoryBudget, BlockingReserveIsFifoAndWakesOnRelease) {
  MemoryBudget b(1000);
  auto hold = b.try_reserve(1000);
  ASSERT_TRUE(hold);
  std::vector<int> order;
  std::mutex mu;
  std::vector<std::thread> ts;
  // Each waiter needs 600 of 1000: only one fits at a time, so the grant order is observable.
  for (int i = 0; i < 3; ++i) {
    ts.emplace_back([&, i] {
      auto r = b.reserve(600, MemoryBudget::kSrs, {});
      ASSERT_TRUE(r) << r.error();
      EXPECT_EQ(b.used(MemoryBudget::kSrs), 600u);
      {
        std::lock_guard<std::mutex> g(mu);
        order.push_back(i);
      }
      r->reset();
    });
    ASSERT_TRUE(test::eventually([&] { return b.waiters() == std::uint32_t(i + 1); }));
  }
  // A non-jumping try_reserve may not pass the queue; a jumping one may.
  EXPECT_FALSE(b.try_reserve(1, MemoryBudget::kPartition, false));
  EXPECT_EQ(b.head_waiter_bytes(), 600u);
  hold.reset();
  for (auto& t : ts) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(b.used(), 0u);
  EXPECT_EQ(b.peak(), 1000u);
  EXPECT_TRUE(b.try_reserve(100, MemoryBudget::kPartition, true));
}

TEST(MemoryBudget, CancelAndDeadline) {
  MemoryBudget b(100);
  auto hold = b.try_reserve(100);
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    auto r = b.reserve(50, MemoryBudget::kSrs, [&] { return cancel.load(); });
    EXPECT_FALSE(r);
    EXPECT_NE(r.error().find("cancelled"), std::string::npos);
  });
  ASSERT_TRUE(test::eventually([&] { return b.waiters() == 1; }));
  cancel = true;
  t.join();
  EXPECT_EQ(b.waiters(), 0u);
  auto r = b.reserve(50, MemoryBudget::kSrs, {}, std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("timed out"), std::string::npos);
}

TEST(MemoryBudget, EvictorAndListeners) {
  MemoryBudget b(100);
  auto cached = std::make_shared<std::optional<Reservation>>(b.try_reserve(80, MemoryBudget::kSrs));
  int evictions = 0;
  b.set_evictor([&, cached](std::uint64_t needed) -> std::uint64_t {
    ++evictions;
    if (!*cached) return 0;
    std::uint64_t n = (*cached)->bytes();
    cached->reset();
    return n;
  });
  std::atomic<int> notified{0};
  b.add_listener([&] { notified++; });
  auto r = b.try_reserve(50);  // does not fit until the evictor frees the cached 80
  ASSERT_TRUE(r);
  EXPECT_EQ(evictions, 1);
  EXPECT_GE(notified.load(), 1);
  EXPECT_EQ(b.used(), 50u);
}

// The charge of memory held for admitted work (the daemon's pinned key copies): a token that holds a
// reservation until it is dropped, ahead of queued reserve() calls, and a one-line error when full.
TEST(MemoryBudget, ChargeIsATokenThatPassesTheQueue) {
  MemoryBudget b(100);
  auto t1 = b.charge(60, MemoryBudget::kSrs);
  ASSERT_TRUE(t1) << t1.error();
  EXPECT_EQ(b.used(MemoryBudget::kSrs), 60u);
  auto full = b.charge(60, MemoryBudget::kSrs);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error(), "the memory budget has 40 B free of 100 B, 60 B needed");
  // a blocked reserve() waits for 50; a charge that fits still goes first
  std::thread waiter([&] { EXPECT_TRUE(b.reserve(50, MemoryBudget::kPartition, {})); });
  while (b.waiters() == 0) std::this_thread::sleep_for(1ms);
  auto t2 = b.charge(30, MemoryBudget::kSrs);
  EXPECT_TRUE(t2) << t2.error();
  EXPECT_EQ(b.used(), 90u);
  t1->reset();  // dropping the token returns its bytes: the waiter gets its 50
  if (t2) t2->reset();
  waiter.join();
  EXPECT_EQ(b.used(), 0u);
}

}  // namespace
}  // namespace cuzk::engine
