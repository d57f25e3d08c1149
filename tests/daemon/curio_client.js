#!/usr/bin/env node
// A client that speaks to cuzk as Curio's Go code does (issue 38; our own code, built from the facts
// of filecoin-project/curio lib/ffi/cuzk_funcs.go, lib/cuzk/client.go, tasks/window/compute_do.go,
// tasks/winning/winning_task.go and tasks/proofshare/task_prove.go):
//
//   * only the unary Prove RPC, from a client built from Curio's proto (curio_proving.proto), with no
//     token, one deadline for every kind (ProveTimeout, 30 min) and no retry inside the client;
//   * request ids as Curio formats them: porep-<miner>-<sector>, ps-porep-<miner>-<sector>-<taskID>,
//     snap-<miner>-<sector>, winpost-<miner>-<%x of randomness[:8]>, and
//     wdpost-<miner>-<partIdx>-<%d of randomness[:8]> ("[12 34 ...]") with partIdx and
//     partition_index always 0, so every partition of a deadline shares one id;
//   * the fields and priorities of each kind: PoRep and PSProve NORMAL with Curio's C1 wrapper in
//     vanilla_proof; SnapDeals NORMAL with vanilla_proofs and the raw 32-byte comms; WindowPoSt HIGH
//     and WinningPoSt CRITICAL with vanilla_proofs, miner_id and randomness (byte 31 &= 0x3f);
//   * a task's retry is a new Prove with the same request; a cancelled context cancels the call.
//
//   node curio_client.js UNIX_ADDR HTTP_ADDR MANIFEST OUT_DIR
//
// MANIFEST (written by daemon_test.sh curio_traffic) names the inputs; every proof is written to
// OUT_DIR/<name>.bin for the shell to verify with `cuzk verify-*` and the noble verifier, and
// OUT_DIR/results.json lists each request's id, job id and status. Prints "ok - ..." per check and
// exits 1 on the first failure.
'use strict';
const path = require('path');
const fs = require('fs');
const http = require('http');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const { ok } = require('./tap.js');

const [addr, httpAddr, manifestFile, outDir] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
const base = path.dirname(path.resolve(manifestFile));
const PROVE_TIMEOUT_MS = 30 * 60 * 1000;  // Curio's ProveTimeout default
const NORMAL = 'NORMAL', HIGH = 'HIGH', CRITICAL = 'CRITICAL';

