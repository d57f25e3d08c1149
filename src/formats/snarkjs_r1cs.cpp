#include "formats/snarkjs_r1cs.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "formats/binfile.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::formats {
namespace {

constexpr std::uint32_t kSecHeader = 1, kSecConstraints = 2, kSecLabels = 3, kSecCustomGatesList = 4,
                        kSecCustomGatesUses = 5;
constexpr std::size_t kHeaderBytes = 4 + kFrBytes + 4 * 4 + 8 + 4;
constexpr std::size_t kTermBytes = 4 + kFrBytes;

// Sorts terms by wire and merges duplicates by adding their coefficients (zero sums are dropped by
// CsrMatrix::add_row).
void merge_terms(std::vector<std::pair<std::uint32_t, Fr>>& terms) {
  if (terms.size() < 2) return;
  bool sorted = true;
  for (std::size_t i = 1; i < terms.size(); ++i) {
    if (terms[i].first <= terms[i - 1].first) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;
  std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (out > 0 && terms[out - 1].first == terms[i].first) {
      terms[out - 1].second += terms[i].second;
    } else {
      terms[out++] = terms[i];
    }
  }
  terms.resize(out);
}

Result<R1csFile> parse(const BinFile& f) {
  if (f.has(kSecCustomGatesList) || f.has(kSecCustomGatesUses)) {
    return f.error("has custom gates (sections 4/5, PLONK only); Groth16 cannot prove this circuit");
  }
  auto hs = f.section(kSecHeader, "header");
  if (!hs) return Error{hs.error()};
  if (hs->size() < 4) return Error{f.expect_size(kSecHeader, "header", hs->size(), kHeaderBytes).error()};
  ByteCursor hc(*hs);
  std::uint32_t n8 = hc.u32();
  if (n8 != kFrBytes) {
    std::string prime = hc.has(n8) ? ", prime " + describe_prime(hc.bytes(n8)) : std::string();
    return f.section_error(kSecHeader, "header",
                           "has field size n8 = " + std::to_string(n8) + prime +
                               "; expected n8 = 32 and the BLS12-381 scalar field (compile with --prime bls12381)");
  }
  if (auto st = f.expect_size(kSecHeader, "header", hs->size(), kHeaderBytes); !st) return Error{st.error()};
  auto prime = hc.bytes(kFrBytes);
  if (!is_bls12_381_r(prime)) {
    return f.section_error(kSecHeader, "header",
                           "has prime " + describe_prime(prime) +
                               ", expected the BLS12-381 scalar field r (compile with --prime bls12381)");
  }
  R1csFile out;
  R1csHeader& h = out.header;
  h.n_wires = hc.u32();
  h.n_pub_out = hc.u32();
  h.n_pub_in = hc.u32();
  h.n_prv_in = hc.u32();
  h.n_labels = hc.u64();
  h.n_constraints = hc.u32();

  std::uint64_t n_inputs = 1 + std::uint64_t(h.n_pub_out) + h.n_pub_in;
  if (h.n_wires < n_inputs || h.n_wires - n_inputs < h.n_prv_in) {
    return f.section_error(kSecHeader, "header",
                           "is inconsistent: nWires = " + std::to_string(h.n_wires) + " < 1 + nPubOut (" +
                               std::to_string(h.n_pub_out) + ") + nPubIn (" + std::to_string(h.n_pub_in) +
                               ") + nPrvIn (" + std::to_string(h.n_prv_in) + ")");
  }

  // The wire-to-label map (nWires u64s; circom always writes it) is what bounds nWires by the file's size:
  // without it a few bytes could declare 2^32 wires, and every consumer sizes its vectors by them.
  auto ls = f.section(kSecLabels, "wire-to-label map");
  if (!ls) return Error{ls.error()};
  if (auto st = f.expect_size(kSecLabels, "wire-to-label map", ls->size(), std::uint64_t(h.n_wires) * 8); !st) {
    return Error{st.error()};
  }

  auto cs = f.section(kSecConstraints, "constraints");
  if (!cs) return Error{cs.error()};
  // Each constraint needs at least 12 bytes (three empty LCs): reject absurd counts before allocating.
  if (cs->size() / 12 < h.n_constraints) {
    return f.section_error(kSecConstraints, "constraints",
                           "is truncated: " + std::to_string(cs->size()) + " bytes cannot hold " +
                               std::to_string(h.n_constraints) + " constraints (at least " +
                               std::to_string(std::uint64_t(h.n_constraints) * 12) + " bytes)");
  }

  groth16::R1csShape& s = out.shape;
  s.num_inputs = std::uint32_t(n_inputs);
  s.num_aux = h.n_wires - s.num_inputs;
  s.has_c = true;
  for (auto* m : {&s.a, &s.b, &s.c}) m->row_ptr.reserve(std::size_t(h.n_constraints) + 1);

  ByteCursor cc(*cs);
  std::vector<std::pair<std::uint32_t, Fr>> terms;
  static const char* kLcName[3] = {"A", "B", "C"};
  groth16::CsrMatrix* mats[3] = {&s.a, &s.b, &s.c};
  for (std::uint32_t k = 0; k < h.n_constraints; ++k) {
    for (int m = 0; m < 3; ++m) {
      auto where = [&] { return "constraint " + std::to_string(k) + " " + kLcName[m]; };
      if (!cc.has(4)) {
        return f.section_error(kSecConstraints, "constraints",
                               "is truncated at " + where() + " (" + std::to_string(cs->size()) + " bytes)");
      }
      std::uint32_t nt = cc.u32();
      if (cc.remaining() / kTermBytes < nt) {
        return f.section_error(kSecConstraints, "constraints",
                               "is truncated at " + where() + ": " + std::to_string(nt) + " terms need " +
                                   std::to_string(std::uint64_t(nt) * kTermBytes) + " bytes, " +
                                   std::to_string(cc.remaining()) + " left");
      }
      terms.clear();
      terms.reserve(nt);
      for (std::uint32_t t = 0; t < nt; ++t) {
        std::uint32_t wire = cc.u32();
        const std::uint8_t* coef = cc.bytes(kFrBytes).data();
        if (wire >= h.n_wires) {
          return f.section_error(kSecConstraints, "constraints",
                                 where() + " term " + std::to_string(t) + ": wire id " + std::to_string(wire) +
                                     " is out of range (nWires = " + std::to_string(h.n_wires) + ")");
        }
        Fr v;
        if (!decode_fr_plain(coef, v)) {
          return f.section_error(kSecConstraints, "constraints",
                                 where() + " term " + std::to_string(t) + " (wire " + std::to_string(wire) +
                                     "): coefficient " + le_bytes_to_decimal({coef, kFrBytes}) + " is not below r");
        }
        terms.emplace_back(wire, v);
      }
      merge_terms(terms);
      mats[m]->add_row(terms);
    }
  }
  if (cc.remaining() != 0) {
    return f.section_error(kSecConstraints, "constraints",
                           "has " + std::to_string(cc.remaining()) + " trailing bytes after " +
                               std::to_string(h.n_constraints) + " constraints");
  }
  return out;
}

}  // namespace

