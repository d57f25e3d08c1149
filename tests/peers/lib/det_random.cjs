// Deterministic replacement for Node's CSPRNG, preloaded into snarkjs with
//   NODE_OPTIONS="--require /abs/path/det_random.cjs" CUZK_DET_SEED=<label> npx snarkjs ...
//
// Why: snarkjs mixes crypto.randomFillSync() bytes into every `-e=` entropy string
// (misc.getRandomRng: blake2b(randomBytes(64) || entropy)), and groth16 prove draws r, s from
// ffjavascript's thread RNG, which is also seeded from crypto.randomFillSync(). So `-e=...`
// alone does NOT make a ceremony reproducible. With this preload every random byte is
// SHA-256(seed || counter), so the same command with the same CUZK_DET_SEED writes the same
// bytes. FOR TEST FIXTURES ONLY: the "toxic waste" of such a setup is public.
// If CUZK_DET_SEED is unset or empty this file does nothing.
'use strict';
const crypto = require('crypto');
const seed = process.env.CUZK_DET_SEED;
if (seed) {
  let counter = 0n;
  let pool = Buffer.alloc(0);
  const next = (n) => {
    const parts = [pool];
    let have = pool.length;
    while (have < n) {
      const ctr = Buffer.alloc(8);
      ctr.writeBigUInt64BE(counter++);
      const blk = crypto.createHash('sha256').update('cuzk-det-random/').update(seed).update(ctr).digest();
      parts.push(blk);
      have += blk.length;
    }
    const all = Buffer.concat(parts);
    pool = all.subarray(n);
    return all.subarray(0, n);
  };
  const fill = (buf, offset, size) => {
    const view = ArrayBuffer.isView(buf)
      ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
      : new Uint8Array(buf);
    const off = offset === undefined ? 0 : offset;
    const len = size === undefined ? view.length - off : size;
    view.set(next(len), off);
    return buf;
  };
  crypto.randomFillSync = fill;
  crypto.randomBytes = (n, cb) => {
    const b = Buffer.from(next(n));
    if (typeof cb === 'function') { process.nextTick(cb, null, b); return undefined; }
    return b;
  };
  if (globalThis.crypto && typeof globalThis.crypto.getRandomValues === 'function') {
    try {
      Object.defineProperty(globalThis.crypto, 'getRandomValues', {
        value: (a) => fill(a), configurable: true, writable: true,
      });
    } catch (_) { /* read-only in this runtime: snarkjs uses randomFillSync under node anyway */ }
  }
}
