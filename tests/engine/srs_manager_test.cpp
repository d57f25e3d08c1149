#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "engine/kinds/builtin_kinds.hpp"
#include "engine/srs_manager.hpp"
#include "test_executor.hpp"
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
    EXPECT_EQ((*lease)->format, KeyFormat::kZkey);
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

// One owner (issue 27): an entry holds its copies (one per slot) with their pinned charges, and every
// way a loaded key is dropped — evict, re-registration, the budget's evictor — drops them with it,
// outside the manager's lock, leaving the budget as it was.
SrsManager::Options copy_opts(test::CopyExecutor& ex, std::shared_ptr<Executor> owner, std::vector<BackendSlot> slots) {
  SrsManager::Options o = opts();
  o.executor = std::move(owner);
  o.placement = [slots](const LoadedKey&) { return KeyPlacement{false, slots}; };
  (void)ex;
  return o;
}

TEST(SrsOwnership, TwoDevicesShareOneEntryAndEveryDropTakesTheCopies) {
  MemoryBudget budget(64u << 20);
  auto ex = std::make_shared<test::CopyExecutor>(test::CopyExecutor::Options{true, 1u << 20});
  const std::vector<BackendSlot> two = {{0, false}, {1, false}};
  SrsManager srs(budget, copy_opts(*ex, ex, two));
  budget.set_evictor([&](std::uint64_t n) { return srs.evict_idle(n); });
  for (const char* c : {"bits", "linear"}) ASSERT_TRUE(srs.register_zkey(c, test::zkey_of(c)));

  ASSERT_TRUE(srs.preload("bits"));
  EXPECT_EQ(ex->ledger->alive.load(), 2);
  auto list = srs.list();
  ASSERT_EQ(list[0].id, "bits");
  EXPECT_EQ(list[0].tier, SrsTier::kPinned);  // both copies streamed
  ASSERT_EQ(list[0].copies.size(), 2u);
  EXPECT_EQ(list[0].copies[0].slot, (BackendSlot{0, false}));
  EXPECT_EQ(list[0].copies[1].slot, (BackendSlot{1, false}));
  EXPECT_EQ(list[0].copies[1].host_bytes, 1u << 20);
  EXPECT_FALSE(list[0].copies[1].from_file);
  const std::uint64_t key_bytes = budget.used() - 2 * (1u << 20);
  EXPECT_GT(key_bytes, 0u);
  EXPECT_EQ(list[0].bytes, budget.used());  // the key and both pinned charges
  {
    auto lease = srs.acquire("bits");
    ASSERT_TRUE(lease) << lease.error();
    ASSERT_NE(lease->copies().find({1, false}), nullptr);
    EXPECT_EQ(lease->copies().find({1, false})->device(), 1);
    EXPECT_EQ(lease->copies().find({0, true}), nullptr);
    // In use: neither an explicit eviction nor the evictor drops it or its copies.
    auto ev = srs.evict("bits");
    ASSERT_FALSE(ev);
    EXPECT_NE(ev.error().find("in use by 1 job"), std::string::npos) << ev.error();
    EXPECT_EQ(srs.evict_idle(~0ull), 0u);
    EXPECT_EQ(ex->ledger->alive.load(), 2);
  }
  auto ev = srs.evict("bits");
  ASSERT_TRUE(ev) << ev.error();
  EXPECT_EQ(ev->freed_bytes, key_bytes + 2 * (1u << 20));
  EXPECT_EQ(ex->ledger->alive.load(), 0);
  EXPECT_EQ(budget.used(), 0u);

  ASSERT_TRUE(srs.preload("linear"));
  EXPECT_EQ(ex->ledger->alive.load(), 2);
  ASSERT_TRUE(srs.register_zkey("linear", test::zkey_of("mulchain")));  // replaces the loaded key
  EXPECT_EQ(ex->ledger->alive.load(), 0);
  EXPECT_EQ(budget.used(), 0u);

  ASSERT_TRUE(srs.preload("bits"));
  const std::uint64_t want = budget.total() - budget.used() + 1;  // more than is free while it is loaded
  auto r = budget.try_reserve(want, MemoryBudget::kPartition);
  ASSERT_TRUE(r);  // the evictor dropped the idle key, and its copies with it
  EXPECT_EQ(ex->ledger->alive.load(), 0);
  r->reset();
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(ex->ledger->made.load(), 6);
}

