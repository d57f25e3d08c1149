// C1 JSON writing (c1_json.hpp): exactly serde_json's compact output (declaration field order,
// `"_h":null`, externally tagged enums), and the Curio wrapper around it. Reading is c1_json.cpp.
#include "filecoin/porep/c1_json.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <string>

#include "formats/base64.hpp"

namespace cuzk::filecoin::porep {
namespace {

// ------------------------------------------------------------------------------------------------
// Writer: serde_json compact output.

struct DigitEntry {
  char c[4];
  std::uint8_t len;  // digits + the trailing comma
};
constexpr std::array<DigitEntry, 256> make_digits() {
  std::array<DigitEntry, 256> t{};
  for (int v = 0; v < 256; ++v) {
    DigitEntry d{};
    int n = 0;
    if (v >= 100) d.c[n++] = char('0' + v / 100);
    if (v >= 10) d.c[n++] = char('0' + (v / 10) % 10);
    d.c[n++] = char('0' + v % 10);
    d.c[n++] = ',';
    d.len = std::uint8_t(n);
    t[std::size_t(v)] = d;
  }
  return t;
}
constexpr std::array<DigitEntry, 256> kDigits = make_digits();

class JsonOut {
 public:
  explicit JsonOut(std::size_t estimate) { buf_.resize(std::max<std::size_t>(estimate, 256)); }

  char* reserve(std::size_t k) {
    if (n_ + k > buf_.size()) buf_.resize(std::max(buf_.size() * 2, n_ + k));
    return buf_.data() + n_;
  }
  void lit(std::string_view s) {
    char* d = reserve(s.size());
    std::memcpy(d, s.data(), s.size());
    n_ += s.size();
  }
  void ch(char c) {
    *reserve(1) = c;
    ++n_;
  }
  void u64(std::uint64_t v) {
    char* d = reserve(24);
    n_ = std::size_t(std::to_chars(d, d + 24, v).ptr - buf_.data());
  }
  void str(std::string_view s) {
    ch('"');
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        ch('\\');
        ch(c);
      } else if (u < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", unsigned(u));
        lit(b);
      } else {
        ch(c);
      }
    }
    ch('"');
  }
  void b32(const Bytes32& b) {
    char* d = reserve(1 + 32 * 4 + 4);
    char* const start = d;
    *d++ = '[';
    for (std::uint8_t v : b) {
      std::memcpy(d, kDigits[v].c, 4);
      d += kDigits[v].len;
    }
    d[-1] = ']';
    n_ += std::size_t(d - start);
  }
  void b32_vec(const std::vector<Bytes32>& v) {
    if (v.empty()) {
      lit("[]");
      return;
    }
    ch('[');
    for (const Bytes32& b : v) {
      b32(b);
      ch(',');
    }
    buf_[n_ - 1] = ']';
  }
  std::string finish() {
    buf_.resize(n_);
    return std::move(buf_);
  }

 private:
  std::string buf_;
  std::size_t n_ = 0;
};

template <class T, class F>
void write_array(JsonOut& o, const std::vector<T>& v, F&& f) {
  o.ch('[');
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) o.ch(',');
    f(v[i]);
  }
  o.ch(']');
}

void write_path(JsonOut& o, const InclusionPath& p) {
  o.lit("{\"path\":");
  write_array(o, p, [&](const PathElement& e) {
    o.lit("{\"hashes\":");
    o.b32_vec(e.hashes);
    o.lit(",\"index\":");
    o.u64(e.index);
    o.ch('}');
  });
  o.ch('}');
}

void write_merkle(JsonOut& o, const VanillaMerkleProof& m) {
  switch (m.kind) {
    case MerkleProofKind::kSingle:
      o.lit("{\"data\":{\"Single\":{\"root\":");
      o.b32(m.root);
      o.lit(",\"leaf\":");
      o.b32(m.leaf);
      o.lit(",\"path\":");
      write_path(o, m.base);
      break;
    case MerkleProofKind::kSub:
      o.lit("{\"data\":{\"Sub\":{\"base_proof\":");
      write_path(o, m.base);
      o.lit(",\"sub_proof\":");
      write_path(o, m.sub);
      o.lit(",\"root\":");
      o.b32(m.root);
      o.lit(",\"leaf\":");
      o.b32(m.leaf);
      break;
    case MerkleProofKind::kTop:
      o.lit("{\"data\":{\"Top\":{\"base_proof\":");
      write_path(o, m.base);
      o.lit(",\"sub_proof\":");
      write_path(o, m.sub);
      o.lit(",\"top_proof\":");
      write_path(o, m.top);
      o.lit(",\"root\":");
      o.b32(m.root);
      o.lit(",\"leaf\":");
      o.b32(m.leaf);
      break;
  }
  o.lit("}}}");
}

void write_column(JsonOut& o, const ColumnProof& c) {
  o.lit("{\"column\":{\"index\":");
  o.u64(c.index);
  o.lit(",\"rows\":");
  o.b32_vec(c.rows);
  o.lit(",\"_h\":null},\"inclusion_proof\":");
  write_merkle(o, c.inclusion_proof);
  o.ch('}');
}

void write_labeling(JsonOut& o, const LabelingProof& l) {
  o.lit("{\"parents\":");
  o.b32_vec(l.parents);
  o.lit(",\"layer_index\":");
  o.u64(l.layer_index);
  o.lit(",\"node\":");
  o.u64(l.node);
  o.ch('}');
}

void write_challenge(JsonOut& o, const ChallengeProof& p) {
  o.lit("{\"comm_d_proofs\":");
  write_merkle(o, p.comm_d_proofs);
  o.lit(",\"comm_r_last_proof\":");
  write_merkle(o, p.comm_r_last_proof);
  o.lit(",\"replica_column_proofs\":{\"c_x\":");
  write_column(o, p.c_x);
  o.lit(",\"drg_parents\":");
  write_array(o, p.drg_parents, [&](const ColumnProof& c) { write_column(o, c); });
  o.lit(",\"exp_parents\":");
  write_array(o, p.exp_parents, [&](const ColumnProof& c) { write_column(o, c); });
  o.lit("},\"labeling_proofs\":");
  write_array(o, p.labeling_proofs, [&](const LabelingProof& l) { write_labeling(o, l); });
  o.lit(",\"encoding_proof\":");
  write_labeling(o, p.encoding_proof);
  o.ch('}');
}

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
      for (const ColumnProof* c : {&p.c_x})
        values += c->rows.size() + count_values(c->inclusion_proof);
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
  write_array(o, c1.vanilla_proofs, [&](const std::vector<ChallengeProof>& part) {
    write_array(o, part, [&](const ChallengeProof& p) { write_challenge(o, p); });
  });
  o.lit("},\"comm_r\":");
  o.b32(c1.comm_r);
  o.lit(",\"comm_d\":");
  o.b32(c1.comm_d);
  o.lit(",\"replica_id\":");
  o.b32(c1.replica_id);
  o.lit(",\"seed\":");
  o.b32(c1.seed);
  o.lit(",\"ticket\":");
  o.b32(c1.ticket);
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
  formats::base64_encode_into(std::span(reinterpret_cast<const std::uint8_t*>(inner.data()), inner.size()), out.data() + head.size());
  std::memcpy(out.data() + head.size() + b64, tail.data(), tail.size());
  return out;
}

}  // namespace cuzk::filecoin::porep
