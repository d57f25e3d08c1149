#!/usr/bin/env node
// Known-answer vectors for BLS12-381 computed by @noble/curves, for cuzk's C++ unit tests.
//
//   node tests/peers/noble_vectors.mjs [out.json]     (default: tests/fixtures/noble/vectors.json)
//
// Deterministic: all "random" values come from SHA-256("cuzk-noble-vectors/v1" || tag || u64 counter),
// so a rerun writes a byte-identical file. See tests/peers/README.md and the "_format" key of the output.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outPath = resolve(process.argv[2] ?? resolve(here, '../fixtures/noble/vectors.json'));

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

// ---------------------------------------------------------------- deterministic PRNG
const SEED = 'cuzk-noble-vectors/v1';
let ctr = 0n;
function randBytes(n) {
  const out = [];
  let have = 0;
  while (have < n) {
    const c = Buffer.alloc(8);
    c.writeBigUInt64BE(ctr++);
    const blk = createHash('sha256').update(SEED).update(c).digest();
    out.push(blk);
    have += blk.length;
  }
  return Buffer.concat(out).subarray(0, n);
}
// uniform-ish in [0, m): 64 random bytes reduced mod m (bias < 2^-128)
const randBelow = (m) => BigInt('0x' + randBytes(64).toString('hex')) % m;
const randNonZero = (m) => { for (;;) { const v = randBelow(m); if (v !== 0n) return v; } };

// ---------------------------------------------------------------- hex helpers
const FP_HEX = 96;   // 48 bytes
const FR_HEX = 64;   // 32 bytes
const hx = (v, width) => { if (v < 0n) throw new Error('negative'); return v.toString(16).padStart(width, '0'); };
const hp = (v) => hx(v, FP_HEX);
const hr = (v) => hx(v, FR_HEX);
const hp2 = (e) => [hp(e.c0), hp(e.c1)];
// Fp12 flattened: index 6*i + 2*j + k  <->  c_i . c_j . c_k
const hp12 = (f) => {
  const out = [];
  for (const f6 of [f.c0, f.c1]) for (const f2 of [f6.c0, f6.c1, f6.c2]) out.push(hp(f2.c0), hp(f2.c1));
  return out;
};
const fp2 = (c0, c1) => Fp2.create({ c0, c1 });
const fp12FromList = (l) => ({
  c0: { c0: fp2(l[0], l[1]), c1: fp2(l[2], l[3]), c2: fp2(l[4], l[5]) },
  c1: { c0: fp2(l[6], l[7]), c1: fp2(l[8], l[9]), c2: fp2(l[10], l[11]) },
});

// ---------------------------------------------------------------- sanity on the conventions we document
if (Fp2.NONRESIDUE.c0 !== 1n || Fp2.NONRESIDUE.c1 !== 1n) throw new Error('unexpected Fp6 non-residue');
{
  const u = fp2(0n, 1n);
  const m1 = Fp2.mul(u, u);
  if (m1.c0 !== P - 1n || m1.c1 !== 0n) throw new Error('u^2 != -1');
  // w^2 == v in Fp12 with v = (0,1,0) in Fp6
  const w = fp12FromList([0n, 0n, 0n, 0n, 0n, 0n, 1n, 0n, 0n, 0n, 0n, 0n]);
  const v = fp12FromList([0n, 0n, 1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]);
  if (!Fp12.eql(Fp12.mul(w, w), v)) throw new Error('w^2 != v');
  const v3 = Fp12.mul(Fp12.mul(v, v), v);
  const onePlusU = fp12FromList([1n, 1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]);
  if (!Fp12.eql(v3, onePlusU)) throw new Error('v^3 != 1+u');
}

// ---------------------------------------------------------------- Fp
function fpCase(a, b) {
  const o = {
    a: hp(a), b: hp(b),
    add: hp(Fp.add(a, b)), sub: hp(Fp.sub(a, b)), mul: hp(Fp.mul(a, b)),
    inv: a === 0n ? null : hp(Fp.inv(a)),
    sqr: hp(Fp.sqr(a)),
    sqrt: hp(Fp.sqrt(Fp.sqr(a))),
  };
  return o;
}
const fpEdges = [[0n, 0n], [0n, 1n], [1n, 0n], [1n, 1n], [1n, P - 1n], [P - 1n, 1n], [P - 1n, P - 1n],
  [P - 1n, 0n], [2n, P - 2n], [(P - 1n) / 2n, (P + 1n) / 2n]];
const fp = [];
for (let i = 0; i < 32; i++) fp.push(fpCase(randBelow(P), randBelow(P)));
const fp_edge = fpEdges.map(([a, b]) => fpCase(a, b));

// ---------------------------------------------------------------- Fr
function frCase(a, b) {
  return {
    a: hr(a), b: hr(b),
    add: hr(Fr.add(a, b)), sub: hr(Fr.sub(a, b)), mul: hr(Fr.mul(a, b)),
    inv: a === 0n ? null : hr(Fr.inv(a)),
  };
}
const frEdges = [[0n, 0n], [0n, 1n], [1n, 0n], [1n, 1n], [1n, R - 1n], [R - 1n, 1n], [R - 1n, R - 1n],
  [R - 1n, 0n], [2n, R - 2n], [(R - 1n) / 2n, (R + 1n) / 2n]];
