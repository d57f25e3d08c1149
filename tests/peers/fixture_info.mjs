#!/usr/bin/env node
// Independent reader of the binary headers of circom/snarkjs files, used by make_fixtures.sh to write info.json.
//
//   node tests/peers/fixture_info.mjs NAME.r1cs NAME.zkey witness.wtns public.json > info.json
//
// Parses the iden3 binfile container itself (magic, version, section table) instead of trusting snarkjs,
// and cross-checks r1cs vs zkey vs wtns vs public.json; exits 1 on any mismatch.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

function sections(buf, magic) {
  const m = buf.subarray(0, 4).toString('latin1');
  if (m !== magic) throw new Error(`bad magic ${m}, expected ${magic}`);
  const version = buf.readUInt32LE(4);
  const n = buf.readUInt32LE(8);
  let off = 12;
  const list = [];
  for (let i = 0; i < n; i++) {
    const id = buf.readUInt32LE(off);
    const size = Number(buf.readBigUInt64LE(off + 4));
    list.push({ id, offset: off + 12, size });
    off += 12 + size;
  }
  if (off !== buf.length) throw new Error(`trailing bytes in ${magic} file`);
  const byId = (id) => { const s = list.filter((x) => x.id === id); if (s.length !== 1) throw new Error(`${magic}: section ${id} x${s.length}`); return s[0]; };
  return { version, order: list.map((s) => s.id), list, byId };
}
const leInt = (b) => { let v = 0n; for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]); return v; };

const [r1csPath, zkeyPath, wtnsPath, publicPath] = process.argv.slice(2);
if (!publicPath) { console.error('usage: fixture_info.mjs NAME.r1cs NAME.zkey witness.wtns public.json'); process.exit(2); }

// ---- r1cs
const rb = readFileSync(r1csPath);
const rs = sections(rb, 'r1cs');
const h = rs.byId(1);
let o = h.offset;
const n8 = rb.readUInt32LE(o); o += 4;
const prime = leInt(rb.subarray(o, o + n8)); o += n8;
const nWires = rb.readUInt32LE(o); o += 4;
const nPubOut = rb.readUInt32LE(o); o += 4;
const nPubIn = rb.readUInt32LE(o); o += 4;
const nPrvIn = rb.readUInt32LE(o); o += 4;
const nLabels = Number(rb.readBigUInt64LE(o)); o += 8;
const nConstraints = rb.readUInt32LE(o); o += 4;
// constraint statistics
const cs = rs.byId(2);
o = cs.offset;
let linear = 0, aConstOnly = 0, bConstOnly = 0, aEmpty = 0, bEmpty = 0, nTermsA = 0, nTermsB = 0, nTermsC = 0, zeroCoefs = 0;
const readLC = () => {
  const nt = rb.readUInt32LE(o); o += 4;
  const wires = [];
  for (let t = 0; t < nt; t++) {
    wires.push(rb.readUInt32LE(o)); o += 4;
    if (leInt(rb.subarray(o, o + n8)) === 0n) zeroCoefs++;
    o += n8;
  }
  return wires;
};
for (let i = 0; i < nConstraints; i++) {
  const A = readLC(), B = readLC(), C = readLC();
  nTermsA += A.length; nTermsB += B.length; nTermsC += C.length;
  if (A.length === 0) aEmpty++;
  if (B.length === 0) bEmpty++;
  if (A.length > 0 && A.every((w) => w === 0)) aConstOnly++;
  if (B.length > 0 && B.every((w) => w === 0)) bConstOnly++;
  if (A.length === 0 || B.length === 0 || A.every((w) => w === 0) || B.every((w) => w === 0)) linear++;
}
if (o !== cs.offset + cs.size) throw new Error('r1cs constraints section size mismatch');

// ---- zkey
const zb = readFileSync(zkeyPath);
const zs = sections(zb, 'zkey');
const protocol = zb.readUInt32LE(zs.byId(1).offset);
o = zs.byId(2).offset;
const n8q = zb.readUInt32LE(o); o += 4 + n8q;
const n8r = zb.readUInt32LE(o); o += 4;
const zr = leInt(zb.subarray(o, o + n8r)); o += n8r;
const zNVars = zb.readUInt32LE(o); o += 4;
const zNPublic = zb.readUInt32LE(o); o += 4;
const domainSize = zb.readUInt32LE(o); o += 4;
const nCoefs = zb.readUInt32LE(zs.byId(4).offset);

// ---- wtns
const wb = readFileSync(wtnsPath);
const ws = sections(wb, 'wtns');
o = ws.byId(1).offset;
const wn8 = wb.readUInt32LE(o); o += 4 + wn8;
const nWitness = wb.readUInt32LE(o);
const w = [];
for (let i = 0, p = ws.byId(2).offset; i < nWitness; i++, p += wn8) w.push(leInt(wb.subarray(p, p + wn8)));
const pub = JSON.parse(readFileSync(publicPath, 'utf8')).map(BigInt);

const nPublic = nPubOut + nPubIn;
const errs = [];
if (zr !== prime) errs.push('zkey r != r1cs prime');
if (protocol !== 1) errs.push('zkey is not groth16');
if (zNVars !== nWires) errs.push(`zkey nVars ${zNVars} != r1cs nWires ${nWires}`);
if (zNPublic !== nPublic) errs.push(`zkey nPublic ${zNPublic} != ${nPublic}`);
if (nWitness !== nWires) errs.push(`wtns has ${nWitness} values, r1cs ${nWires} wires`);
if (w[0] !== 1n) errs.push('witness[0] != 1');
if (pub.length !== nPublic || pub.some((v, i) => v !== w[i + 1])) errs.push('public.json != witness[1..nPublic]');
if (nConstraints + nPublic + 1 > domainSize) errs.push('domain too small');
if (nConstraints + nPublic + 1 > 1024) errs.push('does not fit the 2^10 ptau');
if (errs.length) { console.error(`fixture_info ${basename(r1csPath)}: ` + errs.join('; ')); process.exit(1); }

const info = {
  nConstraints,
  nVars: nWires,
  nPublic,
  domainSize,
  nOutputs: nPubOut,
  nPublicInputs: nPubIn,
  nPrivateInputs: nPrvIn,
  nLabels,
  r1cs: {
    prime: prime.toString(),
    sectionOrder: rs.order,
    linearConstraints: linear,
    aEmpty, bEmpty, aConstantOnly: aConstOnly, bConstantOnly: bConstOnly,
    nTerms: { A: nTermsA, B: nTermsB, C: nTermsC },
    zeroCoefficientTerms: zeroCoefs,
  },
  zkey: {
    sectionOrder: zs.order,
    nCoefs,
    nCoefsNote: 'sec4 entries: A and B terms of the r1cs plus one A entry per public signal incl. wire 0 (nPublic+1)',
  },
  witness: {
    n: nWitness,
    zeros: w.filter((v) => v === 0n).length,
    ones: w.filter((v) => v === 1n).length,
  },
};
process.stdout.write(JSON.stringify(info, null, 1) + '\n');
