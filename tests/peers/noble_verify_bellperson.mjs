#!/usr/bin/env node
// Independent Groth16 verifier for bellperson / Filecoin binary files, using only @noble/curves for
// the curve arithmetic and pairing. Nothing here shares code with cuzk's C++.
//
//   node tests/peers/noble_verify_bellperson.mjs KEY.vk PROOF.bin INPUTS.json
//
//   KEY.vk       bellperson VerifyingKey::write: alpha_g1 (96) beta_g1 (96) beta_g2 (192) gamma_g2 (192)
//                delta_g1 (96) delta_g2 (192), u32 big-endian ic_len, ic_len x G1 (96); points are
//                zcash-uncompressed (big-endian, flags in the top 3 bits of byte 0, G2 as c1 || c0).
//                A bellperson .params file is accepted too (only its vk prefix is read).
//   PROOF.bin    192 bytes: A (G1, 48) || B (G2, 96) || C (G1, 48), zcash-compressed; or k x 192 bytes
//                for a k-partition proof.
//   INPUTS.json  a JSON array of the public inputs as decimal strings (ONE not included), or for a
//                k-partition proof an array of k such arrays.
//
// exit 0 + "noble: OK"                 every partition verifies
// exit 1 + "noble: INVALID"            well-formed, but a pairing check fails, a proof point is not a
//                                      valid non-identity point of its group, or an input is >= r
// exit 2 + "noble: MALFORMED: reason"  unreadable files, wrong sizes/lengths, a vk point that is not a
//                                      valid subgroup point, an identity in ic
//
// Check per partition: e(-A, B) * e(alpha, beta) * e(acc, gamma) * e(C, delta) == 1 with
// acc = ic[0] + sum_i input_i * ic[i+1], one final exponentiation (pairingBatch). Terms with an
// identity point are dropped (they contribute 1; noble refuses ZERO in pairings).
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { readFileSync } from 'node:fs';

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const HALF_P = (P - 1n) / 2n;
const B1 = 4n;
const B2 = Fp2.create({ c0: 4n, c1: 4n });

class Malformed extends Error {}
class Invalid extends Error {}

// Big-endian 48-byte field element; the caller has cleared the flag bits of the first byte.
function fpAt(bytes, off, what, Err) {
  let v = 0n;
  for (let i = 0; i < 48; i++) v = (v << 8n) | BigInt(bytes[off + i]);
  if (v >= P) throw new Err(`${what}: coordinate is not < p`);
  return v;
}

// Splits the zcash flags off a copy of the encoding.
function flagsOf(bytes, off, len, what, Err) {
  const b = Uint8Array.from(bytes.subarray(off, off + len));
  if (b.length !== len) throw new Err(`${what}: truncated`);
  const compressed = (b[0] & 0x80) !== 0, infinity = (b[0] & 0x40) !== 0, sign = (b[0] & 0x20) !== 0;
  b[0] &= 0x1f;
  if (infinity) {
    if (sign || b.some((x) => x !== 0)) throw new Err(`${what}: infinity flag with non-zero bits`);
  }
  return { b, compressed, infinity, sign };
}

function g1Uncompressed(bytes, off, what, Err) {
  const f = flagsOf(bytes, off, 96, what, Err);
  if (f.compressed) throw new Err(`${what}: compression flag set in an uncompressed encoding`);
  if (f.infinity) return G1.ZERO;
  if (f.sign) throw new Err(`${what}: sign flag set in an uncompressed encoding`);
  const x = fpAt(f.b, 0, what, Err), y = fpAt(f.b, 48, what, Err);
  try { const p = G1.fromAffine({ x, y }); p.assertValidity(); return p; } catch (e) {
    throw new Err(`${what}: not a valid G1 point (${e.message})`);
  }
}

function g2Uncompressed(bytes, off, what, Err) {
  const f = flagsOf(bytes, off, 192, what, Err);
  if (f.compressed) throw new Err(`${what}: compression flag set in an uncompressed encoding`);
  if (f.infinity) return G2.ZERO;
  if (f.sign) throw new Err(`${what}: sign flag set in an uncompressed encoding`);
  const x = Fp2.create({ c1: fpAt(f.b, 0, what, Err), c0: fpAt(f.b, 48, what, Err) });
  const y = Fp2.create({ c1: fpAt(f.b, 96, what, Err), c0: fpAt(f.b, 144, what, Err) });
  try { const p = G2.fromAffine({ x, y }); p.assertValidity(); return p; } catch (e) {
    throw new Err(`${what}: not a valid G2 point (${e.message})`);
  }
}

// Compressed proof points: identity rejected (bellperson Proof::read_many), y from the sign flag.
function g1Compressed(bytes, off, what) {
  const f = flagsOf(bytes, off, 48, what, Invalid);
  if (!f.compressed) throw new Invalid(`${what}: compression flag not set`);
  if (f.infinity) throw new Invalid(`${what}: identity point in a proof`);
  const x = fpAt(f.b, 0, what, Invalid);
  let y;
  try { y = Fp.sqrt(Fp.add(Fp.pow(x, 3n), B1)); } catch { y = undefined; }
  if (y === undefined || Fp.sqr(y) !== Fp.add(Fp.pow(x, 3n), B1)) throw new Invalid(`${what}: x is not on the curve`);
  if ((y > HALF_P) !== f.sign) y = Fp.neg(y);
  try { const p = G1.fromAffine({ x, y }); p.assertValidity(); return p; } catch (e) {
    throw new Invalid(`${what}: not a valid G1 point (${e.message})`);
  }
}

