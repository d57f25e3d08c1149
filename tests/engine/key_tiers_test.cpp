// The plan across keys (engine/key_tiers.hpp), read as its rules: which tier each preloaded key's
// copy takes on which card, deadline-bound keys first. Sizes are the 32 GiB keys' (GiB, rounded):
// WindowPoSt resident 57 (file 60,780,374,232 bytes, bench/RESULTS_post.md), PoRep 44, WinningPoSt 0.2;
// a 2^27 proof's workspace as the CUDA backend reserves it (512 bytes per domain element, 64 GiB) plus
// a ~9 GiB shape; streamed copies pin the whole key (pinned) or H and the staging ring (file, ~16 GiB).
#include "engine/key_tiers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cuzk::engine {
namespace {

using groth16::CopyForm;
constexpr std::uint64_t GiB = std::uint64_t(1) << 30;

TierKey wpost32(std::vector<std::uint32_t> devices = {0}) {
  return {"wpost-32g", true, std::move(devices), {57 * GiB, 73 * GiB, 57 * GiB, 16 * GiB}};
}
TierKey porep32(std::vector<std::uint32_t> devices = {0}) {
  return {"porep-32g", false, std::move(devices), {44 * GiB, 73 * GiB, 44 * GiB, 16 * GiB}};
}
TierKey winning32(std::vector<std::uint32_t> devices = {0}) {
  return {"winning-32g", true, std::move(devices), {GiB / 5, GiB, GiB / 5, 0}};
}

CopyForm form_of(const TierPlan& p, const std::string& id, std::uint32_t device = 0) {
  const TierChoice* c = p.find(id, device);
  EXPECT_NE(c, nullptr) << id << " on device " << device;
  return c ? c->form : CopyForm::kAny;
}

TEST(KeyTiers, OnAnH200ThePoStKeysAreResidentAndPoRepIsStreamedWhateverThePreloadOrder) {
  const std::vector<TierDevice> h200 = {{0, 139 * GiB}};
  for (auto keys : {std::vector<TierKey>{porep32(), wpost32(), winning32()},
                    std::vector<TierKey>{winning32(), wpost32(), porep32()}}) {
    const TierPlan p = plan_key_tiers(h200, keys, 100 * GiB);
    EXPECT_EQ(p.key_order(), (std::vector<std::string>{"winning-32g", "wpost-32g", "porep-32g"}));
    EXPECT_EQ(form_of(p, "winning-32g"), CopyForm::kResident);
    EXPECT_EQ(form_of(p, "wpost-32g"), CopyForm::kResident);
    EXPECT_EQ(form_of(p, "porep-32g"), CopyForm::kPinned);
    const std::string& why = p.find("porep-32g", 0)->reason;
    EXPECT_NE(why.find("streamed from pinned memory (planned after the deadline-bound keys)"), std::string::npos)
        << why;
    EXPECT_NE(why.find("> 139.00 GiB usable"), std::string::npos) << why;
    EXPECT_NE(p.find("wpost-32g", 0)->reason.find("resident (deadline-bound, planned first)"), std::string::npos);
  }
}

TEST(KeyTiers, AloneThePoRepKeyIsResidentOnAnH200) {
  const std::vector<TierDevice> h200 = {{0, 139 * GiB}};
  const std::vector<TierKey> keys = {porep32()};
  EXPECT_EQ(form_of(plan_key_tiers(h200, keys, 100 * GiB), "porep-32g"), CopyForm::kResident);
}

TEST(KeyTiers, OnAnH100TheWindowKeyIsStreamedAndFromItsFileWhenItsPinnedCopyDoesNotFitTheHost) {
  const std::vector<TierDevice> h100 = {{0, 79 * GiB}};
  const std::vector<TierKey> keys = {wpost32()};
  EXPECT_EQ(form_of(plan_key_tiers(h100, keys, 100 * GiB), "wpost-32g"), CopyForm::kPinned);
  // 128 GiB hosts with the key on a tmpfs: its 57 GiB pinned copy does not fit, H and staging do.
  const TierPlan p = plan_key_tiers(h100, keys, 40 * GiB);
  EXPECT_EQ(form_of(p, "wpost-32g"), CopyForm::kFile);
  EXPECT_NE(p.find("wpost-32g", 0)->reason.find("its pinned copy 57.00 GiB > 40.00 GiB of host memory left"),
            std::string::npos)
      << p.find("wpost-32g", 0)->reason;
}

TEST(KeyTiers, OnA24GiBCardOnlyTheWinningKeyIsResidentAndThePinnedRoomGoesDeadlineFirst) {
  const std::vector<TierDevice> card = {{0, 24 * GiB}};
  // The WinningPoSt key's proof is small; the largest proof planned on the card is a 2^27 one.
  std::vector<TierKey> keys = {porep32(), wpost32(), winning32()};
  keys[0].cost.proof_bytes = keys[1].cost.proof_bytes = 12 * GiB;  // rows on the host: 12 GiB
  const TierPlan p = plan_key_tiers(card, keys, 60 * GiB);
  EXPECT_EQ(form_of(p, "winning-32g"), CopyForm::kResident);
  EXPECT_EQ(form_of(p, "wpost-32g"), CopyForm::kPinned);  // 57 of the 60 GiB
  EXPECT_EQ(form_of(p, "porep-32g"), CopyForm::kFile);    // 3 GiB left: not its 16
  EXPECT_NE(p.find("porep-32g", 0)->reason.find("no tier fits"), std::string::npos) << p.find("porep-32g", 0)->reason;
}

TEST(KeyTiers, TheLargestProofIsReservedForEveryKeyResidentOrNot) {
  const std::vector<TierDevice> card = {{0, 100 * GiB}};
  const std::vector<TierKey> keys = {{"a", false, {0}, {10 * GiB, 10 * GiB, 10 * GiB, 0}},
                                     {"b", false, {0}, {10 * GiB, 85 * GiB, 10 * GiB, 0}}};
  const TierPlan p = plan_key_tiers(card, keys, 100 * GiB);
  EXPECT_EQ(form_of(p, "a"), CopyForm::kResident);  // 10 + 85 <= 100
  EXPECT_EQ(form_of(p, "b"), CopyForm::kPinned);    // 10 + 10 + 85 > 100
}

TEST(KeyTiers, EachDeviceIsPlannedAloneButThePinnedRoomIsShared) {
  const std::vector<TierDevice> two = {{0, 139 * GiB}, {1, 79 * GiB}};
  const std::vector<TierKey> keys = {porep32({0, 1}), wpost32({0, 1})};
  const TierPlan p = plan_key_tiers(two, keys, 70 * GiB);
  EXPECT_EQ(form_of(p, "wpost-32g", 0), CopyForm::kResident);
  EXPECT_EQ(form_of(p, "wpost-32g", 1), CopyForm::kPinned);  // 57 of the host's 70 GiB
  EXPECT_EQ(form_of(p, "porep-32g", 0), CopyForm::kFile);    // 13 GiB left: not its 44 pinned, not its 16
  EXPECT_EQ(form_of(p, "porep-32g", 1), CopyForm::kFile);
  EXPECT_EQ(p.choices.size(), 4u);
}

TEST(KeyTiers, ALaneCopyOnTheSameDeviceCountsTwice) {
  const std::vector<TierDevice> card = {{0, 17 * GiB}};
  const std::vector<TierKey> keys = {{"small", true, {0, 0}, {6 * GiB, 6 * GiB, 6 * GiB, 0}}};
  const TierPlan p = plan_key_tiers(card, keys, 100 * GiB);
  ASSERT_EQ(p.choices.size(), 2u);
  EXPECT_EQ(p.choices[0].form, CopyForm::kResident);  // 6 + 6
  EXPECT_EQ(p.choices[1].form, CopyForm::kPinned);    // 6 + 6 + 6 > 17: the lane's copy is streamed
}

TEST(KeyTiers, AKeyOnADeviceThePlanDoesNotKnowGetsNoChoice) {
  const std::vector<TierDevice> card = {{0, 139 * GiB}};
  const std::vector<TierKey> keys = {wpost32({3})};
  const TierPlan p = plan_key_tiers(card, keys, 100 * GiB);
  EXPECT_TRUE(p.choices.empty());
  EXPECT_EQ(p.find("wpost-32g", 3), nullptr);
}

TEST(KeyTiers, AKeyWithoutAFileIsPinnedWhenNothingFitsAndTheReasonSaysSo) {
  const std::vector<TierDevice> card = {{0, 10 * GiB}};
  const std::vector<TierKey> keys = {{"zkey", false, {0}, {8 * GiB, 4 * GiB, 8 * GiB, 0}}};
  const TierPlan p = plan_key_tiers(card, keys, 2 * GiB);
  EXPECT_EQ(form_of(p, "zkey"), CopyForm::kPinned);
  EXPECT_NE(p.find("zkey", 0)->reason.find("no tier fits"), std::string::npos);
  EXPECT_NE(p.find("zkey", 0)->reason.find("8.00 GiB pinned > 2.00 GiB"), std::string::npos)
      << p.find("zkey", 0)->reason;
}

}  // namespace
}  // namespace cuzk::engine
