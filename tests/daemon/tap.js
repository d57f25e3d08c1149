// The checks of the Node test clients (wire_compat.js, grpc_health_reflection.js, check_dashboard.js):
// ok(cond, name, detail) prints "ok - name" (unless quiet) or "not ok - name: detail" and exits 1 on
// the first failure; count() is how many passed.
'use strict';
let checks = 0;
function ok(cond, name, detail, quiet = false) {
  if (!cond) {
    console.log(`not ok - ${name}${detail ? ': ' + detail : ''}`);
    process.exit(1);
  }
  checks++;
  if (!quiet) console.log(`ok - ${name}`);
}
module.exports = { ok, count: () => checks };