function g2Compressed(bytes, off, what) {
  const f = flagsOf(bytes, off, 96, what, Invalid);
  if (!f.compressed) throw new Invalid(`${what}: compression flag not set`);
  if (f.infinity) throw new Invalid(`${what}: identity point in a proof`);
  const x = Fp2.create({ c1: fpAt(f.b, 0, what, Invalid), c0: fpAt(f.b, 48, what, Invalid) });
  const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2);
  let y;
  try { y = Fp2.sqrt(rhs); } catch { y = undefined; }
  if (y === undefined || !Fp2.eql(Fp2.sqr(y), rhs)) throw new Invalid(`${what}: x is not on the curve`);
  // zcash sign of an Fp2 element: c1 decides unless it is zero, then c0.
  const larger = (v) => (v.c1 !== 0n ? v.c1 > HALF_P : v.c0 > HALF_P);
  if (larger(y) !== f.sign) y = Fp2.neg(y);
  try { const p = G2.fromAffine({ x, y }); p.assertValidity(); return p; } catch (e) {
    throw new Invalid(`${what}: not a valid G2 point (${e.message})`);
  }
}

function readBytes(path, what) {
  try { return new Uint8Array(readFileSync(path)); } catch (e) { throw new Malformed(`cannot read ${what} ${path}: ${e.message}`); }
}

function readVk(path) {
  const bytes = readBytes(path, 'vk');
  if (bytes.length < 868) throw new Malformed(`vk ${path}: ${bytes.length} bytes, a verifying key needs at least 868`);
  const icLen = ((bytes[864] << 24) >>> 0) + (bytes[865] << 16) + (bytes[866] << 8) + bytes[867];
  const need = 868 + 96 * icLen;
  if (bytes.length < need) throw new Malformed(`vk ${path}: ic has ${icLen} points, needs ${need} bytes, file has ${bytes.length}`);
  const vk = {
    alpha: g1Uncompressed(bytes, 0, 'vk alpha_g1', Malformed),
    beta1: g1Uncompressed(bytes, 96, 'vk beta_g1', Malformed),
    beta: g2Uncompressed(bytes, 192, 'vk beta_g2', Malformed),
    gamma: g2Uncompressed(bytes, 384, 'vk gamma_g2', Malformed),
    delta1: g1Uncompressed(bytes, 576, 'vk delta_g1', Malformed),
    delta: g2Uncompressed(bytes, 672, 'vk delta_g2', Malformed),
    ic: [],
  };
  for (let i = 0; i < icLen; i++) {
    const p = g1Uncompressed(bytes, 868 + 96 * i, `vk ic[${i}]`, Malformed);
    if (p.is0()) throw new Malformed(`vk ic[${i}]: identity (bellperson rejects it)`);
    vk.ic.push(p);
  }
  if (vk.ic.length < 1) throw new Malformed('vk: ic is empty');
  return vk;
}

function readInputs(path, partitions, nPublic) {
  let j;
  try { j = JSON.parse(readFileSync(path, 'utf8')); } catch (e) { throw new Malformed(`inputs ${path}: ${e.message}`); }
  if (!Array.isArray(j)) throw new Malformed('inputs: expected a JSON array');
  const nested = j.length > 0 && Array.isArray(j[0]);
  const lists = nested ? j : [j];
  if (!nested && partitions !== 1) throw new Malformed(`inputs: the proof has ${partitions} partitions, expected ${partitions} arrays`);
  if (lists.length !== partitions) throw new Malformed(`inputs: ${lists.length} input arrays for ${partitions} partitions`);
  return lists.map((list, k) => {
    if (!Array.isArray(list)) throw new Malformed(`inputs[${k}]: expected an array`);
    if (list.length !== nPublic) throw new Malformed(`inputs[${k}]: ${list.length} values, the vk has ${nPublic} public inputs`);
    return list.map((v, i) => {
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
      if (typeof v !== 'string' || !/^[0-9]+$/.test(v)) throw new Malformed(`inputs[${k}][${i}]: expected a decimal string`);
      return BigInt(v);
    });
  });
}

function verify(vkPath, proofPath, inputsPath) {
  const vk = readVk(vkPath);
  const proofBytes = readBytes(proofPath, 'proof');
  if (proofBytes.length === 0 || proofBytes.length % 192 !== 0) {
    throw new Malformed(`proof ${proofPath}: ${proofBytes.length} bytes, expected a multiple of 192`);
  }
  const partitions = proofBytes.length / 192;
  const nPublic = vk.ic.length - 1;
  const inputs = readInputs(inputsPath, partitions, nPublic);
  for (let k = 0; k < partitions; k++) {
    const off = 192 * k;
    const A = g1Compressed(proofBytes, off, `proof[${k}].A`);
    const B = g2Compressed(proofBytes, off + 48, `proof[${k}].B`);
    const C = g1Compressed(proofBytes, off + 144, `proof[${k}].C`);
    let acc = vk.ic[0];
    inputs[k].forEach((s, i) => {
      if (s >= Fr.ORDER) throw new Invalid(`inputs[${k}][${i}] >= r`);
      if (s !== 0n) acc = acc.add(vk.ic[i + 1].multiplyUnsafe(s));
    });
    const terms = [
      { g1: A.negate(), g2: B },
      { g1: vk.alpha, g2: vk.beta },
      { g1: acc, g2: vk.gamma },
      { g1: C, g2: vk.delta },
    ].filter((t) => !t.g1.is0() && !t.g2.is0());
    const res = terms.length ? bls12_381.pairingBatch(terms) : Fp12.ONE;
    if (!Fp12.eql(res, Fp12.ONE)) throw new Invalid(`partition ${k}: pairing check failed`);
  }
}

const args = process.argv.slice(2);
if (args.length !== 3) {
  console.error('usage: noble_verify_bellperson.mjs KEY.vk PROOF.bin INPUTS.json');
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
