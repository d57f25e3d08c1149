// check_c1 accepts sealed sectors of every variant and refuses a C1 with any single corrupted value,
// naming the check that failed (never a proof that does not verify).
#include <gtest/gtest.h>

#include <functional>

#include "sealed_test_util.hpp"
#include "filecoin/porep/porep_job.hpp"

namespace cuzk::filecoin::porep {
namespace {

TEST(VanillaCheck, AcceptsSealedSectorsOfEveryVariant) {
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                           "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}) {
    const auto c1 = test::sealed_c1(name, 3);
    const auto& cfg = porep::porep_config_by_name(name);
    auto st = check_c1(c1, cfg);
    EXPECT_TRUE(st.ok()) << name << ": " << st.error();
  }
}

struct Corruption {
  const char* what;
  std::function<void(porep::C1Output&)> apply;
  const char* expect;  // substring of the error
};

void flip(Bytes32& b, std::size_t byte = 3) { b[byte] ^= 0x01; }

TEST(VanillaCheck, RefusesEverySingleCorruptionNamingTheCheck) {
  const auto good = test::sealed_c1("StackedDrg2KiBV1_1", 5);
  const auto& cfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  ASSERT_TRUE(check_c1(good, cfg).ok());
  const std::vector<Corruption> cases = {
      {"label in the challenged column", [](auto& c) { flip(c.vanilla_proofs[0][0].c_x.rows[1]); }, "c_x"},
      {"label of a DRG parent", [](auto& c) { flip(c.vanilla_proofs[0][1].drg_parents[2].rows[0]); }, "drg_parents[2]"},
      {"label of an expander parent", [](auto& c) { flip(c.vanilla_proofs[0][0].exp_parents[7].rows[0]); },
       "exp_parents[7]"},
      {"tree-D sibling", [](auto& c) { flip(c.vanilla_proofs[0][1].comm_d_proofs.base[2].hashes[0]); },
       "comm_d_proofs"},
      {"tree-D leaf (data)", [](auto& c) { flip(c.vanilla_proofs[0][0].comm_d_proofs.leaf); }, "comm_d_proofs"},
      {"tree-R sibling", [](auto& c) { flip(c.vanilla_proofs[0][0].comm_r_last_proof.base[0].hashes[5]); },
       "comm_r_last_proof"},
      {"tree-R leaf", [](auto& c) { flip(c.vanilla_proofs[0][1].comm_r_last_proof.leaf); }, "comm_r_last_proof"},
      {"tree-C sibling", [](auto& c) { flip(c.vanilla_proofs[0][0].drg_parents[0].inclusion_proof.base[1].hashes[0]); },
       "drg_parents[0]"},
      {"comm_r", [](auto& c) { flip(c.comm_r); }, "comm_r"},
      {"comm_d", [](auto& c) { flip(c.comm_d); }, "comm_d"},
      {"replica_id", [](auto& c) { flip(c.replica_id); }, ""},
      {"seed", [](auto& c) { flip(c.seed); }, "challenge"},
      {"challenge index",
       [](auto& c) {
         for (auto& lp : c.vanilla_proofs[0][0].labeling_proofs) lp.node ^= 1;
         c.vanilla_proofs[0][0].encoding_proof.node ^= 1;
       },
       ""},
      {"parent index", [](auto& c) { c.vanilla_proofs[0][0].drg_parents[3].index ^= 1; }, "drg_parents[3]"},
      {"labeling proof parent", [](auto& c) { flip(c.vanilla_proofs[0][0].labeling_proofs[0].parents[5]); },
       "labeling_proofs[0]"},
      {"encoding proof", [](auto& c) { flip(c.vanilla_proofs[0][1].encoding_proof.parents[0]); }, "encoding_proof"},
      {"registered proof", [](auto& c) { c.registered_proof = "StackedDrg8MiBV1_1"; }, ""},
  };
  for (const auto& k : cases) {
    auto c1 = good;
    k.apply(c1);
    auto st = check_c1(c1, cfg);
    ASSERT_FALSE(st.ok()) << k.what << " was accepted";
    EXPECT_NE(st.error().find(k.expect), std::string::npos) << k.what << ": " << st.error();
    EXPECT_EQ(st.error().find('\n'), std::string::npos) << k.what << ": not one line";
  }
}

}  // namespace
}  // namespace cuzk::filecoin::porep