const fr = [];
for (let i = 0; i < 32; i++) fr.push(frCase(randBelow(R), randBelow(R)));
const fr_edge = frEdges.map(([a, b]) => frCase(a, b));

// ---------------------------------------------------------------- Fp2
function fp2Case(a, b) {
  return {
    a: hp2(a), b: hp2(b),
    mul: hp2(Fp2.mul(a, b)), sqr: hp2(Fp2.sqr(a)),
    inv: Fp2.is0(a) ? null : hp2(Fp2.inv(a)),
  };
}
const fp2v = [];
fp2v.push(fp2Case(fp2(0n, 1n), fp2(0n, 1n)));               // u * u = -1
fp2v.push(fp2Case(fp2(1n, 1n), fp2(P - 1n, P - 1n)));       // (1+u) * (-1-u)
for (let i = 2; i < 16; i++) fp2v.push(fp2Case(fp2(randBelow(P), randBelow(P)), fp2(randBelow(P), randBelow(P))));

// ---------------------------------------------------------------- Fp12
const randFp12 = () => fp12FromList(Array.from({ length: 12 }, () => randBelow(P)));
const fp12 = [];
for (let i = 0; i < 4; i++) {
  const a = randFp12(), b = randFp12();
  fp12.push({ a: hp12(a), b: hp12(b), mul: hp12(Fp12.mul(a, b)), inv: hp12(Fp12.inv(a)) });
}

// ---------------------------------------------------------------- G1 / G2
const mul = (Pt, k) => (k % R === 0n ? Pt.ZERO : Pt.BASE.multiply(k % R));
const bytesHex = (u8) => Buffer.from(u8).toString('hex');
// noble quirk: a sum that lands on infinity (e.g. P + (-P)) can be a projective ZERO with Y = 0, and
// toBytes() then throws "bad point: ZERO"; re-normalise such results to the canonical Point.ZERO.
const norm = (Pt, q) => (q.is0() ? Pt.ZERO : q);
function g1Entry(k) {
  const pt = mul(G1, k);
  const inf = pt.is0();
  const aff = inf ? { x: 0n, y: 0n } : pt.toAffine();
  return { k: hr(k), infinity: inf, compressed: bytesHex(pt.toBytes(true)), uncompressed: bytesHex(pt.toBytes(false)),
    x: hp(aff.x), y: hp(aff.y) };
}
function g2Entry(k) {
  const pt = mul(G2, k);
  const inf = pt.is0();
  const aff = inf ? { x: Fp2.ZERO, y: Fp2.ZERO } : pt.toAffine();
  return { k: hr(k), infinity: inf, compressed: bytesHex(pt.toBytes(true)), uncompressed: bytesHex(pt.toBytes(false)),
    x: hp2(aff.x), y: hp2(aff.y) };
}
const specialK = [0n, 1n, 2n, 3n, 5n, R - 1n, R - 2n, (R - 1n) / 2n];
const g1 = specialK.map(g1Entry);
while (g1.length < 16) g1.push(g1Entry(randNonZero(R)));
const g2 = specialK.map(g2Entry);
while (g2.length < 16) g2.push(g2Entry(randNonZero(R)));

function addCases(Pt) {
  const cases = [];
  const pairs = [];
  for (let i = 0; i < 4; i++) pairs.push([randNonZero(R), randNonZero(R)]);
  const d = randNonZero(R);
  pairs.push([d, d]);                      // P + P (doubling through add)
  const n = randNonZero(R);
  pairs.push([n, R - n]);                  // P + (-P) = infinity
  pairs.push([0n, randNonZero(R)]);        // 0 + Q
  pairs.push([randNonZero(R), 0n]);        // P + 0
  for (const [pk, qk] of pairs) {
    const s = norm(Pt, mul(Pt, pk).add(mul(Pt, qk)));
    if (!s.equals(mul(Pt, pk + qk))) throw new Error('add check failed');
    cases.push({ p_k: hr(pk), q_k: hr(qk), sum_compressed: bytesHex(s.toBytes(true)) });
  }
  return cases;
}
const g1_add = addCases(G1);
const g2_add = addCases(G2);

// ---------------------------------------------------------------- pairing
const pairing = [];
const pairPairs = [[1n, 1n]];
for (let i = 0; i < 3; i++) pairPairs.push([randNonZero(R), randNonZero(R)]);
for (const [a, b] of pairPairs) {
  const v = bls12_381.pairing(mul(G1, a), mul(G2, b));
  pairing.push({ a: hr(a), b: hr(b), value: hp12(v) });
}
{
  // bilinearity self-check: e(aG1, bG2) == e(G1, G2)^(ab)
  const [a, b] = pairPairs[1];
  const lhs = bls12_381.pairing(mul(G1, a), mul(G2, b));
  const rhs = Fp12.pow(bls12_381.pairing(G1.BASE, G2.BASE), (a * b) % R);
  if (!Fp12.eql(lhs, rhs)) throw new Error('bilinearity check failed');
}
// a = 0: noble 2.4.0's pairing() throws on the ZERO point; the algebraic value is the identity of GT.
pairing.push({ a: hr(0n), b: hr(randNonZero(R)), value: hp12(Fp12.ONE),
  note: 'a = 0: value is Fp12 one (noble throws "pairing is not available for ZERO point", value set to the algebraic identity)' });

