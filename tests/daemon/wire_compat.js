#!/usr/bin/env node
// Wire-compatibility test: a client in another language (Node, @grpc/grpc-js + @grpc/proto-loader,
// protos loaded at run time) drives a running cuzk-daemon through every RPC.
//
//   node wire_compat.js UNIX_ADDR TCP_ADDR FIXTURES_DIR SLOW_ZKEY SLOW_WTNS [METRICS_OUT]
//
// Curio's RPCs go through a client built from curio_proving.proto (Curio's definition, none of our
// extensions); the GENERIC_GROTH16 extension through one built from proto/cuzk/v1/proving.proto.
// The returned proof is decompressed with @noble/curves and verified by snarkjs, so neither the
// encoding nor the proof is checked by cuzk's own code. Prints "ok - ..." per check; exit 1 on the
// first failure.
'use strict';
const path = require('path');
const fs = require('fs');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const { bls12_381 } = require('@noble/curves/bls12-381.js');

const [unixAddr, tcpAddr, fixtures, slowZkey, slowWtns, metricsOut] = process.argv.slice(2);
const root = path.resolve(__dirname, '../..');
const LIMIT = 300 * 1024 * 1024;

function makeClient(protoFile, target) {
  const def = loader.loadSync(protoFile, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def).cuzk.v1;
  return new pkg.ProvingEngine(target, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': LIMIT,
    'grpc.max_send_message_length': LIMIT,
  });
}
const curio = makeClient(path.join(__dirname, 'curio_proving.proto'), unixAddr);
const curioTcp = makeClient(path.join(__dirname, 'curio_proving.proto'), tcpAddr);
const ours = makeClient(path.join(root, 'proto/cuzk/v1/proving.proto'), tcpAddr);

function call(client, method, req, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    client[method](req, { deadline: Date.now() + timeoutMs }, (err, resp) => (err ? reject(err) : resolve(resp)));
  });
}
const { ok, count } = require('./tap.js');
async function expectGrpcError(p, code, name) {
  try {
    await p;
    ok(false, name, 'the call succeeded');
  } catch (e) {
    ok(e.code === code, name, `code ${e.code}: ${e.details}`);
  }
}

// 192-byte zcash-compressed proof -> snarkjs proof.json object.
function proofJson(bytes) {
  const A = bls12_381.G1.Point.fromBytes(bytes.subarray(0, 48)).toAffine();
  const B = bls12_381.G2.Point.fromBytes(bytes.subarray(48, 144)).toAffine();
  const C = bls12_381.G1.Point.fromBytes(bytes.subarray(144, 192)).toAffine();
  return {
    pi_a: [A.x.toString(), A.y.toString(), '1'],
    pi_b: [[B.x.c0.toString(), B.x.c1.toString()], [B.y.c0.toString(), B.y.c1.toString()], ['1', '0']],
    pi_c: [C.x.toString(), C.y.toString(), '1'],
    protocol: 'groth16',
    curve: 'bls12381',
  };
}

function c1Wrapper() {
  const phase1 = Buffer.from(JSON.stringify({ registered_proof: 'StackedDrg2KiBV1_1', comm_r: [1] })).toString('base64');
  return Buffer.from(JSON.stringify({ SectorNum: 7, Phase1Out: phase1, SectorSize: 2048 }));
}

