#include "groth16/prover.hpp"

#include <sys/random.h>

#include <stdexcept>

#include "base/parallel.hpp"
#include "math/msm/msm.hpp"
#include "math/poly/ntt.hpp"
#include "groth16/snarkjs_domain.hpp"

namespace cuzk::groth16 {
namespace {

Fr random_fr() {
  // 512 random bits reduced mod r: lo + hi * 2^256, bias below 2^-250.
  math::Limbs<4> lo, hi;
  std::uint8_t buf[64];
  std::size_t got = 0;
  while (got < sizeof buf) {
    ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
    if (n < 0) throw std::runtime_error("getrandom failed");
    got += std::size_t(n);
  }
  std::memcpy(lo.data(), buf, 32);
  std::memcpy(hi.data(), buf + 32, 32);
  const Fr two_256 = Fr::from_mont_raw(math::FrParams::kR2);  // canonical value 2^256 mod r
  return Fr::from_reduced(lo) + Fr::from_reduced(hi) * two_256;
}

// Scalars of the variables selected by a density: all inputs (when `all_inputs`) or the inputs with
// input_density set, then the aux variables with aux_density set — the compressed query's order.
std::vector<Fr> select_scalars(std::span<const Fr> w, std::uint32_t num_inputs, const Density* input_density,
                               const Density& aux_density) {
  std::vector<Fr> out;
  out.reserve((input_density ? input_density->popcount : num_inputs) + aux_density.popcount);
  for (std::uint32_t i = 0; i < num_inputs; ++i) {
    if (!input_density || input_density->bits[i]) out.push_back(w[i]);
  }
  for (std::size_t j = 0; j < aux_density.bits.size(); ++j) {
    if (aux_density.bits[j]) out.push_back(w[num_inputs + j]);
  }
  return out;
}

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  using Backend::start;  // the compact overload: the base class expands, then calls the one below

  Result<PendingProof> start(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key) override {
    if (auto st = check_prover_inputs(shape, w, key); !st) return Error{st.error()};
    if (!key.holds_bases()) return Error{"CPU prover: the proving key is held without its bases (a GPU copy only)"};
    // Cancellation is checked between the steps (the H transforms, then each MSM), so a cancelled
    // job's memory and worker are free within one step.
    bool stopped = false;  // the first yes is kept: the check is not asked again
    const std::function<bool()> cancel = [&, check = cancel_check()] { return stopped || (stopped = check()); };
    const Error cancelled{"cancelled"};
    PendingProof p;
    std::vector<Fr> h = compute_h_scalars(evaluate_rows(shape, w), key, cancel);
    if (cancel()) return cancelled;
    p.h_acc = math::msm_g1(key.h, h);
    h = {};
    if (cancel()) return cancelled;
    p.l_acc = math::msm_g1(key.l, w.subspan(key.num_inputs));
    if (cancel()) return cancelled;
    auto a_scalars = select_scalars(w, key.num_inputs, nullptr, key.a_aux_density);
    p.a_acc = math::msm_g1(key.a, a_scalars);
    if (cancel()) return cancelled;
    auto b_scalars = select_scalars(w, key.num_inputs, &key.b_input_density, key.b_aux_density);
    p.b1_acc = math::msm_g1(key.b_g1, b_scalars);
    if (cancel()) return cancelled;
    p.b2_acc = math::msm_g2(key.b_g2, b_scalars);
    return p;
  }
};

}  // namespace

ProofRandomness ProofRandomness::random() { return {random_fr(), random_fr()}; }

Result<std::shared_ptr<KeyCopy>> Backend::upload(const ProvingKey&, const R1csShape*, const HostCharge&) {
  return std::shared_ptr<KeyCopy>();
}

Result<std::shared_ptr<KeyCopy>> Backend::upload_planned(const ProvingKey& key, const R1csShape* shape,
                                                         const HostCharge& charge, const CopyRequest&) {
  return upload(key, shape, charge);
}

