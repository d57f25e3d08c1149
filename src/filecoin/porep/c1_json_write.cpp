// C1 JSON writing (c1_json.hpp): exactly serde_json's compact output (declaration field order,
// `"_h":null`, externally tagged enums), and the Curio wrapper around it. Below the top level the
// output comes from the field declarations (c1_fields.hpp, formats/json_fields.hpp). Reading is c1_json.cpp.
#include "filecoin/porep/c1_json.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <string>

#include "filecoin/porep/c1_fields.hpp"
#include "formats/base64.hpp"
#include "formats/json_fields.hpp"
#include "formats/json_out.hpp"

namespace cuzk::filecoin::porep {
namespace {

using formats::JsonOut;

std::size_t count_values(const VanillaMerkleProof& m) {
  std::size_t n = 2;
  for (const InclusionPath* p : {&m.base, &m.sub, &m.top})
    for (const PathElement& e : *p) n += e.hashes.size() + 1;
  return n;
}

// Upper-bound-ish size estimate (bytes) so that the writer rarely reallocates.
std::size_t estimate_json_size(const C1Output& c1) {
  std::size_t values = 5;
  std::size_t structs = 1;
  for (const auto& part : c1.vanilla_proofs)
    for (const ChallengeProof& p : part) {
      values += count_values(p.comm_d_proofs) + count_values(p.comm_r_last_proof);
      for (const ColumnProof* c : {&p.c_x}) values += c->rows.size() + count_values(c->inclusion_proof);
      for (const auto* v : {&p.drg_parents, &p.exp_parents})
        for (const ColumnProof& c : *v) values += c.rows.size() + count_values(c.inclusion_proof);
      for (const LabelingProof& l : p.labeling_proofs) values += l.parents.size();
      values += p.encoding_proof.parents.size();
      structs += 40 + p.labeling_proofs.size();
    }
  return values * 120 + structs * 200 + 4096;
}

}  // namespace

std::string write_c1_json(const C1Output& c1) {
  JsonOut o(estimate_json_size(c1));
  o.lit("{\"registered_proof\":");
  o.str(c1.registered_proof);
  o.lit(",\"vanilla_proofs\":{");
  o.str(c1.vanilla_key.empty() ? vanilla_key_for(c1.registered_proof) : c1.vanilla_key);
  o.ch(':');
  formats::json_write(o, c1.vanilla_proofs);  // the challenge proofs from their field declarations (c1_fields.hpp)
  o.lit("},\"comm_r\":");
  o.bytes(c1.comm_r);
  o.lit(",\"comm_d\":");
  o.bytes(c1.comm_d);
  o.lit(",\"replica_id\":");
  o.bytes(c1.replica_id);
  o.lit(",\"seed\":");
  o.bytes(c1.seed);
  o.lit(",\"ticket\":");
  o.bytes(c1.ticket);
  o.ch('}');
  return o.finish();
}

std::string write_curio_c1_json(const CurioC1& c) {
  const std::string inner = write_c1_json(c.c1);
  const std::string head = "{\"SectorNum\":" + std::to_string(c.sector_num) + ",\"Phase1Out\":\"";
  const std::string tail = "\",\"SectorSize\":" + std::to_string(c.sector_size) + "}";
  const std::size_t b64 = (inner.size() + 2) / 3 * 4;
  std::string out;
  out.resize(head.size() + b64 + tail.size());
  std::memcpy(out.data(), head.data(), head.size());
  formats::base64_encode_into(std::span(reinterpret_cast<const std::uint8_t*>(inner.data()), inner.size()),
                              out.data() + head.size());
  std::memcpy(out.data() + head.size() + b64, tail.data(), tail.size());
  return out;
}

}  // namespace cuzk::filecoin::porep