// Curio's client: grpc.NewClient(target, insecure credentials, 256 MiB messages both ways).
const def = loader.loadSync(path.join(__dirname, 'curio_proving.proto'),
  { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
const pkg = grpc.loadPackageDefinition(def).cuzk.v1;
const client = new pkg.ProvingEngine(addr, grpc.credentials.createInsecure(), {
  'grpc.max_receive_message_length': 256 << 20,
  'grpc.max_send_message_length': 256 << 20,
});

const file = (f) => fs.readFileSync(path.resolve(base, f));
const hex = (h) => Buffer.from(h, 'hex');
// Go's json.Unmarshal of [][]byte: a JSON array of standard base64 strings.
const vanillaList = (f) => JSON.parse(file(f).toString('utf8')).map((b) => Buffer.from(b, 'base64'));
// Curio masks the randomness into a field element before it sends it (randomness[31] &= 0x3f).
const fieldRandomness = (h) => {
  const r = hex(h);
  r[31] &= 0x3f;
  return r;
};

// The request ids, formatted as Curio's fmt.Sprintf calls print them.
const ids = {
  porep: (miner, sector) => `porep-${miner}-${sector}`,
  psPorep: (miner, sector, task) => `ps-porep-${miner}-${sector}-${task}`,
  snap: (miner, sector) => `snap-${miner}-${sector}`,
  winning: (miner, rand) => `winpost-${miner}-${rand.subarray(0, 8).toString('hex')}`,  // %x of a []byte
  window: (miner, partIdx, rand) => `wdpost-${miner}-${partIdx}-[${[...rand.subarray(0, 8)].join(' ')}]`,  // %d
};

// The SubmitProofRequests of cuzk_funcs.go / task_prove.go.
const requests = {
  porep: (x) => ({
    request_id: ids.porep(m.miner, x.sector), proof_kind: 'POREP_SEAL_COMMIT', sector_size: String(x.sector_size),
    registered_proof: String(x.registered_proof), priority: NORMAL, vanilla_proof: file(x.c1),
    sector_number: String(x.sector), miner_id: String(m.miner),
  }),
  // PSProve re-encodes the C1 through Go's proof.Commit1OutRaw (json.Marshal: compact, its own field
  // order) before wrapping it; the wrapper is the same.
  psPorep: (x) => {
    const wrapper = JSON.parse(file(x.c1).toString('utf8'));
    const c1 = JSON.parse(Buffer.from(wrapper.Phase1Out, 'base64').toString('utf8'));
    const order = ['comm_d', 'comm_r', 'registered_proof', 'replica_id', 'seed', 'ticket', 'vanilla_proofs'];
    const reencoded = {};
    for (const k of order) if (k in c1) reencoded[k] = c1[k];
    for (const k of Object.keys(c1)) if (!(k in reencoded)) reencoded[k] = c1[k];
    const phase1 = Buffer.from(JSON.stringify(reencoded));
    const wrapped = JSON.stringify({ SectorNum: x.sector, Phase1Out: phase1.toString('base64'), SectorSize: x.sector_size });
    return {
      request_id: ids.psPorep(m.miner, x.sector, x.task_id), proof_kind: 'POREP_SEAL_COMMIT',
      sector_size: String(x.sector_size), registered_proof: String(x.registered_proof), priority: NORMAL,
      vanilla_proof: Buffer.from(wrapped), sector_number: String(x.sector), miner_id: String(m.miner),
    };
  },
  snap: (x) => ({
    request_id: ids.snap(m.miner, x.sector), proof_kind: 'SNAP_DEALS_UPDATE', sector_size: String(x.sector_size),
    registered_proof: String(x.registered_proof), priority: NORMAL, vanilla_proofs: vanillaList(x.vanilla),
    sector_number: String(x.sector), miner_id: String(m.miner),
    comm_r_old: hex(x.comm_r_old), comm_r_new: hex(x.comm_r_new), comm_d_new: hex(x.comm_d_new),
  }),
  window: (rand, vanilla) => ({
    request_id: ids.window(m.miner, 0, rand), proof_kind: 'WINDOW_POST_PARTITION', sector_size: String(m.sector_size),
    registered_proof: String(m.window_proof), priority: HIGH, vanilla_proofs: vanillaList(vanilla),
    miner_id: String(m.miner), randomness: rand, partition_index: 0,
  }),
  winning: (rand, vanilla) => ({
    request_id: ids.winning(m.miner, rand), proof_kind: 'WINNING_POST', sector_size: String(m.sector_size),
    registered_proof: String(m.winning_proof), priority: CRITICAL, vanilla_proofs: vanillaList(vanilla),
    miner_id: String(m.miner), randomness: rand,
  }),
};

// One Prove call, as lib/cuzk/client.go makes it. Returns {promise, cancel}.
function prove(submit) {
  let call;
  const promise = new Promise((resolve, reject) => {
    call = client.Prove({ submit }, { deadline: Date.now() + PROVE_TIMEOUT_MS }, (err, resp) =>
      err ? reject(err) : resolve(resp.result));
  });
  return { promise, cancel: () => call.cancel() };
}

function status() {
  return new Promise((resolve, reject) => {
    http.get(`http://${httpAddr}/status`, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => { try { resolve(JSON.parse(body)); } catch (e) { reject(e); } });
    }).on('error', reject);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits until /status lists an unfinished job with this id (the daemon has accepted the request).
async function untilListed(jobId, limitMs = 60000) {
  for (const t0 = Date.now(); Date.now() - t0 < limitMs; await sleep(10)) {
    const s = await status();
    if ((s.pipelines || []).some((p) => p.job_id === jobId)) return true;
  }
  return false;
}
function await_(jobId) {
  return new Promise((resolve, reject) => {
    client.AwaitProof({ job_id: jobId, timeout_ms: '60000' }, { deadline: Date.now() + 70000 },
      (err, r) => (err ? reject(err) : resolve(r)));
  });
}

const results = [];
function record(name, submit, r) {
  ok(r.status === 'COMPLETED', `${name}: ${submit.proof_kind} ${JSON.stringify(submit.request_id)} COMPLETED`,
    `${r.status}: ${r.error_message}`);
  ok(r.proof.length === 192, `${name}: 192-byte proof`, `${r.proof.length} bytes`, true);
  fs.writeFileSync(path.join(outDir, `${name}.bin`), r.proof);
  results.push({ name, request_id: submit.request_id, job_id: r.job_id, status: r.status });
  return r;
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const [w1, w2] = m.window.map((d) => ({ rand: fieldRandomness(d.randomness), parts: d.partitions }));

  // --- Everything at once, as Curio's tasks (sharing MaxPending = 10 in-flight calls) send it.
  // PoRep: Curio's PoRep task is cancelled (a node restart, a task timeout) after the daemon has
  // its request; the task's retry is the same Prove again and picks up that job's result.
  const porepReq = requests.porep(m.porep);
  const porep1 = prove(porepReq);
  const abandonedPorep = (async () => {
    ok(await untilListed(porepReq.request_id), 'PoRep: the daemon lists the job before the call is cancelled');
    porep1.cancel();
    try {
      await porep1.promise;
      ok(false, 'PoRep: the first call was cancelled', 'it returned');
    } catch (e) {
      ok(e.code === grpc.status.CANCELLED, 'PoRep: the first Prove call cancelled by the caller', `code ${e.code}`);
    }
    const s = await status();
    ok(s.pipelines.some((p) => p.job_id === porepReq.request_id), 'PoRep: the abandoned job keeps running');
    return record('porep', porepReq, await prove(requests.porep(m.porep)).promise);  // the retry
  })();
  const psReq = requests.psPorep(m.ps_porep);
  const snapReq = requests.snap(m.snap);
  const winReq = requests.winning(fieldRandomness(m.winning.randomness), m.winning.vanilla);
  // WindowPoSt, deadline 1: both partitions at once, one request_id.
  const w1Reqs = w1.parts.map((p) => requests.window(w1.rand, p.vanilla));
  ok(w1Reqs[0].request_id === w1Reqs[1].request_id, `WindowPoSt: both partitions under ${JSON.stringify(w1Reqs[0].request_id)}`);
  const [ps, snap, win, w1a, w1b] = await Promise.all(
    [psReq, snapReq, winReq, ...w1Reqs].map((r) => prove(r).promise));
  record('ps_porep', psReq, ps);
  record('snap', snapReq, snap);
  record('winning', winReq, win);
  record(w1.parts[0].name, w1Reqs[0], w1a);
  record(w1.parts[1].name, w1Reqs[1], w1b);
  ok(w1a.job_id !== w1b.job_id && [w1a, w1b].every((r) => r.job_id.startsWith(w1Reqs[0].request_id)),
    `WindowPoSt at once: two jobs, ${JSON.stringify(w1a.job_id)} and ${JSON.stringify(w1b.job_id)}`);
  ok(!w1a.proof.equals(w1b.proof), 'WindowPoSt at once: two different proofs');
  await abandonedPorep;

  // --- WindowPoSt, deadline 2: one partition after the other; the first's result is still kept.
  const w2Reqs = w2.parts.map((p) => requests.window(w2.rand, p.vanilla));
  const w2a = record(w2.parts[0].name, w2Reqs[0], await prove(w2Reqs[0]).promise);
  const w2b = record(w2.parts[1].name, w2Reqs[1], await prove(w2Reqs[1]).promise);
  ok(w2a.job_id === w2Reqs[0].request_id && /@[0-9a-f]{8}$/.test(w2b.job_id) && w2b.job_id.startsWith(w2Reqs[0].request_id),
    `WindowPoSt one after the other: ${JSON.stringify(w2a.job_id)}, then ${JSON.stringify(w2b.job_id)}`);

  // --- Curio's retry of a finished partition (its task failed after the call) gets that
  // partition's own stored proof, not the other partition's.
  const retry = await prove(requests.window(w1.rand, w1.parts[1].vanilla)).promise;
  ok(retry.status === 'COMPLETED' && retry.job_id === w1b.job_id && retry.proof.equals(w1b.proof),
    'WindowPoSt retry of partition 2: its own stored proof');

  // --- WinningPoSt whose Prove is cancelled (the task gave up): nobody waits, so the job is
  // cancelled; AwaitProof and /status show it. A few randomness values in case one finishes
  // before the cancellation lands.
  let abandoned = null;
  for (const a of m.abandon_winning) {
    const req = requests.winning(fieldRandomness(a.randomness), a.vanilla);
    const call = prove(req);
    const listed = await untilListed(req.request_id, 20000);
    call.cancel();
    await call.promise.catch(() => {});
    if (!listed) continue;
    // The daemon learns of the cancellation a moment later; an AwaitProof sent before that would
    // be a caller waiting for the job. Curio sends none: wait for the job to leave /status.
    for (const t0 = Date.now(); Date.now() - t0 < 20000; await sleep(10)) {
      if (!(await status()).pipelines.some((p) => p.job_id === req.request_id)) break;
    }
    const r = await await_(req.request_id);
    if (r.status === 'CANCELLED') {
      abandoned = { req, r };
      break;
    }
    console.log(`# ${req.request_id} ended ${r.status} before its cancellation landed; trying the next`);
  }
  ok(abandoned, 'abandoned WinningPoSt: cancelled (AwaitProof says CANCELLED)');
  ok(/abandoned/.test(abandoned.r.error_message), `abandoned WinningPoSt: ${abandoned.r.error_message}`);
  const s = await status();
  ok(s.counters.by_kind['winning-post'].cancelled >= 1 &&
     !s.pipelines.some((p) => p.job_id === abandoned.req.request_id),
  `/status: winning-post cancelled ${s.counters.by_kind['winning-post'].cancelled}, the job no longer listed`);
  results.push({ name: 'abandoned_winning', request_id: abandoned.req.request_id, job_id: abandoned.r.job_id,
    status: abandoned.r.status });
  fs.writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 1));
  client.close();
}

main().catch((e) => {
  console.log(`not ok - ${e.stack || e}`);
  process.exit(1);
});
