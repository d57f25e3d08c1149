// neptune's legacy Poseidon circuit (neptune::circuit::poseidon_hash), the one rust-fil-proofs uses
// and the official parameters fix. It evaluates the optimized form (compressed constants, pre-sparse
// and sparse matrices) on "elements" that are either allocated nums or linear combinations:
//   - first round: the tag's S-box is a constant; each preimage S-box is square_sum, square, mul_sum
//     with the pre- and post-round keys (3 rows);
//   - later S-boxes: ensure_allocated (alloc + row lc·1 = v), square, square, mul_sum (+ key);
//   - MDS steps only build linear combinations;
//   - the output element is ensure_allocated (1 row).
// Rows = 3·(t·R_F + R_P − 1) + (t·R_F + R_P − arity): arity 2: 311, 4: 377, 8: 505, 11: 598,
// 16: 761, 24: 1009, 36: 1385.
#pragma once

#include <array>
#include <cassert>
#include <span>

#include "circuit/gadgets/num.hpp"
#include "circuit/poseidon.hpp"

namespace cuzk::circuit {

namespace poseidon_detail {

// neptune Elt: Allocated(num) or Num(value, lc).
template <class LC>
struct Elt {
  bool allocated = false;
  Var var{};
  Fr value = Fr::zero();
  LC lc;

  static Elt from_num(const AllocatedNum& n) {
    Elt e;
    e.allocated = true;
    e.var = n.var;
    e.value = n.value;
    return e;
  }
  static Elt constant(const Fr& v) {  // Elt::num_from_fr: ONE·v
    Elt e;
    e.value = v;
    if constexpr (LC::kActive) e.lc.add(Var::one(), v);
    return e;
  }
  // acc += s · self (Elt::scale then Elt::add of two Nums).
  void add_scaled_to(Elt& acc, const Fr& s) const {
    acc.value += value * s;
    if constexpr (LC::kActive) {
      if (allocated) {
        acc.lc.add(var, s);
      } else {
        acc.lc.add(lc, s);
      }
    }
  }
};

template <class CS>
AllocatedNum ensure_allocated(CS& cs, const Elt<typename CS::LC>& e) {
  using LC = typename CS::LC;
  if (e.allocated) return {e.var, e.value};
  AllocatedNum v;
  {
    auto g = cs.ns("allocate for Elt::Num");
    v = alloc_num(cs, e.value);
  }
  cs.enforce("enforce num allocation preserves lc", e.lc, LC(Var::one()), LC(v.var));
  return v;
}

// Allocates (num + to_add)^2 with row (num + to_add)·(num + to_add) = res.
template <class CS>
AllocatedNum square_sum(CS& cs, const Fr& to_add, const AllocatedNum& num) {
  using LC = typename CS::LC;
  AllocatedNum res;
  {
    auto g = cs.ns("squared sum");
    res = alloc_num(cs, (num.value + to_add).square());
  }
  LC l(num.var);
  l.add(Var::one(), to_add);
  cs.enforce("squared sum constraint", l, l, LC(res.var));
  return res;
}

// Allocates a·(b + pre) + post with row (b + pre)·a = res - post.
template <class CS>
AllocatedNum mul_sum(CS& cs, const AllocatedNum& a, const AllocatedNum& b, const Fr* pre, const Fr* post) {
  using LC = typename CS::LC;
  Fr v = b.value;
  if (pre) v += *pre;
  v *= a.value;
  if (post) v += *post;
  AllocatedNum res;
  {
    auto g = cs.ns("mul_sum");
    res = alloc_num(cs, v);
  }
  LC la(b.var), lc(res.var);
  if (pre) la.add(Var::one(), *pre);
  if (post) lc.add(Var::one(), -*post);
  const char* name = pre ? (post ? "mul sum constraint pre-post-add" : "mul sum constraint pre-add")
                         : (post ? "mul sum constraint post-add" : "mul sum constraint");
  cs.enforce(name, la, LC(a.var), lc);
  return res;
}

template <class CS>
Elt<typename CS::LC> quintic_s_box(CS& cs, const Elt<typename CS::LC>& e, const Fr* post) {
  AllocatedNum l, l2, l4, l5;
  {
    auto g = cs.ns("S-box input");
    l = ensure_allocated(cs, e);
  }
  {
    auto g = cs.ns("l^2");
    l2 = num_square(cs, l);
  }
  {
    auto g = cs.ns("l^4");
    l4 = num_square(cs, l2);
  }
  {
    auto g = cs.ns("(l4 * l) + rk)");
    l5 = mul_sum(cs, l4, l, nullptr, post);
  }
  return Elt<typename CS::LC>::from_num(l5);
}

template <class CS>
Elt<typename CS::LC> quintic_s_box_pre_add(CS& cs, const Elt<typename CS::LC>& e, const Fr& pre, const Fr& post) {
  AllocatedNum l, l2, l4, l5;
  {
    auto g = cs.ns("S-box input");
    l = ensure_allocated(cs, e);
  }
  {
    auto g = cs.ns("(l+rk)^2");
    l2 = square_sum(cs, pre, l);
  }
  {
    auto g = cs.ns("l^4");
    l4 = num_square(cs, l2);
  }
  {
    auto g = cs.ns("l4 * (l + rk)");
    l5 = mul_sum(cs, l4, l, &pre, &post);
  }
  return Elt<typename CS::LC>::from_num(l5);
}

template <class CS>
class LegacyPoseidon {
 public:
  using LC = typename CS::LC;
  using E = Elt<LC>;

  LegacyPoseidon(const PoseidonConstants& c, std::span<const AllocatedNum> preimage) : c_(c), t_(c.width) {
    assert(preimage.size() == c.arity && c.width <= kMaxWidth);
    el_[0] = E::constant(c.domain_tag);
    for (std::size_t i = 0; i < c.arity; ++i) el_[i + 1] = E::from_num(preimage[i]);
  }

