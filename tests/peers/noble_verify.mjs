#!/usr/bin/env node
// Independent Groth16 verifier for snarkjs' BLS12-381 JSON files, using only @noble/curves.
//
//   node tests/peers/noble_verify.mjs verification_key.json proof.json public.json
//
// exit 0 + "noble: OK"       proof valid
// exit 1 + "noble: INVALID"  files well-formed but the proof does not verify (pairing check fails,
//                            a proof point is not on the curve / not in the prime-order subgroup,
//                            or a public input is not < r)
// exit 2 + "noble: MALFORMED: ..."  unreadable / wrongly shaped files, vk not a valid BLS12-381 Groth16 key,
//                            public.json length != vk.nPublic
//
// Check: e(-A, B) * e(alpha1, beta2) * e(vk_x, gamma2) * e(C, delta2) == 1 with
// vk_x = IC[0] + sum_i public[i] * IC[i+1] (same equation as snarkjs groth16 verify), one final
// exponentiation via pairingBatch. Terms with a point at infinity are dropped (they contribute 1;
// noble's pairingBatch refuses ZERO points). If the vk carries vk_alphabeta_12 it is compared with
// e(alpha1, beta2) (a check of snarkjs' Fp12 JSON layout [2][3][2] = c_i.c_j.c_k).
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { readFileSync } from 'node:fs';

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;

class Malformed extends Error {}
class Invalid extends Error {}

const malformed = (msg) => { throw new Malformed(msg); };
const dec = (s, what) => {
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) malformed(`${what}: expected a decimal string, got ${JSON.stringify(s)}`);
  return BigInt(s);
};
const fp = (s, what) => {
  const v = dec(s, what);
  if (v >= Fp.ORDER) malformed(`${what}: coordinate >= p`);
  return v;
};
const isArr = (a, n) => Array.isArray(a) && (n === undefined || a.length === n);

// kind: 'proof' -> problems are INVALID (exit 1); 'vk' -> MALFORMED (exit 2)
function g1(a, what, kind) {
  if (!isArr(a, 3) && !isArr(a, 2)) malformed(`${what}: expected [x, y, z] or [x, y]`);
  const x = fp(a[0], `${what}.x`), y = fp(a[1], `${what}.y`);
  const z = a.length === 3 ? dec(a[2], `${what}.z`) : 1n;
  if (z === 0n) return G1.ZERO;
  if (z !== 1n) malformed(`${what}: z must be "1" (affine) or "0" (infinity)`);
  let p;
  try { p = G1.fromAffine({ x, y }); p.assertValidity(); } catch (e) {
    const msg = `${what}: not a valid G1 point (${e.message})`;
    if (kind === 'proof') throw new Invalid(msg); malformed(msg);
  }
  return p;
}
function g2(a, what, kind) {
  if (!isArr(a, 3) && !isArr(a, 2)) malformed(`${what}: expected [x, y, z] or [x, y]`);
  const f2 = (c, w) => {
    if (!isArr(c, 2)) malformed(`${w}: expected [c0, c1]`);
    return Fp2.create({ c0: fp(c[0], `${w}.c0`), c1: fp(c[1], `${w}.c1`) });
  };
  const x = f2(a[0], `${what}.x`), y = f2(a[1], `${what}.y`);
  if (a.length === 3) {
    const z = f2(a[2], `${what}.z`);
    if (Fp2.is0(z)) return G2.ZERO;
    if (!Fp2.eql(z, Fp2.ONE)) malformed(`${what}: z must be ["1","0"] (affine) or ["0","0"] (infinity)`);
  }
  let p;
  try { p = G2.fromAffine({ x, y }); p.assertValidity(); } catch (e) {
    const msg = `${what}: not a valid G2 point (${e.message})`;
    if (kind === 'proof') throw new Invalid(msg); malformed(msg);
  }
  return p;
}
function fp12FromSnarkjs(v, what) {
  // snarkjs: [[[c0.c0.c0, c0.c0.c1], [c0.c1.c0, ...], [c0.c2...]], [[c1.c0...], ...]]
  if (!isArr(v, 2) || !v.every((x) => isArr(x, 3) && x.every((y) => isArr(y, 2)))) malformed(`${what}: expected [2][3][2]`);
  const f2 = (c) => Fp2.create({ c0: fp(c[0], what), c1: fp(c[1], what) });
  const f6 = (c) => ({ c0: f2(c[0]), c1: f2(c[1]), c2: f2(c[2]) });
  return { c0: f6(v[0]), c1: f6(v[1]) };
}
function readJson(path, what) {
  let txt;
  try { txt = readFileSync(path, 'utf8'); } catch (e) { malformed(`cannot read ${what} ${path}: ${e.message}`); }
  try { return JSON.parse(txt); } catch (e) { malformed(`${what} ${path} is not JSON: ${e.message}`); }
}