const char* copy_form_name(CopyForm f) {
  switch (f) {
    case CopyForm::kAny: return "any";
    case CopyForm::kResident: return "resident";
    case CopyForm::kPinned: return "pinned";
    case CopyForm::kFile: return "file";
  }
  return "?";
}

Result<PendingProof> Backend::start(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key, KeyCopy&) {
  return start(shape, w, key);
}

Result<PendingProof> Backend::start(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key,
                                    KeyCopy&) {
  return start(shape, w, key);
}

Result<PendingProof> Backend::start(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key) {
  if (auto st = check_prover_inputs(shape, w, key); !st) return Error{st.error()};
  const std::vector<Fr> dense = w.assignment();
  return start(shape, std::span<const Fr>(dense), key);
}

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

namespace {

class WithCopy final : public Backend {
 public:
  WithCopy(std::unique_ptr<Backend> b, const ProvingKey& key, std::shared_ptr<KeyCopy> copy)
      : b_(std::move(b)), key_(&key), copy_(std::move(copy)) {}
  ~WithCopy() override { copy_.reset(); }  // before the backend
  std::string name() const override { return b_->name(); }
  Result<PendingProof> start(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key) override {
    return copy_ && &key == key_ ? b_->start(shape, w, key, *copy_) : b_->start(shape, w, key);
  }
  Result<PendingProof> start(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key) override {
    return copy_ && &key == key_ ? b_->start(shape, w, key, *copy_) : b_->start(shape, w, key);
  }

 private:
  std::unique_ptr<Backend> b_;
  const ProvingKey* key_;
  std::shared_ptr<KeyCopy> copy_;
};

}  // namespace

Result<std::unique_ptr<Backend>> with_copy(std::unique_ptr<Backend> backend, const ProvingKey& key,
                                           const R1csShape* shape) {
  auto copy = backend->upload(key, shape, {});
  if (!copy) return Error{copy.error()};
  if (!*copy) return backend;
  return std::unique_ptr<Backend>(std::make_unique<WithCopy>(std::move(backend), key, std::move(*copy)));
}

namespace {

Status check_shape_and_key(const R1csShape& shape, const ProvingKey& key) {
  if (shape.num_inputs != key.num_inputs || shape.num_aux != key.num_aux) {
    return Error{"the proving key does not belong to this circuit: key has " + std::to_string(key.num_inputs) +
                 " inputs and " + std::to_string(key.num_aux) + " aux variables, circuit has " +
                 std::to_string(shape.num_inputs) + " and " + std::to_string(shape.num_aux)};
  }
  if (shape.num_constraints() > key.domain_size()) {
    return Error{"the proving key does not belong to this circuit: " + std::to_string(shape.num_constraints()) +
                 " rows do not fit its domain of " + std::to_string(key.domain_size())};
  }
  return ok_status();
}

}  // namespace

Status check_prover_inputs(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key) {
  if (auto st = check_shape_and_key(shape, key); !st) return st;
  if (w.size() != shape.num_variables()) {
    return Error{"witness has " + std::to_string(w.size()) + " values, the circuit has " +
                 std::to_string(shape.num_variables()) + " variables"};
  }
  if (w.empty() || w[0] != Fr::one()) return Error{"witness: the first value (the constant ONE) is not 1"};
  return ok_status();
}

Status check_prover_inputs(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key) {
  if (auto st = check_shape_and_key(shape, key); !st) return st;
  if (w.inputs.size() != shape.num_inputs || w.num_aux != shape.num_aux)
    return Error{"witness has " + std::to_string(w.inputs.size()) + " inputs and " + std::to_string(w.num_aux) +
                 " aux variables, the circuit has " + std::to_string(shape.num_inputs) + " and " +
                 std::to_string(shape.num_aux)};
  if (w.inputs.empty() || w.inputs[0] != Fr::one())
    return Error{"witness: the first value (the constant ONE) is not 1"};
  return w.check();
}

