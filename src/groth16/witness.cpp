#include "groth16/witness.hpp"

#include <algorithm>
#include <stdexcept>

#include "base/parallel.hpp"

namespace cuzk::groth16 {

Status CompactAssignment::check() const {
  const std::size_t words = std::size_t((num_aux + 63) / 64);
  if (is_binary.size() != words || bits.size() != words)
    return Error{"compact witness: " + std::to_string(num_aux) + " aux variables need " + std::to_string(words) +
                 " bitmap words, got " + std::to_string(is_binary.size()) + " (binary) and " +
                 std::to_string(bits.size()) + " (values)"};
  if (words && (num_aux & 63)) {
    const std::uint64_t outside = ~((std::uint64_t(1) << (num_aux & 63)) - 1);
    if ((is_binary.back() | bits.back()) & outside)
      return Error{"compact witness: bits set beyond aux variable " + std::to_string(num_aux)};
  }
  for (std::size_t k = 0; k < words; ++k)
    if (bits[k] & ~is_binary[k])
      return Error{"compact witness: a value bit is set for a non-binary aux variable in word " + std::to_string(k)};
  const std::size_t binary = num_binary();
  if (values.size() != num_aux - binary)
    return Error{"compact witness: " + std::to_string(num_aux - binary) + " non-binary aux variables but " +
                 std::to_string(values.size()) + " values"};
  return ok_status();
}

namespace {

// Writes the num_aux dense aux values to out.
void expand_aux(const CompactAssignment& w, Fr* out) {
  const auto& is_binary = w.is_binary;
  const auto& bits = w.bits;
  const auto& values = w.values;
  const std::uint64_t num_aux = w.num_aux;
  // Parallel over chunks of whole bitmap words: each chunk's first value index is the number of
  // non-binary aux before it, so the chunks are independent once those ranks are known.
  const std::size_t words = std::size_t((num_aux + 63) / 64);
  if (is_binary.size() != words || bits.size() != words)
    throw std::invalid_argument("CompactAssignment: bitmap sizes do not match num_aux (call check())");
  if (words == 0) return;
  const std::size_t chunks = std::min<std::size_t>(words, 4 * default_threads());
  const std::size_t per = (words + chunks - 1) / chunks;
  std::vector<std::size_t> rank(chunks + 1, 0);
  for (std::size_t c = 0; c < chunks; ++c) {
    std::size_t nb = 0;
    const std::size_t e = std::min(words, (c + 1) * per);
    for (std::size_t k = std::min(words, c * per); k < e; ++k) {
      const std::uint64_t j0 = std::uint64_t(k) * 64;
      const unsigned valid = num_aux - j0 >= 64 ? 64u : unsigned(num_aux - j0);
      nb += valid - std::size_t(std::popcount(is_binary[k]));
    }
    rank[c + 1] = rank[c] + nb;
  }
  if (rank[chunks] != values.size())
    throw std::invalid_argument("CompactAssignment: the value count does not match the bitmap (call check())");
  const Fr one = Fr::one(), zero = Fr::zero();
  parallel_chunks(chunks, default_threads(), [&](std::size_t cb, std::size_t ce, std::size_t) {
    for (std::size_t c = cb; c < ce; ++c) {
      std::size_t r = rank[c];
      const std::size_t e = std::min(words, (c + 1) * per);
      for (std::size_t k = std::min(words, c * per); k < e; ++k) {
        const std::uint64_t j0 = std::uint64_t(k) * 64;
        const unsigned valid = num_aux - j0 >= 64 ? 64u : unsigned(num_aux - j0);
        for (unsigned b = 0; b < valid; ++b) {
          if ((is_binary[k] >> b) & 1) out[j0 + b] = ((bits[k] >> b) & 1) ? one : zero;
          else out[j0 + b] = values[r++];
        }
      }
    }
  });
}

}  // namespace

std::vector<Fr> CompactAssignment::aux_assignment() const {
  std::vector<Fr> out(num_aux);
  expand_aux(*this, out.data());
  return out;
}

std::vector<Fr> CompactAssignment::assignment() const {
  std::vector<Fr> out(num_variables());
  std::copy(inputs.begin(), inputs.end(), out.begin());
  expand_aux(*this, out.data() + inputs.size());
  return out;
}

CompactAssignment CompactAssignment::from_dense(std::span<const Fr> w, std::size_t num_inputs) {
  if (num_inputs > w.size()) throw std::invalid_argument("CompactAssignment::from_dense: fewer values than inputs");
  CompactAssignment c;
  c.inputs.assign(w.begin(), w.begin() + std::ptrdiff_t(num_inputs));
  c.reserve(num_inputs, w.size() - num_inputs, 0);
  const Fr one = Fr::one();
  for (std::size_t i = num_inputs; i < w.size(); ++i) {
    if (w[i].is_zero()) c.push_bit(false);
    else if (w[i] == one) c.push_bit(true);
    else c.push_value(w[i]);
  }
  return c;
}

AssignmentView::AssignmentView(const CompactAssignment& c) : c_(&c), size_(c.num_variables()), ni_(c.inputs.size()) {
  rank_.resize(c.is_binary.size());
  std::uint64_t r = 0;
  for (std::size_t k = 0; k < rank_.size(); ++k) {
    rank_[k] = r;
    const std::uint64_t j0 = std::uint64_t(k) * 64;
    const unsigned valid = c.num_aux - j0 >= 64 ? 64u : unsigned(c.num_aux - j0);
    r += valid - unsigned(std::popcount(c.is_binary[k]));
  }
}

}  // namespace cuzk::groth16
