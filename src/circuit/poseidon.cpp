#include "circuit/poseidon.hpp"

#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace cuzk::circuit {

namespace {

// ---- round numbers (neptune round_numbers.rs, itself from the Poseidon authors' script) --------
bool round_numbers_are_secure(std::size_t t_, std::size_t rf, std::size_t rp_) {
  // Single precision on purpose: the reference computes in f32.
  const float rp = float(rp_), t = float(t_), n = 256.0f, m = 128.0f;
  const float rf_stat = m <= (n - 3.0f) * (t + 1.0f) ? 6.0f : 10.0f;
  const float rf_interp = 0.43f * m + std::log2(t) - rp;
  const float rf_grob_1 = 0.21f * n - rp;
  const float rf_grob_2 = (0.14f * n - 1.0f - rp) / (t - 1.0f);
  std::size_t rf_max = 0;
  for (float x : {rf_stat, rf_interp, rf_grob_1, rf_grob_2}) {
    float c = std::ceil(x);
    std::size_t v = c <= 0.0f ? 0 : std::size_t(c);  // Rust `as usize` saturates negatives to 0
    rf_max = std::max(rf_max, v);
  }
  return rf >= rf_max;
}

// ---- small dense matrices over Fr -----------------------------------------------------------
using Mat = std::vector<std::vector<Fr>>;

Mat mat_mul(const Mat& a, const Mat& b) {
  std::size_t n = a.size(), k = b.size(), m = b[0].size();
  Mat r(n, std::vector<Fr>(m, Fr::zero()));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t j = 0; j < m; ++j) r[i][j] += a[i][l] * b[l][j];
  return r;
}

Mat mat_inverse(const Mat& a) {
  std::size_t n = a.size();
  Mat m(n, std::vector<Fr>(2 * n, Fr::zero()));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) m[i][j] = a[i][j];
    m[i][n + i] = Fr::one();
  }
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t r = c;
    while (r < n && m[r][c].is_zero()) ++r;
    if (r == n) throw std::runtime_error("poseidon: singular matrix");
    std::swap(m[c], m[r]);
    Fr iv = m[c][c].inverse();
    for (auto& x : m[c]) x *= iv;
    for (std::size_t rr = 0; rr < n; ++rr) {
      if (rr == c || m[rr][c].is_zero()) continue;
      Fr f = m[rr][c];
      for (std::size_t j = 0; j < 2 * n; ++j) m[rr][j] -= f * m[c][j];
    }
  }
  Mat out(n, std::vector<Fr>(n));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) out[i][j] = m[i][n + j];
  return out;
}

// M · v (v as a column).
std::vector<Fr> left_apply(const Mat& m, std::span<const Fr> v) {
  std::vector<Fr> r(m.size(), Fr::zero());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < v.size(); ++j) r[i] += m[i][j] * v[j];
  return r;
}

std::vector<Fr> flatten(const Mat& m) {
  std::vector<Fr> out;
  for (const auto& row : m) out.insert(out.end(), row.begin(), row.end());
  return out;
}

// Compressed round constants (neptune preprocessing.rs compress_round_constants).
std::vector<Fr> compress_round_constants(std::size_t t, std::size_t rf, std::size_t rp, const std::vector<Fr>& rc,
                                         const Mat& m_inv) {
  auto rk = [&](std::size_t r) { return std::span<const Fr>(rc.data() + r * t, t); };
  const std::size_t h = rf / 2;
  std::vector<Fr> res(rk(0).begin(), rk(0).end());
  for (std::size_t i = 0; i + 1 < h; ++i) {
    auto v = left_apply(m_inv, rk(i + 1));
    res.insert(res.end(), v.begin(), v.end());
  }
  // Partial rounds, walked backwards: push each round's constants through the MDS inverse so only
  // state[0] keeps a constant per partial round; the rest folds into the constants before them.
  std::vector<Fr> acc(rk(h + rp).begin(), rk(h + rp).end());
  std::vector<Fr> partial;
  for (std::size_t i = 0; i < rp; ++i) {
    auto v = left_apply(m_inv, acc);
    partial.push_back(v[0]);
    v[0] = Fr::zero();
    auto prev = rk(h + rp - i - 1);
    for (std::size_t j = 0; j < t; ++j) acc[j] = prev[j] + v[j];
  }
  auto v = left_apply(m_inv, acc);
  res.insert(res.end(), v.begin(), v.end());
  res.insert(res.end(), partial.rbegin(), partial.rend());
  for (std::size_t i = 1; i < h; ++i) {
    auto w = left_apply(m_inv, rk(h + rp + i));
    res.insert(res.end(), w.begin(), w.end());
  }
  return res;
}