// A copy that cannot be made fails the load with the slot and the reason, and leaves nothing: no
// copy alive, no charge, the key cold (a later acquire tries again).
// A copy streamed from the key's file says so in the listing (/status copies[].from_file); its host
// bytes are what it keeps pinned.
TEST(SrsOwnership, ACopyStreamedFromItsFileIsListedAsSuch) {
  MemoryBudget budget(64u << 20);
  test::CopyExecutor::Options co;
  co.streamed = true;
  co.from_file = true;
  auto ex = std::make_shared<test::CopyExecutor>(co);
  SrsManager srs(budget, copy_opts(*ex, ex, {{0, false}}));
  ASSERT_TRUE(srs.register_zkey("bits", test::zkey_of("bits")));
  ASSERT_TRUE(srs.preload("bits"));
  auto list = srs.list();
  ASSERT_EQ(list[0].copies.size(), 1u);
  EXPECT_EQ(list[0].copies[0].tier, SrsTier::kPinned);
  EXPECT_TRUE(list[0].copies[0].from_file);
  EXPECT_EQ(list[0].copies[0].host_bytes, co.copy_bytes);
}

// Preloaded together, keys are placed by one plan (key_tiers.hpp): the deadline-bound key's copy is
// made first and resident, the other one streamed, whatever the order asked; the listing (/status)
// says which form was planned and why; jobs find the copies.
TEST(SrsOwnership, PreloadedKeysArePlacedByOnePlanDeadlineBoundFirst) {
  std::map<std::string, std::uint32_t> aux;  // the zkeys' aux counts tell the fake executor which is which
  {
    MemoryBudget b(64u << 20);
    SrsManager plain(b, opts());
    for (const char* c : {"bits", "linear"}) {
      ASSERT_TRUE(plain.register_zkey(c, test::zkey_of(c)));
      auto lease = plain.acquire(c);
      ASSERT_TRUE(lease) << lease.error();
      aux[c] = lease->key().pk.num_aux;
    }
    ASSERT_NE(aux["bits"], aux["linear"]);
  }
  MemoryBudget budget(64u << 20);
  test::CopyExecutor::Options co;
  co.usable_device_bytes = 100u << 20;
  co.cost_by_aux[aux["bits"]] = {60u << 20, 30u << 20, 1u << 20, 0};
  co.cost_by_aux[aux["linear"]] = {60u << 20, 30u << 20, 2u << 20, 0};
  auto ex = std::make_shared<test::CopyExecutor>(co);
  SrsManager::Options o = copy_opts(*ex, ex, {{0, false}});
  o.deadline_bound = [](std::string_view id) { return id == "linear"; };
  SrsManager srs(budget, std::move(o));
  for (const char* c : {"bits", "linear"}) ASSERT_TRUE(srs.register_zkey(c, test::zkey_of(c)));

  const auto out = srs.preload_planned({"bits", "linear", "bits"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].first, "bits");
  EXPECT_EQ(out[1].first, "linear");
  for (const auto& [id, r] : out) ASSERT_TRUE(r) << id << ": " << r.error();
  EXPECT_FALSE(out[0].second->already_loaded);
  EXPECT_TRUE(out[2].second->already_loaded);
  EXPECT_EQ(ex->upload_order, (std::vector<std::uint32_t>{aux["linear"], aux["bits"]}));  // the plan's order
  auto list = srs.list();
  ASSERT_EQ(list.size(), 2u);
  ASSERT_EQ(list[0].id, "bits");
  ASSERT_EQ(list[0].copies.size(), 1u);
  ASSERT_EQ(list[1].copies.size(), 1u);
  EXPECT_EQ(list[1].copies[0].tier, SrsTier::kDevice);
  EXPECT_EQ(list[1].copies[0].planned, groth16::CopyForm::kResident);
  EXPECT_NE(list[1].copies[0].reason.find("resident (deadline-bound, planned first)"), std::string::npos)
      << list[1].copies[0].reason;
  EXPECT_EQ(list[0].copies[0].tier, SrsTier::kPinned);  // 60 + 60 + 30 > 100
  EXPECT_EQ(list[0].copies[0].planned, groth16::CopyForm::kPinned);
  EXPECT_EQ(list[0].copies[0].host_bytes, 1u << 20);
  EXPECT_NE(list[0].copies[0].reason.find("planned after the deadline-bound keys"), std::string::npos)
      << list[0].copies[0].reason;
  auto lease = srs.acquire("bits");
  ASSERT_TRUE(lease) << lease.error();
  EXPECT_NE(lease->copies().find({0, false}), nullptr);
}