// ---------------------------------------------------------------- MSM
function msmCase(Pt, n, edges) {
  const ks = Array.from({ length: n }, () => randNonZero(R));
  const ss = Array.from({ length: n }, () => randBelow(R));
  if (edges) {
    ss[0] = 0n; ss[1] = 1n; ss[2] = R - 1n;
    ks[4] = ks[3];                       // same base twice
    ks[6] = R - ks[5]; ss[6] = ss[5];    // P and -P with the same scalar: cancel
  }
  let acc = Pt.ZERO;
  for (let i = 0; i < n; i++) if (ss[i] !== 0n) acc = acc.add(mul(Pt, ks[i]).multiply(ss[i]));
  let kk = 0n;
  for (let i = 0; i < n; i++) kk = (kk + ks[i] * ss[i]) % R;
  if (!acc.equals(mul(Pt, kk))) throw new Error('msm check failed');
  return { n, point_k: ks.map(hr), scalars: ss.map(hr), result_compressed: bytesHex(norm(Pt, acc).toBytes(true)) };
}
const msm_g1 = [msmCase(G1, 32, false), msmCase(G1, 32, true)];
const msm_g2 = [msmCase(G2, 8, false), msmCase(G2, 8, true)];

// ---------------------------------------------------------------- write
const doc = {
  _format: {
    generator: 'tests/peers/noble_vectors.mjs',
    noble_curves_version: JSON.parse(readFileSync(resolve(here, '../../node_modules/@noble/curves/package.json'), 'utf8')).version,
    prng: 'SHA-256("' + SEED + '" || u64_be counter) stream; random x in [0,m) = (64 stream bytes as big-endian integer) mod m',
    numbers: 'lowercase hex, no 0x, big-endian, canonical (NOT Montgomery), zero-padded: Fp = 96 hex chars (48 bytes), Fr/scalars = 64 hex chars (32 bytes)',
    p: hp(P),
    r: hr(R),
    fp: 'Fp = GF(p). inv is null for a = 0. sqr = a^2. sqrt = noble Fp.sqrt(a*a) = (a*a)^((p+1)/4) mod p, i.e. either a or p-a, NOT normalised (no "smaller root"/sign rule)',
    fr: 'Fr = GF(r), scalar field. inv is null for a = 0',
    fp2: 'Fp2 = Fp[u]/(u^2 + 1); value = [c0, c1] meaning c0 + c1*u',
    fp6: 'Fp6 = Fp2[v]/(v^3 - (1 + u)); value = c0 + c1*v + c2*v^2',
    fp12: 'Fp12 = Fp6[w]/(w^2 - v); value = c0 + c1*w. Serialised as 12 Fp hex strings, index 6*i + 2*j + k = c_i.c_j.c_k: ' +
      '[c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, c1.c0.c1, c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1]',
    fp12_cases: 'a, b are arbitrary Fp12 elements (not in GT); inv = a^-1',
    g1_g2: 'point = k * generator. compressed/uncompressed = zcash/IETF serialisation (big-endian; byte0 bit7 = compressed flag, bit6 = infinity, bit5 = sign of y (lexicographically larger) in compressed form). ' +
      'G1: 48 / 96 bytes. G2: 96 / 192 bytes with x written as x.c1 || x.c0 (and y.c1 || y.c0). x, y: affine coordinates (G2: [c0, c1]); infinity has infinity=true and x = y = 0',
    g_add: 'sum_compressed = (p_k*G) + (q_k*G) computed with point addition; includes P+P, P+(-P) = infinity, 0+Q, P+0',
    pairing: 'value = e(a*G1, b*G2) = reduced ate pairing with final exponentiation, as an Fp12 (order as above). Last case a = 0 -> Fp12 one (noble itself throws on ZERO)',
    msm: 'bases are point_k[i] * generator; result_compressed = sum_i scalars[i] * base_i. Second case of each has edge scalars (0, 1, r-1), a repeated base (3,4) and a cancelling pair (5,6)',
  },
  fp, fp_edge, fr, fr_edge, fp2: fp2v, fp12, g1, g1_add, g2, g2_add, pairing, msm_g1, msm_g2,
};
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, JSON.stringify(doc, null, 1) + '\n');
console.log(`noble_vectors: wrote ${outPath} (fp ${fp.length}+${fp_edge.length}, fr ${fr.length}+${fr_edge.length}, ` +
  `fp2 ${fp2v.length}, fp12 ${fp12.length}, g1 ${g1.length}, g1_add ${g1_add.length}, g2 ${g2.length}, g2_add ${g2_add.length}, ` +
  `pairing ${pairing.length}, msm_g1 ${msm_g1.length}, msm_g2 ${msm_g2.length})`);