// Sparse factorisation (neptune mds.rs factor_to_sparse_matrixes, applied to Mᵀ = M).
void sparse_factor(const Mat& mds, std::size_t rp, std::vector<Fr>& pre_sparse, std::vector<Fr>& w_hat,
                   std::vector<Fr>& v_rest) {
  const std::size_t t = mds.size();
  Mat curr = mds;
  std::vector<std::pair<std::vector<Fr>, std::vector<Fr>>> sparse;  // (w_hat, v_rest), forward
  for (std::size_t k = 0; k < rp; ++k) {
    // curr = m' × m'' with m' = diag(1, m̂) and m'' = [[m00, m0,1..], [ŵ, I]], ŵ = m̂⁻¹ · (column 0).
    Mat mhat(t - 1, std::vector<Fr>(t - 1));
    std::vector<Fr> col0(t - 1);
    for (std::size_t i = 1; i < t; ++i) {
      for (std::size_t j = 1; j < t; ++j) mhat[i - 1][j - 1] = curr[i][j];
      col0[i - 1] = curr[i][0];
    }
    auto what = left_apply(mat_inverse(mhat), col0);
    std::vector<Fr> wh(t), vr(t - 1);
    wh[0] = curr[0][0];
    for (std::size_t i = 1; i < t; ++i) wh[i] = what[i - 1];
    for (std::size_t j = 1; j < t; ++j) vr[j - 1] = curr[0][j];
    sparse.emplace_back(std::move(wh), std::move(vr));
    Mat mprime(t, std::vector<Fr>(t, Fr::zero()));
    mprime[0][0] = Fr::one();
    for (std::size_t i = 1; i < t; ++i)
      for (std::size_t j = 1; j < t; ++j) mprime[i][j] = curr[i][j];
    curr = mat_mul(mds, mprime);
  }
  pre_sparse = flatten(curr);
  w_hat.clear();
  v_rest.clear();
  for (auto it = sparse.rbegin(); it != sparse.rend(); ++it) {
    w_hat.insert(w_hat.end(), it->first.begin(), it->first.end());
    v_rest.insert(v_rest.end(), it->second.begin(), it->second.end());
  }
}

Fr pow5(const Fr& x) {
  Fr x2 = x.square();
  return x2.square() * x;
}

// state = state × A (row vector times matrix), A given row-major t×t.
void vec_mat(std::span<Fr> st, const Fr* a, std::size_t t) {
  Fr out[64];
  for (std::size_t j = 0; j < t; ++j) out[j] = Fr::zero();
  for (std::size_t i = 0; i < t; ++i) {
    const Fr s = st[i];
    for (std::size_t j = 0; j < t; ++j) out[j] += s * a[i * t + j];
  }
  for (std::size_t j = 0; j < t; ++j) st[j] = out[j];
}

}  // namespace

std::pair<std::size_t, std::size_t> poseidon_round_numbers(std::size_t arity, PoseidonStrength s) {
  const std::size_t t = arity + 1;
  std::size_t rf = 0, rp = 0, best = std::numeric_limits<std::size_t>::max();
  for (std::size_t rf_test = 2; rf_test <= 1000; rf_test += 2) {
    for (std::size_t rp_test = 4; rp_test < 200; ++rp_test) {
      if (!round_numbers_are_secure(t, rf_test, rp_test)) continue;
      std::size_t rf2 = rf_test + 2;
      std::size_t rp2 = std::size_t(std::ceil(1.075f * float(rp_test)));
      std::size_t cost = t * rf2 + rp2;
      if (cost < best || (cost == best && rf2 < rf)) {
        rf = rf2;
        rp = rp2;
        best = cost;
      }
    }
  }
  if (s == PoseidonStrength::kStrengthened) rp = std::size_t(std::ceil(double(rp) * 1.25));
  return {rf, rp};
}

