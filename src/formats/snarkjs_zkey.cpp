#include "formats/snarkjs_zkey.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "formats/binfile.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::formats {
namespace {

using groth16::CsrMatrix;
using groth16::HBasis;
using groth16::ProvingKey;
using groth16::R1csShape;

constexpr std::uint32_t kSecProtocol = 1, kSecHeader = 2, kSecIc = 3, kSecCoefs = 4, kSecA = 5, kSecB1 = 6, kSecB2 = 7,
                        kSecC = 8, kSecH = 9, kSecContributions = 10;
constexpr std::uint32_t kProtocolGroth16 = 1;
// n8q, q, n8r, r, nVars, nPublic, domainSize, then alpha1, beta1, delta1 (G1) and beta2, gamma2, delta2 (G2).
constexpr std::size_t kHeaderBytes = 4 + kFpBytes + 4 + kFrBytes + 3 * 4 + 3 * kG1Bytes + 3 * kG2Bytes;
static_assert(kHeaderBytes == 964);
constexpr std::size_t kCoefBytes = 12 + kFrBytes;
constexpr std::size_t kContributionFixedBytes = 3 * kG1Bytes + kG2Bytes + 64 + 4 + 4;

std::string protocol_name(std::uint32_t p) {
  switch (p) {
    case 1: return "groth16";
    case 2: return "plonk";
    case 10: return "fflonk";
    default: return "unknown";
  }
}

struct Coef {
  std::uint32_t constraint, signal;
  Fr value;
};

// Builds a CSR matrix with `rows` rows from (row, col, value) entries in any order; entries of one
// row keep file order, and duplicate columns within a row are merged by adding.
CsrMatrix build_csr(const std::vector<Coef>& entries, std::size_t rows) {
  CsrMatrix m;
  std::vector<std::uint64_t> count(rows + 1, 0);
  for (const auto& e : entries) ++count[e.constraint + 1];
  for (std::size_t r = 0; r < rows; ++r) count[r + 1] += count[r];
  std::vector<std::pair<std::uint32_t, Fr>> flat(entries.size());
  std::vector<std::uint64_t> fill(count.begin(), count.end() - 1);
  for (const auto& e : entries) flat[fill[e.constraint]++] = {e.signal, e.value};
  m.row_ptr.reserve(rows + 1);
  m.cols.reserve(entries.size());
  m.coeff_ids.reserve(entries.size());
  std::vector<std::pair<std::uint32_t, Fr>> row;
  for (std::size_t r = 0; r < rows; ++r) {
    auto b = flat.begin() + std::ptrdiff_t(count[r]), e = flat.begin() + std::ptrdiff_t(count[r + 1]);
    row.assign(b, e);
    bool sorted = true;
    for (std::size_t i = 1; i < row.size(); ++i) sorted &= row[i - 1].first < row[i].first;
    if (!sorted) {
      std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      std::size_t out = 0;
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (out > 0 && row[out - 1].first == row[i].first) row[out - 1].second += row[i].second;
        else row[out++] = row[i];
      }
      row.resize(out);
    }
    m.add_row(row);
  }
  return m;
}

// Whether rows [first, first + n) of (a, b) are the input rows x_s * 0 = 0 for s = 0..n-1; otherwise
// writes the first offending row to *bad.
bool has_input_rows(const CsrMatrix& a, const CsrMatrix& b, std::size_t first, std::size_t n, std::size_t* bad) {
  for (std::size_t s = 0; s < n; ++s) {
    std::size_t r = first + s;
    bool ok = a.row_ptr[r + 1] - a.row_ptr[r] == 1 && a.cols[a.row_ptr[r]] == s && a.val(a.row_ptr[r]).is_one() &&
              b.row_ptr[r + 1] == b.row_ptr[r];
    if (!ok) {
      *bad = r;
      return false;
    }
  }
  return true;
}