std::vector<Fr> compute_h_scalars(RowEvaluations ev, const ProvingKey& key, const std::function<bool()>& cancelled) {
  const std::size_t m = key.domain_size();
  const auto stop = [&] { return cancelled && cancelled(); };
  const auto& domain = math::domain_for(key.domain_log2);
  ev.a.resize(m, Fr::zero());
  ev.b.resize(m, Fr::zero());
  ev.c.resize(m, Fr::zero());
  if (key.h_basis == HBasis::kMonomialOverZ) {
    // bellperson interpolates a, b and c, evaluates them on the coset 7<w>, divides a*b - c there by
    // Z = 7^m - 1 (constant on the coset) and interpolates back: seven transforms. That last
    // interpolation undoes C's evaluation on the coset (it is linear, and coset_intt(coset_ntt(U)) = U
    // for C's coefficients U), so U can be subtracted after it instead:
    //   H = (coset_intt(A B on the coset) - U) / (7^m - 1),
    // six transforms, and the same H for any a, b, c. (Satisfied: A B = (X^m - 1) H + U, so
    // A B mod (X^m - 7^m) = U + (7^m - 1) H, which is what coset_intt gives.)
    for (auto* v : {&ev.a, &ev.b}) {
      math::intt(domain, *v);
      if (stop()) return {};
      math::coset_ntt(domain, *v);
      if (stop()) return {};
    }
    math::intt(domain, ev.c);
    if (stop()) return {};
    parallel_for(
        m, [&](std::size_t i) { ev.a[i] = ev.a[i] * ev.b[i]; }, 4096);
    math::coset_intt(domain, ev.a);
    const Fr z_inv = (Fr::from_u64(math::kFrMultiplicativeGenerator).pow(std::uint64_t(m)) - Fr::one()).inverse();
    parallel_for(
        m, [&](std::size_t i) { ev.a[i] = (ev.a[i] - ev.c[i]) * z_inv; }, 4096);
    ev.a.resize(m - 1);
    return std::move(ev.a);
  }
  // snarkjs: row k lives at w'^k (snarkjs_domain.hpp); evaluate a*b - c on the odd coset w'_2m <w'>.
  // The key's H points absorb Z and the interpolation, so no division here.
  for (auto* v : {&ev.a, &ev.b, &ev.c}) {
    *v = snarkjs_to_our_order(*v);
    math::intt(domain, *v);
    if (stop()) return {};
    math::coset_ntt(domain, *v, root_of_unity(key.domain_log2 + 1, true));
    if (stop()) return {};
  }
  parallel_for(
      m, [&](std::size_t i) { ev.a[i] = ev.a[i] * ev.b[i] - ev.c[i]; }, 4096);
  return our_to_snarkjs_order(ev.a);
}

Proof finish(const PendingProof& p, const ProvingKey& key, const ProofRandomness& rs) {
  using math::G1Jacobian;
  using math::G2Jacobian;
  const auto& vk = key.vk;
  G1Jacobian delta1 = G1Jacobian::from_affine(vk.delta_g1);
  G1Jacobian a = G1Jacobian::from_affine(vk.alpha_g1) + delta1.mul(rs.r) + p.a_acc;
  G2Jacobian b = G2Jacobian::from_affine(vk.beta_g2) + G2Jacobian::from_affine(vk.delta_g2).mul(rs.s) + p.b2_acc;
  G1Jacobian b1 = G1Jacobian::from_affine(vk.beta_g1) + delta1.mul(rs.s) + p.b1_acc;
  G1Jacobian c = p.h_acc + p.l_acc + a.mul(rs.s) + b1.mul(rs.r) - delta1.mul(rs.r * rs.s);
  return Proof{a.to_affine(), b.to_affine(), c.to_affine()};
}

}  // namespace cuzk::groth16