Fr poseidon_tag_merkle_tree(std::size_t arity) {
  assert(arity < 64);
  return Fr::from_u64((std::uint64_t(1) << arity) - 1);
}
Fr poseidon_tag_constant_length(std::uint64_t len) { return Fr::from_u64(len) * Fr::from_u64(2).pow(64); }
Fr poseidon_tag_custom(std::uint64_t id) { return Fr::from_u64(id) * Fr::from_u64(std::uint64_t(1) << 40); }

std::vector<Fr> poseidon_grain_constants(std::size_t width, std::size_t rf, std::size_t rp) {
  // 80-bit state, MSB-first fields: field type (2 bits) = 1, S-box (4) = 1 (x^5 → "not inverse"),
  // field size (12) = 255, t (12), R_F (10), R_P (10), then 30 ones.
  std::vector<std::uint8_t> st;
  auto append = [&](std::size_t nbits, std::uint64_t v) {
    for (std::size_t i = nbits; i-- > 0;) st.push_back(std::uint8_t((v >> i) & 1));
  };
  append(2, 1);
  append(4, 1);
  append(12, 255);
  append(12, width);
  append(10, rf);
  append(10, rp);
  append(30, (1u << 30) - 1);
  // Ring buffer over the 80 state bits; b_new = s62 ^ s51 ^ s38 ^ s23 ^ s13 ^ s0.
  std::size_t head = 0;
  auto next_bit = [&]() {
    auto at = [&](std::size_t k) { return st[(head + k) % 80]; };
    std::uint8_t b = at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0);
    st[head] = b;  // drop s0, append b at the end
    head = (head + 1) % 80;
    return b;
  };
  for (int i = 0; i < 160; ++i) next_bit();
  // Self-shrinking: draw pairs, output the second bit when the first is 1.
  auto shrunk_bit = [&]() {
    for (;;) {
      std::uint8_t first = next_bit();
      std::uint8_t second = next_bit();
      if (first) return second;
    }
  };
  std::vector<Fr> out;
  out.reserve((rf + rp) * width);
  while (out.size() < (rf + rp) * width) {
    // 255-bit candidates, big-endian (7 bits, then 31 bytes); rejected when >= r.
    math::Limbs<4> x{};
    for (int k = 254; k >= 0; --k) x[std::size_t(k) / 64] |= std::uint64_t(shrunk_bit()) << (k % 64);
    if (auto f = Fr::from_canonical(x)) out.push_back(*f);
  }
  return out;
}

PoseidonConstants make_poseidon_constants(std::size_t arity, const Fr& domain_tag, PoseidonStrength strength) {
  PoseidonConstants c;
  c.arity = arity;
  c.width = arity + 1;
  c.strength = strength;
  c.domain_tag = domain_tag;
  std::tie(c.full_rounds, c.partial_rounds) = poseidon_round_numbers(arity, strength);
  const std::size_t t = c.width;
  c.round_constants = poseidon_grain_constants(t, c.full_rounds, c.partial_rounds);
  Mat m(t, std::vector<Fr>(t));
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < t; ++j) m[i][j] = Fr::from_u64(i + t + j).inverse();  // 1/(x_i + y_j)
  Mat m_inv = mat_inverse(m);
  c.mds = flatten(m);
  c.mds_inv = flatten(m_inv);
  c.compressed_round_constants = compress_round_constants(t, c.full_rounds, c.partial_rounds, c.round_constants, m_inv);
  sparse_factor(m, c.partial_rounds, c.pre_sparse, c.sparse_w_hat, c.sparse_v_rest);
  return c;
}