async function main() {
  const snarkjs = require('snarkjs');
  const fx = (c, f) => path.join(fixtures, c, f);

  // --- GetStatus through Curio's definition, over the unix socket and TCP.
  let st = await call(curio, 'GetStatus', {});
  ok(Array.isArray(st.gpus) && st.gpus.length >= 1, 'GetStatus (unix socket): gpus listed');
  ok(/^\d+$/.test(st.uptime_seconds), 'GetStatus: uptime_seconds is a uint64');
  st = await call(curioTcp, 'GetStatus', {});
  ok(st.gpus.length >= 1, 'GetStatus (TCP)');

  // --- RegisterCircuit (extension), PreloadSRS / EvictSRS (Curio).
  const reg = await call(ours, 'RegisterCircuit', { circuit_id: 'mulchain', zkey_path: fx('mulchain', 'mulchain.zkey'), preload: true });
  ok(reg.num_vars === 203 && reg.num_public === 2, 'RegisterCircuit: mulchain loaded', JSON.stringify(reg));
  let pre = await call(curio, 'PreloadSRS', { circuit_id: 'mulchain' });
  ok(pre.already_loaded === true, 'PreloadSRS: already loaded');
  const ev = await call(curio, 'EvictSRS', { circuit_id: 'mulchain' });
  ok(ev.was_loaded === true && Number(ev.freed_bytes) > 0, 'EvictSRS: was loaded, bytes freed', JSON.stringify(ev));
  const ev2 = await call(curio, 'EvictSRS', { circuit_id: 'mulchain' });
  ok(ev2.was_loaded === false && ev2.freed_bytes === '0', 'EvictSRS again: not loaded');
  pre = await call(curio, 'PreloadSRS', { circuit_id: 'mulchain' });
  ok(pre.already_loaded === false, 'PreloadSRS: loads again');
  await expectGrpcError(call(curio, 'PreloadSRS', { circuit_id: 'no-such-circuit' }), grpc.status.NOT_FOUND, 'PreloadSRS unknown id: NOT_FOUND');
  await expectGrpcError(call(curio, 'EvictSRS', { circuit_id: 'no-such-circuit' }), grpc.status.NOT_FOUND, 'EvictSRS unknown id: NOT_FOUND');

  // --- Prove (extension kind GENERIC_GROTH16); the proof checked by noble + snarkjs.
  const wtns = fs.readFileSync(fx('mulchain', 'witness.wtns'));
  const pr = await call(ours, 'Prove', { submit: { request_id: 'node-generic-1', proof_kind: 'GENERIC_GROTH16', circuit_id: 'mulchain', witness_wtns: wtns } });
  const r = pr.result;
  ok(r.status === 'COMPLETED', 'Prove generic: COMPLETED', r.error_message);
  ok(r.proof.length === 192, 'Prove generic: 192-byte proof');
  ok(r.job_id === 'node-generic-1', 'Prove: job_id is the request_id');
  ok(r.partitions.length === 1 && Number(r.partitions[0].finalize_end_us) > 0, 'Prove: partition timings present');
  const vk = JSON.parse(fs.readFileSync(fx('mulchain', 'verification_key.json')));
  const pub = JSON.parse(fs.readFileSync(fx('mulchain', 'public.json')));
  const valid = await snarkjs.groth16.verify(vk, pub, proofJson(r.proof));
  ok(valid === true, 'snarkjs verifies the daemon\'s proof');

  // --- Filecoin kinds through Curio's definition: accepted, then FAILED with a clear message.
  let res = (await call(curio, 'Prove', { submit: { request_id: 'porep-1000-7', proof_kind: 'POREP_SEAL_COMMIT', sector_size: '2048', registered_proof: '8', vanilla_proof: c1Wrapper(), sector_number: '7', miner_id: '1000' } })).result;
  ok(res.status === 'FAILED' && res.error_message.startsWith('porep-c2: vanilla_proof: Curio wrapper JSON: '), 'Prove PoRep truncated C1: FAILED naming the field', res.error_message);
  res = (await call(curio, 'Prove', { submit: { proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: Buffer.from('garbage') } })).result;
  ok(res.status === 'FAILED' && res.error_message.startsWith('porep-c2: vanilla_proof: bincode: '), 'Prove PoRep garbage vanilla proof: FAILED', res.error_message);
  res = (await call(curio, 'Prove', { submit: { proof_kind: 'WINNING_POST', randomness: Buffer.alloc(5), vanilla_proofs: [Buffer.from('x')] } })).result;
  ok(res.status === 'FAILED' && res.error_message.includes('randomness must be 32 bytes, got 5'), 'Prove WinningPoSt short randomness: FAILED', res.error_message);
  res = (await call(curio, 'Prove', { submit: { proof_kind: 'WINDOW_POST_PARTITION', sector_size: '34359738368', registered_proof: '13', randomness: Buffer.alloc(32), vanilla_proofs: [Buffer.from('x')], partition_index: 1 } })).result;
  ok(res.status === 'FAILED' && res.error_message.startsWith('window-post: vanilla_proofs[0]: '), 'Prove WindowPoSt garbage vanilla proof: FAILED naming the field', res.error_message);
  res = (await call(curio, 'Prove', { submit: { proof_kind: 'WINDOW_POST_PARTITION', registered_proof: '3', randomness: Buffer.alloc(32), vanilla_proofs: [Buffer.from('x')] } })).result;
  ok(res.status === 'FAILED' && res.error_message.startsWith('window-post: registered_proof 3 is StackedDrgWinning32GiBV1, a winning-post proof'), 'Prove WindowPoSt with a Winning code: FAILED', res.error_message);
  res = (await call(curio, 'Prove', { submit: { proof_kind: 'SNAP_DEALS_UPDATE', vanilla_proofs: [Buffer.from('p')], comm_r_old: Buffer.alloc(32), comm_r_new: Buffer.alloc(32), comm_d_new: Buffer.alloc(3) } })).result;
  ok(res.status === 'FAILED' && res.error_message.includes('comm_d_new must be 32 bytes'), 'Prove SnapDeals short commitment: FAILED', res.error_message);
  res = (await call(curio, 'Prove', { submit: { proof_kind: 7 } })).result;
  ok(res.status === 'FAILED' && res.error_message.includes('unknown proof_kind 7'), 'Prove unknown kind: FAILED', res.error_message);
  await expectGrpcError(call(curio, 'Prove', {}), grpc.status.INVALID_ARGUMENT, 'Prove without submit: INVALID_ARGUMENT');
  // A message above Rust's 128 MiB limit (Curio's client allows 256 MiB).
  res = (await call(curio, 'Prove', { submit: { proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: Buffer.alloc(200 * 1024 * 1024, 0x20) } }, 120000)).result;
  ok(res.status === 'FAILED' && res.error_message.includes('porep-c2:'), '200 MiB request accepted (and rejected by validation)', res.error_message);

  // --- SubmitProof / AwaitProof with timeout / CancelProof, with a slow generic circuit.
  await call(ours, 'RegisterCircuit', { circuit_id: 'slow', zkey_path: slowZkey, preload: true });
  const slowW = fs.readFileSync(slowWtns);
  const s1 = await call(ours, 'SubmitProof', { request_id: 'slow-1', proof_kind: 'GENERIC_GROTH16', circuit_id: 'slow', witness_wtns: slowW });
  ok(s1.job_id === 'slow-1', 'SubmitProof: job id');
  // Two more NORMAL jobs, so that the LOW one is still waiting when it is cancelled even on a fast machine.
  for (const id of ['slow-1b', 'slow-1c']) {
    await call(ours, 'SubmitProof', { request_id: id, proof_kind: 'GENERIC_GROTH16', circuit_id: 'slow', witness_wtns: slowW });
  }
  const s2 = await call(ours, 'SubmitProof', { request_id: 'slow-2', proof_kind: 'GENERIC_GROTH16', circuit_id: 'slow', witness_wtns: slowW, priority: 'LOW' });
  const dup = await call(ours, 'SubmitProof', { request_id: 'slow-1', proof_kind: 'GENERIC_GROTH16', circuit_id: 'slow', witness_wtns: slowW });
  ok(dup.job_id === 'slow-1' && dup.joined_existing === true, 'SubmitProof duplicate request_id joins the job');
  const t0 = Date.now();
  let aw = await call(curio, 'AwaitProof', { job_id: 'slow-1', timeout_ms: 20 });
  ok(aw.status === 'TIMEOUT', 'AwaitProof timeout_ms honoured: TIMEOUT', aw.status);
  ok(Date.now() - t0 < 5000, 'AwaitProof returned promptly');
  const c = await call(curio, 'CancelProof', { job_id: 'slow-2' });
  ok(c.was_running === true, 'CancelProof: was_running');
  aw = await call(curio, 'AwaitProof', { job_id: 'slow-2', timeout_ms: 10000 });
  ok(aw.status === 'CANCELLED', 'AwaitProof after cancel: CANCELLED', aw.status + ' ' + aw.error_message);
  const c2 = await call(curio, 'CancelProof', { job_id: 'never-submitted' });
  ok(c2.was_running === false, 'CancelProof unknown job: was_running false');
  aw = await call(curio, 'AwaitProof', { job_id: 'slow-1', timeout_ms: 0 });
  ok(aw.status === 'COMPLETED' && aw.proof.length === 192, 'AwaitProof (no timeout): COMPLETED', aw.error_message);
  ok(Number(aw.gpu_compute_ms) > 0 && Number(aw.total_ms) >= Number(aw.gpu_compute_ms), 'AwaitProof: timings filled');
  await expectGrpcError(call(curio, 'AwaitProof', { job_id: 'no-such-job', timeout_ms: 10 }), grpc.status.NOT_FOUND, 'AwaitProof unknown job: NOT_FOUND');

  // --- GetMetrics and the final status.
  const m = await call(curio, 'GetMetrics', {});
  ok(m.prometheus_text.includes('# TYPE cuzk_proofs_completed_total counter'), 'GetMetrics: Prometheus text');
  if (metricsOut) fs.writeFileSync(metricsOut, m.prometheus_text);
  st = await call(curio, 'GetStatus', {});
  ok(Number(st.total_proofs_completed) >= 2, 'GetStatus: completed counted', st.total_proofs_completed);
  ok(Number(st.total_proofs_failed) >= 7, 'GetStatus: failed counted', st.total_proofs_failed);
  const srs = st.loaded_srs.find((x) => x.circuit_id === 'mulchain');
  ok(srs && srs.tier === 'HOT' && Number(srs.size_bytes) > 0, 'GetStatus: mulchain resident (HOT, size known)', JSON.stringify(srs));
  console.log(`# ${count()} checks passed`);
}

main().then(() => process.exit(0), (e) => {
  console.log(`not ok - exception: ${e.stack || e}`);
  process.exit(1);
});