Result<R1csFile> parse_r1cs(std::span<const std::uint8_t> bytes, const std::string& name) {
  auto f = BinFile::from_span(bytes, name, "r1cs", 1, 1);
  if (!f) return Error{f.error()};
  return parse(*f);
}

Result<R1csFile> read_r1cs(const std::string& path) {
  auto f = BinFile::open(path, "r1cs", 1, 1);
  if (!f) return Error{f.error()};
  return parse(*f);
}

Status write_r1cs(const std::string& path, const groth16::R1csShape& shape, const R1csHeader& header) {
  if (!shape.has_c) return Error{path + ": cannot write an r1cs without the C matrix"};
  if (header.n_wires != shape.num_variables()) {
    return Error{path + ": header nWires " + std::to_string(header.n_wires) + " != shape variables " +
                 std::to_string(shape.num_variables())};
  }
  if (std::uint64_t(header.n_pub_out) + header.n_pub_in + 1 != shape.num_inputs) {
    return Error{path + ": header nPubOut + nPubIn + 1 != shape inputs " + std::to_string(shape.num_inputs)};
  }
  if (header.n_constraints != shape.num_constraints() || shape.b.rows() != shape.num_constraints() ||
      shape.c.rows() != shape.num_constraints()) {
    return Error{path + ": header nConstraints " + std::to_string(header.n_constraints) +
                 " does not match the shape's row counts"};
  }
  std::uint64_t sec2 = 0;
  for (const auto* m : {&shape.a, &shape.b, &shape.c}) sec2 += 4 * m->rows() + kTermBytes * m->nnz();
  auto w = BinFileWriter::create(path, "r1cs", 1, 3);
  if (!w) return Error{w.error()};
  if (auto st = w->begin_section(kSecHeader, kHeaderBytes); !st) return st;
  w->write_u32(kFrBytes);
  std::uint8_t buf[kFrBytes];
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t b = 0; b < 8; ++b) buf[8 * i + b] = std::uint8_t(Fr::modulus()[i] >> (8 * b));
  }
  w->write(buf);
  w->write_u32(header.n_wires);
  w->write_u32(header.n_pub_out);
  w->write_u32(header.n_pub_in);
  w->write_u32(header.n_prv_in);
  w->write_u64(header.n_labels ? header.n_labels : header.n_wires);
  w->write_u32(header.n_constraints);
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecConstraints, sec2); !st) return st;
  for (std::size_t k = 0; k < shape.num_constraints(); ++k) {
    for (const auto* m : {&shape.a, &shape.b, &shape.c}) {
      w->write_u32(std::uint32_t(m->row_ptr[k + 1] - m->row_ptr[k]));
      for (std::uint64_t t = m->row_ptr[k]; t < m->row_ptr[k + 1]; ++t) {
        w->write_u32(m->cols[t]);
        encode_fr_plain(m->val(t), buf);
        w->write(buf);
      }
    }
  }
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecLabels, std::uint64_t(header.n_wires) * 8); !st) return st;
  for (std::uint32_t i = 0; i < header.n_wires; ++i) w->write_u64(i);
  if (auto st = w->end_section(); !st) return st;
  return w->finish();
}

}  // namespace cuzk::formats
