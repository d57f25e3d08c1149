// Batch conversion to affine coordinates with Montgomery's trick: one field inversion per batch plus
// three multiplications per element, instead of one inversion per element.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "base/parallel.hpp"
#include "math/ec/curve.hpp"

namespace cuzk::math {

// v_i <- 1 / v_i for every nonzero v_i (zeros stay zero), with a single inversion.
template <class F>
void batch_inverse(std::span<F> v) {
  std::vector<F> prefix(v.size());
  F acc = F::one();
  for (std::size_t i = 0; i < v.size(); ++i) {
    prefix[i] = acc;  // product of the nonzero v_j, j < i
    if (!v[i].is_zero()) acc *= v[i];
  }
  F inv = acc.inverse();  // inverse of the product of all nonzero entries
  for (std::size_t i = v.size(); i-- > 0;) {
    if (v[i].is_zero()) continue;
    F vi = v[i];
    v[i] = inv * prefix[i];
    inv *= vi;
  }
}

namespace detail {

// Shared driver: z_of(i) gives the denominator to invert for element i (zero for the identity),
// finish(i, z_inv) writes out[i]. Chunks of the range run on separate threads, one inversion each.
template <class ZOf, class Finish>
void batch_invert_apply(std::size_t n, std::size_t threads, ZOf&& z_of, Finish&& finish) {
  using F = decltype(z_of(std::size_t(0)));
  constexpr std::size_t kGrain = 1024;
  if (!threads) threads = default_threads();
  const std::size_t chunks = std::max<std::size_t>(1, std::min(threads, n / kGrain));
  parallel_chunks(n, chunks, [&](std::size_t b, std::size_t e, std::size_t) {
    std::vector<F> z(e - b);
    for (std::size_t i = b; i < e; ++i) z[i - b] = z_of(i);
    batch_inverse(std::span<F>(z));
    for (std::size_t i = b; i < e; ++i) finish(i, z[i - b]);
  });
}

}  // namespace detail

// out[i] = in[i] in affine coordinates. Sizes must match (std::invalid_argument otherwise).
// threads = 0 means default_threads(); small inputs stay on the calling thread.
template <class C>
void batch_to_affine(std::span<const Jacobian<C>> in, std::span<Affine<C>> out, std::size_t threads = 0) {
  using F = typename C::Field;
  if (in.size() != out.size()) throw std::invalid_argument("batch_to_affine: size mismatch");
  detail::batch_invert_apply(
      in.size(), threads, [&](std::size_t i) { return in[i].z; },
      [&](std::size_t i, const F& zi) {
        if (in[i].is_identity()) {
          out[i] = Affine<C>::identity();
          return;
        }
        F zi2 = zi.square();
        out[i] = Affine<C>::from_xy(in[i].x * zi2, in[i].y * zi2 * zi);
      });
}

// Same for XYZZ points: x = X/ZZ, y = Y/ZZZ, and 1/ZZ = (ZZ/ZZZ)^2, so only ZZZ is inverted.
template <class C>
void batch_to_affine(std::span<const Xyzz<C>> in, std::span<Affine<C>> out, std::size_t threads = 0) {
  using F = typename C::Field;
  if (in.size() != out.size()) throw std::invalid_argument("batch_to_affine: size mismatch");
  detail::batch_invert_apply(
      in.size(), threads, [&](std::size_t i) { return in[i].is_identity() ? F::zero() : in[i].zzz; },
      [&](std::size_t i, const F& zzz_inv) {
        if (in[i].is_identity()) {
          out[i] = Affine<C>::identity();
          return;
        }
        F zz_inv = (zzz_inv * in[i].zz).square();
        out[i] = Affine<C>::from_xy(in[i].x * zz_inv, in[i].y * zzz_inv);
      });
}

template <class C>
std::vector<Affine<C>> batch_to_affine(std::span<const Jacobian<C>> in, std::size_t threads = 0) {
  std::vector<Affine<C>> out(in.size());
  batch_to_affine<C>(in, std::span<Affine<C>>(out), threads);
  return out;
}

}  // namespace cuzk::math