// Without prices (an executor with one form, e.g. the CPU backend's) preload_planned is preload().
TEST(SrsOwnership, PreloadPlannedWithoutPricesPlacesEachKeyAlone) {
  MemoryBudget budget(64u << 20);
  auto ex = std::make_shared<test::CopyExecutor>(test::CopyExecutor::Options{true, 1u << 20});
  SrsManager srs(budget, copy_opts(*ex, ex, {{0, false}, {1, false}}));
  for (const char* c : {"bits", "linear"}) ASSERT_TRUE(srs.register_zkey(c, test::zkey_of(c)));
  const auto out = srs.preload_planned({"linear", "bits", "nonexistent-key"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].second);
  EXPECT_TRUE(out[1].second);
  EXPECT_FALSE(out[2].second);
  EXPECT_EQ(ex->ledger->alive.load(), 4);
  for (const auto& info : srs.list())
    for (const auto& c : info.copies) EXPECT_EQ(c.planned, groth16::CopyForm::kAny);
}

TEST(SrsOwnership, RefusedCopiesFailTheLoadCleanly) {
  for (int refused : {0, 1}) {
    SCOPED_TRACE(refused == 0 ? "budget refuses the pinned copy" : "device 1 refuses its copy");
    MemoryBudget budget(8u << 20);
    test::CopyExecutor::Options eo{true, refused == 0 ? (std::uint64_t(1) << 30) : (1u << 20)};
    if (refused == 1) eo.refuse_device = 1;
    auto ex = std::make_shared<test::CopyExecutor>(eo);
    SrsManager srs(budget, copy_opts(*ex, ex, {{0, false}, {1, false}}));
    ASSERT_TRUE(srs.register_zkey("bits", test::zkey_of("bits")));
    auto lease = srs.acquire("bits");
    ASSERT_FALSE(lease);
    EXPECT_NE(lease.error().find("proving key bits: copy for device " + std::string(refused == 0 ? "0" : "1")),
              std::string::npos)
        << lease.error();
    EXPECT_NE(lease.error().find(refused == 0 ? "pinned copy" : "device 1 is full"), std::string::npos)
        << lease.error();
    EXPECT_EQ(ex->ledger->alive.load(), 0);
    EXPECT_EQ(budget.used(), 0u);
    auto list = srs.list();
    EXPECT_EQ(list[0].tier, SrsTier::kCold);
    EXPECT_FALSE(list[0].last_error.empty());
  }
}

// Without an executor (the CPU backend) nothing changes: the key is decoded on the host and holds
// no copies.
TEST(SrsOwnership, HostModelKeepsTheHostKeyAndNoCopies) {
  MemoryBudget budget(64u << 20);
  SrsManager srs(budget, opts());
  ASSERT_TRUE(srs.register_zkey("bits", test::zkey_of("bits")));
  auto lease = srs.acquire("bits");
  ASSERT_TRUE(lease) << lease.error();
  EXPECT_TRUE((*lease)->pk.holds_bases());
  EXPECT_TRUE(lease->copies().items.empty());
  EXPECT_EQ(srs.list()[0].tier, SrsTier::kHost);
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