Result<ZkeyFile> parse(const BinFile& f, const ZkeyReadOptions& opt) {
  // ---- section 1: protocol
  auto s1 = f.section(kSecProtocol, "protocol");
  if (!s1) return Error{s1.error()};
  if (auto st = f.expect_size(kSecProtocol, "protocol", s1->size(), 4); !st) return Error{st.error()};
  std::uint32_t protocol = load_u32le(s1->data());
  if (protocol != kProtocolGroth16) {
    return f.error("protocol is " + std::to_string(protocol) + " (" + protocol_name(protocol) +
                   "), only groth16 (1) is supported");
  }

  // ---- section 2: header and verifying-key points
  const char* kHdr = "groth16 header";
  auto s2 = f.section(kSecHeader, kHdr);
  if (!s2) return Error{s2.error()};
  ByteCursor hc(*s2);
  if (!hc.has(4)) return Error{f.expect_size(kSecHeader, kHdr, s2->size(), kHeaderBytes).error()};
  std::uint32_t n8q = hc.u32();
  if (n8q != kFpBytes) {
    std::string prime = hc.has(n8q) ? ", q = " + describe_prime(hc.bytes(n8q)) : std::string();
    return f.section_error(
        kSecHeader, kHdr,
        "has base field size n8q = " + std::to_string(n8q) + prime + "; expected BLS12-381 (n8q = 48)");
  }
  if (!hc.has(kFpBytes + 4)) return Error{f.expect_size(kSecHeader, kHdr, s2->size(), kHeaderBytes).error()};
  auto q = hc.bytes(kFpBytes);
  if (!is_bls12_381_q(q)) {
    return f.section_error(kSecHeader, kHdr, "has q = " + describe_prime(q) + ", expected the BLS12-381 base field");
  }
  std::uint32_t n8r = hc.u32();
  if (n8r != kFrBytes) {
    return f.section_error(kSecHeader, kHdr,
                           "has scalar field size n8r = " + std::to_string(n8r) + ", expected 32 (BLS12-381)");
  }
  if (auto st = f.expect_size(kSecHeader, kHdr, s2->size(), kHeaderBytes); !st) return Error{st.error()};
  auto r = hc.bytes(kFrBytes);
  if (!is_bls12_381_r(r)) {
    return f.section_error(kSecHeader, kHdr, "has r = " + describe_prime(r) + ", expected the BLS12-381 scalar field");
  }
  ZkeyFile out;
  out.n_vars = hc.u32();
  out.n_public = hc.u32();
  out.domain_size = hc.u32();
  const std::uint64_t n_vars = out.n_vars, n_inputs = std::uint64_t(out.n_public) + 1, domain = out.domain_size;
  if (n_inputs > n_vars) {
    return f.section_error(
        kSecHeader, kHdr,
        "is inconsistent: nPublic + 1 = " + std::to_string(n_inputs) + " > nVars = " + std::to_string(n_vars));
  }
  if (domain == 0 || (domain & (domain - 1)) != 0) {
    return f.section_error(kSecHeader, kHdr, "has domainSize " + std::to_string(domain) + ", not a power of two");
  }
  ProvingKey& pk = out.pk;
  pk.h_basis = HBasis::kOddCosetLagrange;
  pk.num_inputs = std::uint32_t(n_inputs);
  pk.num_aux = std::uint32_t(n_vars - n_inputs);
  pk.domain_log2 = 0;
  while ((std::uint64_t(1) << pk.domain_log2) < domain) ++pk.domain_log2;

  auto vk_g1 = [&](const char* what, G1Affine& p) -> Status {
    PointError e = decode_g1_mont(hc.bytes(kG1Bytes).data(), p, true);
    if (e != PointError::kNone) return f.section_error(kSecHeader, kHdr, std::string(what) + " " + point_error_text(e));
    return ok_status();
  };
  auto vk_g2 = [&](const char* what, G2Affine& p) -> Status {
    PointError e = decode_g2_mont(hc.bytes(kG2Bytes).data(), p, true);
    if (e != PointError::kNone) return f.section_error(kSecHeader, kHdr, std::string(what) + " " + point_error_text(e));
    return ok_status();
  };
  groth16::VerifyingKey& vk = pk.vk;
  for (Status st : {vk_g1("alpha_1", vk.alpha_g1), vk_g1("beta_1", vk.beta_g1), vk_g2("beta_2", vk.beta_g2),
                    vk_g2("gamma_2", vk.gamma_g2), vk_g1("delta_1", vk.delta_g1), vk_g2("delta_2", vk.delta_g2)}) {
    if (!st) return Error{st.error()};
  }

  // ---- fixed-size point sections: sizes first, so a truncated file fails before any heavy work
  struct Sized {
    std::uint32_t id;
    const char* what;
    std::uint64_t bytes;
  };
  const Sized sized[] = {
      {kSecIc, "IC points", n_inputs * kG1Bytes},
      {kSecA, "A points", n_vars * kG1Bytes},
      {kSecB1, "B1 points", n_vars * kG1Bytes},
      {kSecB2, "B2 points", n_vars * kG2Bytes},
      {kSecC, "C points", (n_vars - n_inputs) * kG1Bytes},
      {kSecH, "H points", domain * kG1Bytes},
  };
  std::span<const std::uint8_t> sec[11];
  for (const auto& s : sized) {
    auto b = f.section(s.id, s.what);
    if (!b) return Error{b.error()};
    if (auto st = f.expect_size(s.id, s.what, b->size(), s.bytes); !st) return Error{st.error()};
    sec[s.id] = *b;
  }

  // ---- section 4: coefficients
  const char* kCoefs = "coefficients";
  auto s4 = f.section(kSecCoefs, kCoefs);
  if (!s4) return Error{s4.error()};
  if (s4->size() < 4) return Error{f.expect_size(kSecCoefs, kCoefs, s4->size(), 4).error()};
  std::uint32_t n_coefs = load_u32le(s4->data());
  out.n_coefficients = n_coefs;
  if (auto st = f.expect_size(kSecCoefs, kCoefs, s4->size(), 4 + std::uint64_t(n_coefs) * kCoefBytes); !st) {
    return Error{st.error()};
  }
  std::vector<Coef> coefs[2];
  std::uint64_t rows = 0;
  {
    const std::uint8_t* p = s4->data() + 4;
    for (std::uint32_t i = 0; i < n_coefs; ++i, p += kCoefBytes) {
      std::uint32_t m = load_u32le(p), c = load_u32le(p + 4), s = load_u32le(p + 8);
      auto where = [&] { return "entry " + std::to_string(i) + ": "; };
      if (m > 1) {
        return f.section_error(kSecCoefs, kCoefs, where() + "matrix " + std::to_string(m) + " is not 0 (A) or 1 (B)");
      }
      if (c >= domain) {
        return f.section_error(
            kSecCoefs, kCoefs,
            where() + "constraint " + std::to_string(c) + " is outside the domain of size " + std::to_string(domain));
      }
      if (s >= n_vars) {
        return f.section_error(
            kSecCoefs, kCoefs,
            where() + "signal " + std::to_string(s) + " is out of range (nVars = " + std::to_string(n_vars) + ")");
      }
      Fr v;
      if (!decode_fr_zkey_coef(p + 12, v)) {
        return f.section_error(kSecCoefs, kCoefs,
                               where() + "value " + le_bytes_to_decimal({p + 12, kFrBytes}) + " is not below r");
      }
      coefs[m].push_back({c, s, v});
      rows = std::max<std::uint64_t>(rows, std::uint64_t(c) + 1);
    }
  }
  if (rows < n_inputs) {
    return f.section_error(kSecCoefs, kCoefs,
                           "has " + std::to_string(rows) + " rows, fewer than the nPublic + 1 = " +
                               std::to_string(n_inputs) + " input rows snarkjs appends");
  }
  R1csShape& shape = out.shape;
  shape.num_inputs = pk.num_inputs;
  shape.num_aux = pk.num_aux;
  shape.has_c = false;
  shape.a = build_csr(coefs[0], rows);
  shape.b = build_csr(coefs[1], rows);
  coefs[0] = {};
  coefs[1] = {};
  shape.c.row_ptr.assign(rows + 1, 0);
  out.n_constraints = std::uint32_t(rows - n_inputs);
  if (std::size_t bad = 0; !has_input_rows(shape.a, shape.b, rows - n_inputs, n_inputs, &bad)) {
    return f.section_error(kSecCoefs, kCoefs,
                           "row " + std::to_string(bad) + " should be the input row of signal " +
                               std::to_string(bad - (rows - n_inputs)) + " (A = {signal: 1}, B empty): the last " +
                               "nPublic + 1 rows must be the public-input rows");
  }

  // ---- densities
  std::vector<bool> a_dense = groth16::variable_density(shape.a, n_vars);
  std::vector<bool> b_dense = groth16::variable_density(shape.b, n_vars);
  pk.a_aux_density = groth16::Density::from_bits({a_dense.begin() + std::ptrdiff_t(n_inputs), a_dense.end()});
  pk.b_input_density = groth16::Density::from_bits({b_dense.begin(), b_dense.begin() + std::ptrdiff_t(n_inputs)});
  pk.b_aux_density = groth16::Density::from_bits({b_dense.begin() + std::ptrdiff_t(n_inputs), b_dense.end()});

  auto batch_error = [&](std::uint32_t id, const char* what, const PointBatchError& e) {
    return f.section_error(id, what, "point " + std::to_string(e.index) + " " + point_error_text(e.error));
  };

  // ---- section 3: IC (verifying key: subgroup always)
  if (auto e = decode_g1_batch(sec[kSecIc], n_inputs, vk.ic, true); e.error != PointError::kNone) {
    return batch_error(kSecIc, "IC points", e);
  }

  // ---- sections 5-7: A, B1, B2, compressed by density; a sparse variable's point must be infinity
  const bool sg = opt.check_subgroup;
  // Only the points of variables with coefficients are decoded, straight into the key; the others
  // must be the point at infinity (all zero bytes).
  auto selected_error = [&](std::uint32_t id, const char* what, const SelectedBatchError& e,
                            const char* coef) -> std::optional<Error> {
    if (e.decode.error != PointError::kNone) return batch_error(id, what, e.decode);
    if (e.not_identity < n_vars) {
      return f.section_error(id, what,
                             "point " + std::to_string(e.not_identity) +
                                 " is not the point at infinity although the variable has no " + coef + " coefficient");
    }
    return std::nullopt;
  };
  {
    std::vector<bool> keep = a_dense;
    for (std::uint64_t i = 0; i < n_inputs && i < n_vars; ++i) keep[i] = true;
    if (auto err = selected_error(kSecA, "A points", decode_g1_selected(sec[kSecA], n_vars, keep, pk.a, sg), "A")) {
      return *err;
    }
  }
  if (auto err =
          selected_error(kSecB1, "B1 points", decode_g1_selected(sec[kSecB1], n_vars, b_dense, pk.b_g1, sg), "B")) {
    return *err;
  }
  if (auto err =
          selected_error(kSecB2, "B2 points", decode_g2_selected(sec[kSecB2], n_vars, b_dense, pk.b_g2, sg), "B")) {
    return *err;
  }

  // ---- sections 8, 9: C (private variables) and H
  if (auto e = decode_g1_batch(sec[kSecC], n_vars - n_inputs, pk.l, sg); e.error != PointError::kNone) {
    return batch_error(kSecC, "C points", e);
  }
  if (auto e = decode_g1_batch(sec[kSecH], domain, pk.h, sg); e.error != PointError::kNone) {
    return batch_error(kSecH, "H points", e);
  }

  // ---- section 10: circuit hash and contribution count (structure checked, content not needed)
  if (const SectionEntry* s10 = f.find(kSecContributions)) {
    const char* kWhat = "contributions";
    auto b = f.bytes().subspan(s10->offset, s10->size);
    if (b.size() < 68) return Error{f.expect_size(kSecContributions, kWhat, b.size(), 68).error()};
    std::copy_n(b.data(), 64, out.circuit_hash.begin());
    out.n_contributions = load_u32le(b.data() + 64);
    ByteCursor cc(b.subspan(68));
    for (std::uint32_t i = 0; i < out.n_contributions; ++i) {
      if (!cc.has(kContributionFixedBytes)) {
        return f.section_error(kSecContributions, kWhat, "is truncated in contribution " + std::to_string(i));
      }
      cc.bytes(kContributionFixedBytes - 4);
      std::uint32_t param_len = cc.u32();
      if (!cc.has(param_len)) {
        return f.section_error(kSecContributions, kWhat,
                               "is truncated in the parameters of contribution " + std::to_string(i));
      }
      cc.bytes(param_len);
    }
    if (cc.remaining() != 0) {
      return f.section_error(kSecContributions, kWhat,
                             "has " + std::to_string(cc.remaining()) + " trailing bytes after " +
                                 std::to_string(out.n_contributions) + " contributions");
    }
  }

  if (auto st = pk.check_consistency(); !st) return f.error(st.error());
  return out;
}

}  // namespace