  AllocatedNum hash(CS& cs) {
    const std::size_t h = c_.half_full_rounds();
    {
      auto g = cs.ns("first round");
      full_round(cs, true, false);
    }
    for (std::size_t i = 1; i < h; ++i) {
      auto g = cs.ns(Name("initial full round", std::int64_t(i)));
      full_round(cs, false, false);
    }
    for (std::size_t i = 0; i < c_.partial_rounds; ++i) {
      auto g = cs.ns(Name("partial round", std::int64_t(i)));
      partial_round(cs);
    }
    for (std::size_t i = 0; i + 1 < h; ++i) {
      auto g = cs.ns(Name("final full round", std::int64_t(i)));
      full_round(cs, false, false);
    }
    {
      auto g = cs.ns("terminal full round");
      full_round(cs, false, true);
    }
    auto g = cs.ns("hash result");
    return ensure_allocated(cs, el_[1]);
  }

 private:
  static constexpr std::size_t kMaxWidth = 37;

  void full_round(CS& cs, bool first, bool last) {
    const Fr* k = c_.compressed_round_constants.data() + off_;
    const Fr* pre = first ? k : nullptr;
    if (first) k += t_;
    const Fr* post = (first || !last) ? k : nullptr;
    if (post) k += t_;
    off_ = std::size_t(k - c_.compressed_round_constants.data());
    for (std::size_t i = 0; i < t_; ++i) {
      if (first) {
        if (i == 0) {
          // The tag's S-box is a constant: (tag + pre)^5 + post.
          Fr x = el_[0].value + pre[0];
          x = x.square().square() * x + post[0];
          el_[0] = E::constant(x);
        } else {
          auto g = cs.ns(Name("quintic s-box", std::int64_t(i)));
          el_[i] = quintic_s_box_pre_add(cs, el_[i], pre[i], post[i]);
        }
      } else {
        auto g = cs.ns(Name("quintic s-box", std::int64_t(i)));
        el_[i] = quintic_s_box(cs, el_[i], post ? &post[i] : nullptr);
      }
    }
    product_mds();
  }

  void partial_round(CS& cs) {
    const Fr* key = &c_.compressed_round_constants[off_++];
    auto g = cs.ns("solitary quintic s-box");
    el_[0] = quintic_s_box(cs, el_[0], key);
    product_mds();
  }

  void product_mds() {
    const std::size_t h = c_.half_full_rounds();
    const std::size_t sparse_offset = h - 1;
    if (round_ == sparse_offset) {
      product_with_matrix(c_.pre_sparse.data());
    } else if (round_ > sparse_offset && round_ < h + c_.partial_rounds) {
      product_with_sparse(round_ - sparse_offset - 1);
    } else {
      product_with_matrix(c_.mds.data());
    }
    ++round_;
  }

  // result[j] = Σ_i el[i]·A[i][j]
  void product_with_matrix(const Fr* a) {
    std::array<E, kMaxWidth> out;
    for (std::size_t j = 0; j < t_; ++j) {
      for (std::size_t i = 0; i < t_; ++i) el_[i].add_scaled_to(out[j], a[i * t_ + j]);
    }
    for (std::size_t j = 0; j < t_; ++j) el_[j] = std::move(out[j]);
  }

  // result[0] = Σ el[i]·w_hat[i]; result[j] = el[j] + el[0]·v_rest[j-1]
  void product_with_sparse(std::size_t idx) {
    auto wh = c_.w_hat(idx);
    auto vr = c_.v_rest(idx);
    E r0;
    for (std::size_t i = 0; i < t_; ++i) el_[i].add_scaled_to(r0, wh[i]);
    for (std::size_t j = 1; j < t_; ++j) {
      assert(!el_[j].allocated);  // neptune only adds two Nums here
      el_[0].add_scaled_to(el_[j], vr[j - 1]);
    }
    el_[0] = std::move(r0);
  }

  const PoseidonConstants& c_;
  std::size_t t_;
  std::size_t off_ = 0, round_ = 0;
  std::array<E, kMaxWidth> el_;
};

}  // namespace poseidon_detail

// neptune::circuit::poseidon_hash (legacy): hash of `preimage` (length = arity) with constants c.
template <class CS>
AllocatedNum poseidon_hash_circuit(CS& cs, std::span<const AllocatedNum> preimage, const PoseidonConstants& c) {
  poseidon_detail::LegacyPoseidon<CS> p(c, preimage);
  return p.hash(cs);
}

// filecoin-hashers PoseidonFunction::hash_md_circuit: arity-36 chaining; the zero padding of the
// last chunk is allocated (unconstrained, value 0) exactly as upstream does.
template <class CS>
AllocatedNum poseidon_hash_md_circuit(CS& cs, std::span<const AllocatedNum> elements) {
  const auto& c = poseidon_constants(36);
  AllocatedNum hash = elements[0];
  std::vector<AllocatedNum> pre(36, hash);
  std::size_t chunk = 0;
  for (std::size_t start = 1; start < elements.size(); start += 35, ++chunk) {
    std::size_t n = std::min<std::size_t>(35, elements.size() - start);
    pre[0] = hash;
    for (std::size_t i = 0; i < n; ++i) pre[i + 1] = elements[start + i];
    for (std::size_t i = n + 1; i < 36; ++i) {
      auto g = cs.ns(Name("padding", std::int64_t(i)));
      pre[i] = alloc_num(cs, Fr::zero());
    }
    auto g = cs.ns(Name("hash md", std::int64_t(chunk)));
    hash = poseidon_hash_circuit(cs, pre, c);
  }
  return hash;
}

}  // namespace cuzk::circuit
