// Optimal ate pairing on BLS12-381; see pairing.hpp for the conventions and README.md for the choices.
#include "math/pairing/pairing.hpp"

namespace cuzk::math {

namespace {

// Derivation of the lines. The M-type twist E': y^2 = x^3 + b' with b' = 4 xi maps into E(Fp12) by
// (x, y) -> (x / w^2, y / w^3). A line with twist slope L through a twist point (xT, yT) has slope L / w
// on E, and its value at P = (xP, yP) scaled by w^3 (an element of the subfield Fp4, so the final
// exponentiation erases it) is
//     (L xT - yT) + (-L xP) w^2 + (yP) w^3,
// which only touches c0.c0, c0.c1 and c1.c1 of Fp12: hence Fp12::mul_by_014. Each step below returns
// this line further scaled by its denominator (an Fp2 element, also erased), so no inversions occur.

// A point of the twist in homogeneous projective coordinates: x = X / Z, y = Y / Z.
struct G2Projective {
  Fp2 x, y, z;
};

// T <- 2T, returning the tangent at T. Slope 3X^2 / (2YZ); scaling the line by 2YZ and using the curve
// equation (X^3 = Y^2 Z - b' Z^3) gives c0 = 3b'Z^2 - Y^2, c1 = 3X^2, c4 = -2YZ. The point formulas are
// the usual projective doubling (Costello-Lange-Naehrig) multiplied through by 4, which removes the
// halvings: X' = 2XY (Y^2 - 9b'Z^2), Y' = (Y^2 + 9b'Z^2)^2 - 108 b'^2 Z^4, Z' = 8 Y^3 Z.
inline LineCoeffs doubling_step(G2Projective& t) {
  Fp2 xy = t.x * t.y, yy = t.y.square(), zz = t.z.square();
  Fp2 d = zz.mul_by_nonresidue();  // 3b'Z^2 = 12 xi Z^2
  d = d.dbl().dbl();
  d = d.dbl() + d;
  Fp2 e = d.dbl() + d;                       // 9b'Z^2
  Fp2 yz2 = (t.y + t.z).square() - yy - zz;  // 2YZ
  Fp2 d2 = d.square();                       // 108 b'^2 Z^4 = 12 d^2
  Fp2 d2x4 = d2.dbl().dbl();
  LineCoeffs l{d - yy, t.x.square(), -yz2};
  l.c1 = l.c1.dbl() + l.c1;
  t.x = (xy * (yy - e)).dbl();
  t.y = (yy + e).square() - (d2x4.dbl() + d2x4);
  t.z = (yy * yz2).dbl().dbl();
  return l;
}

// T <- T + Q for affine Q, returning the chord. With theta = Y - yQ Z and lambda = X - xQ Z the slope is
// theta / lambda; scaling the line (through Q) by lambda gives c0 = theta xQ - lambda yQ, c1 = -theta,
// c4 = lambda. T = +-Q never happens here: T = [k]Q with 2 <= k < |x| < r.
inline LineCoeffs addition_step(G2Projective& t, const G2Affine& q) {
  Fp2 theta = t.y - q.y * t.z, lambda = t.x - q.x * t.z;
  Fp2 c = theta.square(), d = lambda.square();
  Fp2 e = lambda * d, f = t.z * c, g = t.x * d;
  Fp2 h = e + f - g.dbl();
  t.y = theta * (g - h) - t.y * e;
  t.x = lambda * h;
  t.z = t.z * e;
  return LineCoeffs{theta * q.x - lambda * q.y, -theta, lambda};
}

inline void multiply_line(Fp12& f, const LineCoeffs& l, const G1Affine& p) {
  f = f.mul_by_014(l.c0, l.c1 * p.x, l.c4 * p.y);
}

// Unprepared pairs are processed in groups of this size so their running points fit on the stack.
constexpr std::size_t kGroup = 8;

// f_{|x|} for up to kGroup unprepared pairs (none with identity) and any number of prepared pairs,
// sharing the Fp12 squarings. The caller conjugates for the sign of x.
Fp12 miller_loop_group(const G1Affine* ps, const G2Affine* qs, std::size_t n, std::span<const PreparedPair> prepared) {
  G2Projective t[kGroup];
  for (std::size_t j = 0; j < n; ++j) t[j] = {qs[j].x, qs[j].y, Fp2::one()};
  Fp12 f = Fp12::one();
  std::size_t line = 0;
  auto step = [&](bool add) {
    for (std::size_t j = 0; j < n; ++j) multiply_line(f, add ? addition_step(t[j], qs[j]) : doubling_step(t[j]), ps[j]);
    for (const PreparedPair& pp : prepared) {
      if (pp.p.infinity || pp.q->infinity) continue;
      multiply_line(f, pp.q->lines[line], pp.p);
    }
    ++line;
  };
  for (int i = 62; i >= 0; --i) {
    if (i != 62) f = f.square();  // f = 1 on the first bit
    step(false);
    if ((kBlsXAbs >> i) & 1) step(true);
  }
  return f;
}

}  // namespace

G2Prepared::G2Prepared(const G2Affine& q) : infinity(q.infinity) {
  if (infinity) return;
  G2Projective t{q.x, q.y, Fp2::one()};
  std::size_t line = 0;
  for (int i = 62; i >= 0; --i) {
    lines[line++] = doubling_step(t);
    if ((kBlsXAbs >> i) & 1) lines[line++] = addition_step(t, q);
  }
}

Fp12 miller_loop(std::span<const std::pair<G1Affine, G2Affine>> pairs, std::span<const PreparedPair> prepared) {
  G1Affine ps[kGroup];
  G2Affine qs[kGroup];
  std::size_t n = 0;
  bool have_prepared = false;
  for (const PreparedPair& pp : prepared) have_prepared |= !(pp.p.infinity || pp.q->infinity);
  Fp12 f = Fp12::one();
  bool first = true;
  // The prepared pairs ride along with the first group only.
  auto flush = [&] {
    Fp12 g = miller_loop_group(ps, qs, n, first ? prepared : std::span<const PreparedPair>{});
    f = first ? g : f * g;
    first = false;
    n = 0;
  };
  for (const auto& [p, q] : pairs) {
    if (p.infinity || q.infinity) continue;
    ps[n] = p;
    qs[n] = q;
    if (++n == kGroup) flush();
  }
  if (n > 0 || (first && have_prepared)) flush();
  // x < 0: f_{x,Q} = 1 / (f_{|x|,Q} v) with v a vertical line (in Fp6, erased by the final
  // exponentiation), and 1/f equals conj(f) = f^(p^6) up to the Fp6 norm f^(p^6 + 1), also erased.
  return f.conjugate();
}

Fp12 miller_loop(std::span<const std::pair<G1Affine, G2Affine>> pairs) { return miller_loop(pairs, {}); }

Fp12 miller_loop(std::span<const PreparedPair> prepared) { return miller_loop({}, prepared); }

namespace {

// g^x for g in the cyclotomic subgroup: square-and-multiply over |x| (weight 6), then conjugate,
// which is the inverse there.
Fp12 cyclotomic_pow_x(const Fp12& g) {
  Fp12 r = g;
  for (int i = 62; i >= 0; --i) {
    r = r.cyclotomic_square();
    if ((kBlsXAbs >> i) & 1) r *= g;
  }
  return r.conjugate();
}

}  // namespace

Fp12 final_exponentiation(const Fp12& f) {
  // Easy part: f^((p^6 - 1)(p^2 + 1)) lands in the cyclotomic subgroup, where inversion is conjugation
  // and Granger-Scott squaring applies.
  Fp12 g = f.conjugate() * f.inverse();
  g = g.frobenius_map(2) * g;
  // Hard part (Hayashida-Hayasaka-Teruya, eprint 2020/875):
  //   3 (p^4 - p^2 + 1) / r = (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3,
  // five exponentiations by x and three Frobenius maps.
  Fp12 a = cyclotomic_pow_x(g) * g.conjugate();                                         // g^(x-1)
  a = cyclotomic_pow_x(a) * a.conjugate();                                              // g^((x-1)^2)
  Fp12 b = cyclotomic_pow_x(a) * a.frobenius_map(1);                                    // a^(x+p)
  Fp12 c = cyclotomic_pow_x(cyclotomic_pow_x(b)) * b.frobenius_map(2) * b.conjugate();  // b^(x^2+p^2-1)
  return c * g.cyclotomic_square() * g;                                                 // * g^3
}

Fp12 pairing(const G1Affine& p, const G2Affine& q) {
  const std::pair<G1Affine, G2Affine> one_pair[1] = {{p, q}};
  return final_exponentiation(miller_loop(one_pair));
}

bool pairing_product_is_one(std::span<const std::pair<G1Affine, G2Affine>> pairs) {
  return final_exponentiation(miller_loop(pairs)).is_one();
}

bool pairing_product_is_one(std::span<const std::pair<G1Affine, G2Affine>> pairs,
                            std::span<const PreparedPair> prepared) {
  return final_exponentiation(miller_loop(pairs, prepared)).is_one();
}

}  // namespace cuzk::math
