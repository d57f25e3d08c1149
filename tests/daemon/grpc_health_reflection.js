#!/usr/bin/env node
// The daemon's standard gRPC services, as generic tools (grpcurl, grpc_health_probe, Kubernetes'
// grpc probes) use them: grpc.health.v1.Health/Check and grpc.reflection.v1alpha list_services and
// file_containing_symbol, from a Node @grpc/grpc-js client built from health.proto and
// reflection.proto (written from the gRPC definitions; no cuzk code on the client side).
//
//   node grpc_health_reflection.js ADDR [ADDR...]     expects SERVING on every address
// Prints "ok - ..." per check; exit 1 on the first failure.
'use strict';
const path = require('path');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const opts = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const health = grpc.loadPackageDefinition(loader.loadSync(path.join(__dirname, 'health.proto'), opts)).grpc.health.v1;
const refl = grpc.loadPackageDefinition(loader.loadSync(path.join(__dirname, 'reflection.proto'), opts)).grpc.reflection.v1alpha;

const { ok, count } = require('./tap.js');

function check(client, service) {
  return new Promise((resolve, reject) => {
    client.Check({ service }, { deadline: Date.now() + 10000 }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

// One ServerReflectionInfo stream: send the requests, collect one response per request.
function reflect(client, requests) {
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo({ deadline: Date.now() + 10000 });
    const out = [];
    call.on('data', (r) => {
      out.push(r);
      if (out.length === requests.length) call.end();
    });
    call.on('error', reject);
    call.on('end', () => resolve(out));
    for (const r of requests) call.write(r);
  });
}

async function main() {
  for (const addr of process.argv.slice(2)) {
    const target = addr.startsWith('unix://') ? 'unix:' + addr.slice('unix://'.length) : addr;
    const h = new health.Health(target, grpc.credentials.createInsecure());
    let r = await check(h, '');
    ok(r.status === 'SERVING', `${addr}: Health/Check "" is SERVING`, r.status);
    r = await check(h, 'cuzk.v1.ProvingEngine');
    ok(r.status === 'SERVING', `${addr}: Health/Check cuzk.v1.ProvingEngine is SERVING`, r.status);
    try {
      await check(h, 'no.such.Service');
      ok(false, `${addr}: Health/Check of an unknown service`, 'answered');
    } catch (e) {
      ok(e.code === grpc.status.NOT_FOUND, `${addr}: Health/Check of an unknown service is NOT_FOUND`, `code ${e.code}`);
    }
    const c = new refl.ServerReflection(target, grpc.credentials.createInsecure());
    const [list, file, missing] = await reflect(c, [
      { list_services: '*' },
      { file_containing_symbol: 'cuzk.v1.ProvingEngine' },
      { file_containing_symbol: 'no.such.Symbol' },
    ]);
    const names = (list.list_services_response || { service: [] }).service.map((s) => s.name);
    ok(names.includes('cuzk.v1.ProvingEngine'), `${addr}: reflection lists cuzk.v1.ProvingEngine`, JSON.stringify(names));
    ok(names.includes('grpc.health.v1.Health'), `${addr}: reflection lists grpc.health.v1.Health`, JSON.stringify(names));
    const fds = (file.file_descriptor_response || { file_descriptor_proto: [] }).file_descriptor_proto;
    ok(fds.length >= 1 && fds.some((b) => Buffer.from(b).includes('cuzk/v1/proving.proto') && Buffer.from(b).includes('SubmitProof')),
      `${addr}: reflection returns cuzk/v1/proving.proto for the service (${fds.length} file(s))`);
    ok(missing.error_response && missing.error_response.error_code === grpc.status.NOT_FOUND,
      `${addr}: reflection of an unknown symbol is NOT_FOUND`, JSON.stringify(missing));
    h.close();
    c.close();
  }
  console.log(`# ${count()} checks passed`);
}

main().then(() => process.exit(0), (e) => {
  console.log(`not ok - exception: ${e.stack || e}`);
  process.exit(1);
});
