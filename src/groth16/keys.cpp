#include "groth16/keys.hpp"

#include <string>

namespace cuzk::groth16 {
namespace {
Status mismatch(const char* what, std::size_t got, std::size_t want) {
  return Error{std::string("proving key: ") + what + " has " + std::to_string(got) + " entries, expected " +
               std::to_string(want)};
}
}  // namespace

const char* query_name(Query q) {
  switch (q) {
    case Query::kH: return "h";
    case Query::kL: return "l";
    case Query::kA: return "a";
    case Query::kBG1: return "b_g1";
    case Query::kBG2: return "b_g2";
  }
  return "?";
}

std::size_t ProvingKey::query_size(Query q) const {
  switch (q) {
    case Query::kH: return h_basis == HBasis::kMonomialOverZ ? domain_size() - 1 : domain_size();
    case Query::kL: return num_aux;
    case Query::kA: return num_inputs + a_aux_density.popcount;
    case Query::kBG1:
    case Query::kBG2: return b_input_density.popcount + b_aux_density.popcount;
  }
  return 0;
}

Status ProvingKey::load_bases() {
  if (!source) return ok_status();
  const BaseSource& src = *source;
  auto g1 = [&](Query q, HugeVector<G1Affine>& v) -> Status {
    v = HugeVector<G1Affine>(query_size(q));
    return src.read(q, 0, std::span<G1Affine>(v.data(), v.size()));
  };
  for (auto [q, v] : {std::pair{Query::kH, &h}, {Query::kL, &l}, {Query::kA, &a}, {Query::kBG1, &b_g1}}) {
    if (auto st = g1(q, *v); !st) return st;
  }
  b_g2 = HugeVector<G2Affine>(query_size(Query::kBG2));
  if (auto st = src.read_b_g2(0, std::span<G2Affine>(b_g2.data(), b_g2.size())); !st) return st;
  source.reset();
  return ok_status();
}

Status ProvingKey::check_consistency() const {
  if (num_inputs == 0) return Error{"proving key: no inputs (ONE is missing)"};
  if (vk.ic.size() != num_inputs) return mismatch("ic", vk.ic.size(), num_inputs);
  // A key held without its bases: the source's lengths stand for the vectors'.
  auto len = [&](Query q, std::size_t held) { return source ? source->size(q) : held; };
  if (len(Query::kL, l.size()) != num_aux) return mismatch("l", len(Query::kL, l.size()), num_aux);
  if (a_aux_density.bits.size() != num_aux) return mismatch("a aux density", a_aux_density.bits.size(), num_aux);
  if (b_input_density.bits.size() != num_inputs) {
    return mismatch("b input density", b_input_density.bits.size(), num_inputs);
  }
  if (b_aux_density.bits.size() != num_aux) return mismatch("b aux density", b_aux_density.bits.size(), num_aux);
  for (auto [q, held] : {std::pair{Query::kA, a.size()},
                         {Query::kBG1, b_g1.size()},
                         {Query::kBG2, b_g2.size()},
                         {Query::kH, h.size()}}) {
    if (len(q, held) != query_size(q)) return mismatch(query_name(q), len(q, held), query_size(q));
  }
  if (vk.delta_g1.is_identity() || vk.delta_g2.is_identity()) return Error{"proving key: delta is the identity"};
  return ok_status();
}

}  // namespace cuzk::groth16