function verify(vkPath, proofPath, publicPath) {
  const vk = readJson(vkPath, 'vk');
  const proof = readJson(proofPath, 'proof');
  const pub = readJson(publicPath, 'public');
  if (vk === null || typeof vk !== 'object') malformed('vk: not an object');
  if (proof === null || typeof proof !== 'object') malformed('proof: not an object');
  if (vk.protocol !== undefined && vk.protocol !== 'groth16') malformed(`vk.protocol is ${vk.protocol}`);
  if (vk.curve !== undefined && vk.curve !== 'bls12381') malformed(`vk.curve is ${vk.curve}`);
  if (proof.protocol !== undefined && proof.protocol !== 'groth16') malformed(`proof.protocol is ${proof.protocol}`);
  if (proof.curve !== undefined && proof.curve !== 'bls12381') malformed(`proof.curve is ${proof.curve}`);
  if (!isArr(vk.IC) || vk.IC.length < 1) malformed('vk.IC missing');
  const nPublic = vk.IC.length - 1;
  if (vk.nPublic !== undefined && vk.nPublic !== nPublic) malformed(`vk.nPublic ${vk.nPublic} != IC.length-1 ${nPublic}`);
  if (!isArr(pub)) malformed('public.json: expected an array');
  if (pub.length !== nPublic) malformed(`public.json has ${pub.length} values, vk expects ${nPublic}`);

  const alpha = g1(vk.vk_alpha_1, 'vk_alpha_1', 'vk');
  const beta = g2(vk.vk_beta_2, 'vk_beta_2', 'vk');
  const gamma = g2(vk.vk_gamma_2, 'vk_gamma_2', 'vk');
  const delta = g2(vk.vk_delta_2, 'vk_delta_2', 'vk');
  const IC = vk.IC.map((p, i) => g1(p, `IC[${i}]`, 'vk'));
  if (vk.vk_alphabeta_12 !== undefined && !alpha.is0() && !beta.is0()) {
    const ab = fp12FromSnarkjs(vk.vk_alphabeta_12, 'vk_alphabeta_12');
    if (!Fp12.eql(ab, bls12_381.pairing(alpha, beta))) malformed('vk_alphabeta_12 != e(vk_alpha_1, vk_beta_2)');
  }
  const s = pub.map((v, i) => dec(v, `public[${i}]`));

  // proof parsing: bad points => INVALID
  const A = g1(proof.pi_a, 'pi_a', 'proof');
  const B = g2(proof.pi_b, 'pi_b', 'proof');
  const C = g1(proof.pi_c, 'pi_c', 'proof');
  s.forEach((v, i) => { if (v >= Fr.ORDER) throw new Invalid(`public[${i}] >= r`); });

  let vkx = IC[0];
  for (let i = 0; i < nPublic; i++) if (s[i] !== 0n) vkx = vkx.add(IC[i + 1].multiplyUnsafe(s[i]));

  const terms = [
    { g1: A.negate(), g2: B },
    { g1: alpha, g2: beta },
    { g1: vkx, g2: gamma },
    { g1: C, g2: delta },
  ].filter((t) => !t.g1.is0() && !t.g2.is0());
  const res = terms.length ? bls12_381.pairingBatch(terms) : Fp12.ONE;
  if (!Fp12.eql(res, Fp12.ONE)) throw new Invalid('pairing check failed');
}

const args = process.argv.slice(2);
if (args.length !== 3) {
  console.error('usage: noble_verify.mjs verification_key.json proof.json public.json');
  process.exit(2);
}
try {
  verify(...args);
  console.log('noble: OK');
  process.exit(0);
} catch (e) {
  if (e instanceof Invalid) { console.log('noble: INVALID'); console.error(`noble: ${e.message}`); process.exit(1); }
  if (e instanceof Malformed) { console.log(`noble: MALFORMED: ${e.message}`); process.exit(2); }
  console.log(`noble: MALFORMED: ${e && e.message}`);
  process.exit(2);
}