const PoseidonConstants& poseidon_constants(std::size_t arity) {
  // Called once per hash by the tree gadgets, possibly from many synthesis threads: lock-free once
  // built. Entries live for the whole process.
  static std::array<std::atomic<const PoseidonConstants*>, 64> slots{};
  static std::mutex mu;
  if (arity == 0 || arity >= slots.size()) throw std::invalid_argument("poseidon: arity must be 1..63");
  if (const PoseidonConstants* p = slots[arity].load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(mu);
  if (const PoseidonConstants* p = slots[arity].load(std::memory_order_relaxed)) return *p;
  auto* p = new PoseidonConstants(make_poseidon_constants(arity, poseidon_tag_merkle_tree(arity)));
  slots[arity].store(p, std::memory_order_release);
  return *p;
}

Fr poseidon_hash_reference(const PoseidonConstants& c, std::span<const Fr> preimage) {
  assert(preimage.size() == c.arity);
  const std::size_t t = c.width, h = c.half_full_rounds();
  std::vector<Fr> st(t);
  st[0] = c.domain_tag;
  for (std::size_t i = 0; i < c.arity; ++i) st[i + 1] = preimage[i];
  for (std::size_t r = 0; r < c.full_rounds + c.partial_rounds; ++r) {
    for (std::size_t i = 0; i < t; ++i) st[i] += c.round_constants[r * t + i];
    if (r < h || r >= h + c.partial_rounds) {
      for (auto& x : st) x = pow5(x);
    } else {
      st[0] = pow5(st[0]);
    }
    vec_mat(st, c.mds.data(), t);
  }
  return st[1];
}

Fr poseidon_hash(const PoseidonConstants& c, std::span<const Fr> preimage) {
  assert(preimage.size() == c.arity);
  const std::size_t t = c.width, h = c.half_full_rounds();
  Fr st[64];
  st[0] = c.domain_tag;
  for (std::size_t i = 0; i < c.arity; ++i) st[i + 1] = preimage[i];
  const Fr* k = c.compressed_round_constants.data();
  for (std::size_t i = 0; i < t; ++i) st[i] += k[i];
  k += t;
  std::span<Fr> s(st, t);
  for (std::size_t r = 0; r < h; ++r) {
    for (std::size_t i = 0; i < t; ++i) st[i] = pow5(st[i]) + k[i];
    k += t;
    vec_mat(s, r + 1 == h ? c.pre_sparse.data() : c.mds.data(), t);
  }
  for (std::size_t r = 0; r < c.partial_rounds; ++r) {
    st[0] = pow5(st[0]) + *k++;
    auto wh = c.w_hat(r);
    auto vr = c.v_rest(r);
    Fr s0 = Fr::zero();
    for (std::size_t i = 0; i < t; ++i) s0 += st[i] * wh[i];
    for (std::size_t j = 1; j < t; ++j) st[j] += st[0] * vr[j - 1];
    st[0] = s0;
  }
  for (std::size_t r = 0; r + 1 < h; ++r) {
    for (std::size_t i = 0; i < t; ++i) st[i] = pow5(st[i]) + k[i];
    k += t;
    vec_mat(s, c.mds.data(), t);
  }
  for (std::size_t i = 0; i < t; ++i) st[i] = pow5(st[i]);
  vec_mat(s, c.mds.data(), t);
  return st[1];
}

Fr poseidon_hash_md(std::span<const Fr> elements) {
  const auto& c = poseidon_constants(36);
  assert(!elements.empty());
  Fr hash = elements[0];
  std::vector<Fr> pre(36);
  for (std::size_t start = 1; start < elements.size(); start += 35) {
    std::size_t n = std::min<std::size_t>(35, elements.size() - start);
    pre[0] = hash;
    for (std::size_t i = 0; i < 35; ++i) pre[i + 1] = i < n ? elements[start + i] : Fr::zero();
    hash = poseidon_hash(c, pre);
  }
  return hash;
}

}  // namespace cuzk::circuit
