// snarkjs JSON files (formats/snarkjs_json.hpp): proof.json, public.json, verification_key.json (the
// first byte picks). What parses is written and read back to the same value.
#include "formats/snarkjs_json.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  switch (in.take_byte() % 3) {
    case 0: {
      auto p = parse_proof_json(in.text(), "proof.json");
      if (!p) return 0;
      auto back = parse_proof_json(proof_to_json(*p), "proof.json");
      CUZK_FUZZ_CHECK(back.ok(), back.error());
      CUZK_FUZZ_CHECK(*back == *p);
      return 0;
    }
    case 1: {
      auto v = parse_public_json(in.text(), "public.json");
      if (!v) return 0;
      auto back = parse_public_json(public_to_json(*v), "public.json");
      CUZK_FUZZ_CHECK(back.ok(), back.error());
      CUZK_FUZZ_CHECK(*back == *v);
      return 0;
    }
    default: {
      auto k = parse_verification_key_json(in.text(), "verification_key.json");
      if (!k) return 0;
      auto back = parse_verification_key_json(verification_key_to_json(k->vk), "verification_key.json");
      CUZK_FUZZ_CHECK(back.ok(), back.error());
      const auto& a = k->vk;
      const auto& b = back->vk;
      CUZK_FUZZ_CHECK(a.alpha_g1 == b.alpha_g1 && a.beta_g2 == b.beta_g2 && a.gamma_g2 == b.gamma_g2 &&
                      a.delta_g2 == b.delta_g2 && a.ic == b.ic);
      CUZK_FUZZ_CHECK(back->n_public == k->n_public);
      return 0;
    }
  }
}
