#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "engine/kinds/builtin_kinds.hpp"
#include "engine/srs_manager.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

SrsManager::Options opts(std::chrono::milliseconds idle = 0ms) {
  SrsManager::Options o;
  KindRegistry kinds;
  kinds::register_builtin_kinds(kinds);
  o.loaders = kinds.loaders();
  o.param_cache = "/nonexistent";
  o.min_idle = idle;
  return o;
}

TEST(SrsManager, RegisterLoadRefcountEvict) {
  MemoryBudget budget(64u << 20);
  SrsManager srs(budget, opts());
  ASSERT_TRUE(srs.register_zkey("mulchain", test::zkey_of("mulchain")));
  auto list = srs.list();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].tier, SrsTier::kCold);
  EXPECT_EQ(budget.used(), 0u);

  auto p = srs.preload("mulchain");
  ASSERT_TRUE(p) << p.error();
  EXPECT_FALSE(p->already_loaded);
  EXPECT_TRUE(srs.preload("mulchain")->already_loaded);
  list = srs.list();
  EXPECT_EQ(list[0].tier, SrsTier::kHost);
  EXPECT_GT(list[0].bytes, 0u);
  EXPECT_EQ(budget.used(MemoryBudget::kSrs), list[0].bytes);
  EXPECT_EQ(srs.loaded_bytes(), list[0].bytes);

  {
    auto lease = srs.acquire("mulchain");
    ASSERT_TRUE(lease) << lease.error();
    EXPECT_EQ((*lease)->n_vars, 203u);
    EXPECT_EQ((*lease)->n_public, 2u);
    EXPECT_TRUE((*lease)->has_proving_key);
    auto lease2 = srs.acquire("mulchain");
    EXPECT_EQ(srs.list()[0].refs, 2u);
    auto e = srs.evict("mulchain");
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().find("in use by 2 job(s)"), std::string::npos) << e.error();
  }
  EXPECT_EQ(srs.list()[0].refs, 0u);
  auto e = srs.evict("mulchain");
  ASSERT_TRUE(e) << e.error();
  EXPECT_TRUE(e->was_loaded);
  EXPECT_GT(e->freed_bytes, 0u);
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(srs.list()[0].tier, SrsTier::kCold);
  auto again = srs.evict("mulchain");
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->was_loaded);
}

TEST(SrsManager, UnknownAndBadIds) {
  MemoryBudget budget(64u << 20);
  SrsManager srs(budget, opts());
  auto a = srs.acquire("nope");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().find("unknown circuit id \"nope\""), std::string::npos) << a.error();
  EXPECT_FALSE(srs.register_zkey("porep-32g", test::zkey_of("mulchain")));  // reserved
  EXPECT_FALSE(srs.register_zkey("bad id", test::zkey_of("mulchain")));
  EXPECT_FALSE(srs.register_zkey("x", "/no/such/file.zkey"));
  EXPECT_FALSE(srs.evict("nope"));
  // A Filecoin id is known, resolves to the parameter cache, and fails to load when absent.
  EXPECT_TRUE(srs.known("porep-2k"));
  auto f = srs.acquire("porep-2k");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().find("/nonexistent/"), std::string::npos) << f.error();
  EXPECT_EQ(budget.used(), 0u);
  auto ev = srs.evict("winning-32g");  // known, never loaded
  ASSERT_TRUE(ev);
  EXPECT_FALSE(ev->was_loaded);
}

TEST(SrsManager, ConcurrentAcquireLoadsOnce) {
  MemoryBudget budget(64u << 20);
  SrsManager srs(budget, opts());
  ASSERT_TRUE(srs.register_zkey("bits", test::zkey_of("bits")));
  std::vector<std::thread> ts;
  std::vector<SrsLease> leases(8);
  for (int i = 0; i < 8; ++i) {
    ts.emplace_back([&, i] {
      auto l = srs.acquire("bits");
      ASSERT_TRUE(l) << l.error();
      leases[i] = std::move(*l);
    });
  }
  for (auto& t : ts) t.join();
  auto info = srs.list()[0];
  EXPECT_EQ(info.refs, 8u);
  EXPECT_EQ(budget.used(), info.bytes);  // one copy charged
  for (int i = 1; i < 8; ++i) EXPECT_EQ(&leases[i].key(), &leases[0].key());
  leases.clear();
  EXPECT_EQ(srs.list()[0].refs, 0u);
}

TEST(SrsManager, EvictIdleIsLruAndRespectsMinIdle) {
  MemoryBudget budget(64u << 20);
  SrsManager srs(budget, opts(0ms));
  for (const char* c : {"bits", "linear", "mulchain"}) ASSERT_TRUE(srs.register_zkey(c, test::zkey_of(c)));
  ASSERT_TRUE(srs.preload("bits"));
  std::this_thread::sleep_for(2ms);
  ASSERT_TRUE(srs.preload("linear"));
  std::this_thread::sleep_for(2ms);
  ASSERT_TRUE(srs.preload("mulchain"));
  auto held = srs.acquire("bits");  // in use: never evicted even though least recently used
  ASSERT_TRUE(held);
  auto freed = srs.evict_idle(1);
  EXPECT_GT(freed, 0u);
  auto list = srs.list();  // sorted by id: bits, linear, mulchain
  EXPECT_EQ(list[0].tier, SrsTier::kHost);
  EXPECT_EQ(list[1].tier, SrsTier::kCold);  // the least recently used idle key went first
  EXPECT_EQ(list[2].tier, SrsTier::kHost);

  SrsManager patient(budget, opts(std::chrono::hours(1)));
  ASSERT_TRUE(patient.register_zkey("linear", test::zkey_of("linear")));
  ASSERT_TRUE(patient.preload("linear"));
  EXPECT_EQ(patient.evict_idle(~0ull), 0u);  // not idle long enough
}