Result<ZkeyFile> parse_zkey(std::span<const std::uint8_t> bytes, const std::string& name,
                            const ZkeyReadOptions& options) {
  auto f = BinFile::from_span(bytes, name, "zkey", 1, 2);
  if (!f) return Error{f.error()};
  return parse(*f, options);
}

Result<ZkeyFile> read_zkey(const std::string& path, const ZkeyReadOptions& options) {
  auto f = BinFile::open(path, "zkey", 1, 2);
  if (!f) return Error{f.error()};
  return parse(*f, options);
}

// ---------------------------------------------------------------------------------------------------
// Writer

Status write_zkey(const std::string& path, const ProvingKey& pk, const R1csShape& shape,
                  const ZkeyWriteOptions& options) {
  auto fail = [&](const std::string& m) { return Status(Error{path + ": " + m}); };
  if (pk.h_basis != HBasis::kOddCosetLagrange) {
    return fail(
        "the key's H query is bellperson's tau^i Z(tau)/delta basis; a .zkey needs snarkjs' odd-coset "
        "Lagrange basis (generate the key with HBasis::kOddCosetLagrange)");
  }
  if (auto st = pk.check_consistency(); !st) return fail(st.error());
  const std::uint64_t n_inputs = pk.num_inputs, n_vars = std::uint64_t(pk.num_inputs) + pk.num_aux;
  if (shape.num_inputs != pk.num_inputs || shape.num_aux != pk.num_aux) {
    return fail("shape has " + std::to_string(shape.num_inputs) + " inputs and " + std::to_string(shape.num_aux) +
                " aux variables, the key " + std::to_string(pk.num_inputs) + " and " + std::to_string(pk.num_aux));
  }
  if (n_vars > 0xffffffffULL) return fail("too many variables for a .zkey");
  const std::size_t rows = shape.num_constraints();
  if (shape.b.rows() != rows) return fail("shape's A and B have different row counts");
  if (rows > pk.domain_size()) {
    return fail("shape has " + std::to_string(rows) + " rows, more than the key's domain of " +
                std::to_string(pk.domain_size()));
  }
  if (pk.domain_log2 >= 32) return fail("domain too large for a .zkey");
  std::size_t bad = 0;
  if (rows < n_inputs || !has_input_rows(shape.a, shape.b, rows - n_inputs, n_inputs, &bad)) {
    return fail("shape must end with the input rows (R1csShape::append_input_rows)");
  }
  for (const CsrMatrix* mat : {&shape.a, &shape.b}) {
    for (std::uint32_t col : mat->cols) {
      if (col >= n_vars)
        return fail("shape refers to variable " + std::to_string(col) + " of " + std::to_string(n_vars));
    }
  }
  std::vector<bool> a_dense = groth16::variable_density(shape.a, n_vars);
  std::vector<bool> b_dense = groth16::variable_density(shape.b, n_vars);
  for (std::uint64_t i = 0; i < n_vars; ++i) {
    bool ka = i < n_inputs || pk.a_aux_density.bits[i - n_inputs];
    bool kb = i < n_inputs ? pk.b_input_density.bits[i] : pk.b_aux_density.bits[i - n_inputs];
    if (ka != a_dense[i] || kb != b_dense[i]) {
      return fail("shape and key disagree on the " + std::string(ka != a_dense[i] ? "A" : "B") +
                  " density of variable " + std::to_string(i));
    }
  }
  const std::uint64_t n_coefs = shape.a.nnz() + shape.b.nnz();
  if (n_coefs > 0xffffffffULL) return fail("too many coefficients for a .zkey");

  auto w = BinFileWriter::create(path, "zkey", 1, 10);
  if (!w) return Error{w.error()};
  std::uint8_t buf[kG2Bytes];
  auto g1 = [&](const G1Affine& p) {
    encode_g1_mont(p, buf);
    w->write({buf, kG1Bytes});
  };
  auto g2 = [&](const G2Affine& p) {
    encode_g2_mont(p, buf);
    w->write({buf, kG2Bytes});
  };
  auto limbs_le = [&](const auto& m) {
    std::uint8_t b[8 * std::tuple_size_v<std::decay_t<decltype(m)>>];
    for (std::size_t i = 0; i < m.size(); ++i) {
      for (std::size_t k = 0; k < 8; ++k) b[8 * i + k] = std::uint8_t(m[i] >> (8 * k));
    }
    w->write(b);
  };
  const groth16::VerifyingKey& vk = pk.vk;

  if (auto st = w->begin_section(kSecProtocol, 4); !st) return st;
  w->write_u32(kProtocolGroth16);
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecHeader, kHeaderBytes); !st) return st;
  w->write_u32(kFpBytes);
  limbs_le(Fp::modulus());
  w->write_u32(kFrBytes);
  limbs_le(Fr::modulus());
  w->write_u32(std::uint32_t(n_vars));
  w->write_u32(std::uint32_t(n_inputs - 1));
  w->write_u32(std::uint32_t(pk.domain_size()));
  g1(vk.alpha_g1);
  g1(vk.beta_g1);
  g2(vk.beta_g2);
  g2(vk.gamma_g2);
  g1(vk.delta_g1);
  g2(vk.delta_g2);
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecIc, n_inputs * kG1Bytes); !st) return st;
  for (const auto& p : vk.ic) g1(p);
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecCoefs, 4 + n_coefs * kCoefBytes); !st) return st;
  w->write_u32(std::uint32_t(n_coefs));
  for (std::size_t k = 0; k < rows; ++k) {
    std::uint32_t m = 0;
    for (const CsrMatrix* mat : {&shape.a, &shape.b}) {
      for (std::uint64_t t = mat->row_ptr[k]; t < mat->row_ptr[k + 1]; ++t) {
        w->write_u32(m);
        w->write_u32(std::uint32_t(k));
        w->write_u32(mat->cols[t]);
        encode_fr_zkey_coef(mat->val(t), buf);
        w->write({buf, kFrBytes});
      }
      ++m;
    }
  }
  if (auto st = w->end_section(); !st) return st;

  // A, B1, B2: decompress (sparse variables get the point at infinity).
  if (auto st = w->begin_section(kSecA, n_vars * kG1Bytes); !st) return st;
  for (std::uint64_t i = 0, j = 0; i < n_vars; ++i) g1(a_dense[i] || i < n_inputs ? pk.a[j++] : G1Affine::identity());
  if (auto st = w->end_section(); !st) return st;
  if (auto st = w->begin_section(kSecB1, n_vars * kG1Bytes); !st) return st;
  for (std::uint64_t i = 0, j = 0; i < n_vars; ++i) g1(b_dense[i] ? pk.b_g1[j++] : G1Affine::identity());
  if (auto st = w->end_section(); !st) return st;
  if (auto st = w->begin_section(kSecB2, n_vars * kG2Bytes); !st) return st;
  for (std::uint64_t i = 0, j = 0; i < n_vars; ++i) g2(b_dense[i] ? pk.b_g2[j++] : G2Affine::identity());
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecC, pk.l.size() * kG1Bytes); !st) return st;
  for (const auto& p : pk.l) g1(p);
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecH, pk.h.size() * kG1Bytes); !st) return st;
  for (const auto& p : pk.h) g1(p);
  if (auto st = w->end_section(); !st) return st;

  if (auto st = w->begin_section(kSecContributions, 68); !st) return st;
  w->write(options.circuit_hash);
  w->write_u32(0);
  if (auto st = w->end_section(); !st) return st;
  return w->finish();
}

}  // namespace cuzk::formats