TEST(SrsManager, BudgetEvictorMakesRoomForAnotherKey) {
  // Room for about one key: loading the second evicts the idle first through the budget's evictor.
  MemoryBudget probe(1ull << 30);
  SrsManager sizing(probe, opts());
  ASSERT_TRUE(sizing.register_zkey("mulchain", test::zkey_of("mulchain")));
  ASSERT_TRUE(sizing.preload("mulchain"));
  const std::uint64_t one = sizing.list()[0].bytes;
  const std::uint64_t file = std::filesystem::file_size(test::zkey_of("mulchain"));

  MemoryBudget budget(std::max(one, file * 9 / 4 + (1u << 20)) + 1000);
  SrsManager srs(budget, opts());
  budget.set_evictor([&](std::uint64_t n) { return srs.evict_idle(n); });
  ASSERT_TRUE(srs.register_zkey("a", test::zkey_of("mulchain")));
  ASSERT_TRUE(srs.register_zkey("b", test::zkey_of("mulchain")));
  ASSERT_TRUE(srs.preload("a"));
  ASSERT_TRUE(srs.preload("b"));
  auto list = srs.list();
  EXPECT_EQ(list[0].tier, SrsTier::kCold);
  EXPECT_EQ(list[1].tier, SrsTier::kHost);
  EXPECT_LE(budget.peak(), budget.total());
}

// The daemon frees a backend's copies of a key (and their budget charges) in on_unload; every
// way a loaded key is dropped must call it once, with the key still readable and the manager unlocked.
TEST(SrsManager, UnloadHookSeesEveryDroppedKeyOnce) {
  MemoryBudget budget(64u << 20);
  std::vector<std::string> unloaded;
  std::map<std::string, Reservation> backend_copies;  // a backend's extra bytes per key, charged apart
  SrsManager* self = nullptr;
  SrsManager::Options o = opts();
  o.on_unload = [&](const LoadedKey& k) {
    unloaded.push_back(k.id + ":" + std::to_string(k.n_vars));
    EXPECT_GE(self->list().size(), 1u);  // the manager's lock is not held here
    backend_copies.erase(k.id);
  };
  SrsManager srs(budget, o);
  self = &srs;
  budget.set_evictor([&](std::uint64_t n) { return srs.evict_idle(n); });
  for (const char* c : {"bits", "linear"}) ASSERT_TRUE(srs.register_zkey(c, test::zkey_of(c)));
  auto charge = [&](const std::string& id) {
    auto r = budget.try_reserve(1u << 20, MemoryBudget::kSrs);
    ASSERT_TRUE(r);
    backend_copies.emplace(id, std::move(*r));
  };

  ASSERT_TRUE(srs.preload("bits"));
  charge("bits");
  ASSERT_TRUE(srs.evict("bits"));
  ASSERT_EQ(unloaded, (std::vector<std::string>{"bits:141"}));
  EXPECT_EQ(budget.used(), 0u);  // the key and the backend's copy
  ASSERT_TRUE(srs.evict("bits"));  // not loaded: nothing to drop
  EXPECT_EQ(unloaded.size(), 1u);

  ASSERT_TRUE(srs.preload("linear"));
  charge("linear");
  ASSERT_TRUE(srs.register_zkey("linear", test::zkey_of("mulchain")));  // replaces the loaded key
  ASSERT_EQ(unloaded.size(), 2u);
  EXPECT_EQ(unloaded[1], "linear:57");
  EXPECT_EQ(budget.used(), 0u);

  ASSERT_TRUE(srs.preload("bits"));
  charge("bits");
  const std::uint64_t want = budget.total() - budget.used() + 1;  // more than is free while it is loaded
  auto r = budget.try_reserve(want, MemoryBudget::kPartition);
  ASSERT_TRUE(r);  // the evictor dropped the idle key and, through the hook, the backend's copy
  r->reset();
  ASSERT_EQ(unloaded.size(), 3u);
  EXPECT_EQ(unloaded[2], "bits:141");
  EXPECT_TRUE(backend_copies.empty());
  EXPECT_EQ(budget.used(), 0u);
}

TEST(SrsManager, ReRegisterReplaces) {
  MemoryBudget budget(64u << 20);
  SrsManager srs(budget, opts());
  bool replaced = true;
  ASSERT_TRUE(srs.register_zkey("c", test::zkey_of("bits"), &replaced));
  EXPECT_FALSE(replaced);
  ASSERT_TRUE(srs.preload("c"));
  {
    auto lease = srs.acquire("c");
    EXPECT_FALSE(srs.register_zkey("c", test::zkey_of("linear")));  // in use
  }
  ASSERT_TRUE(srs.register_zkey("c", test::zkey_of("linear"), &replaced));
  EXPECT_TRUE(replaced);
  EXPECT_EQ(budget.used(), 0u);
  auto lease = srs.acquire("c");
  ASSERT_TRUE(lease);
  EXPECT_EQ((*lease)->n_vars, 57u);
}

}  // namespace
}  // namespace cuzk::engine
