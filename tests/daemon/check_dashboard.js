#!/usr/bin/env node
// deploy/grafana/cuzk-dashboard.json against what a running daemon exports:
//   node check_dashboard.js DASHBOARD.json METRICS.txt RULES_OUT.yml
// Parses the dashboard, checks every panel (id, title, grid position, the templated Prometheus data
// source, at least one query), and that every cuzk_* series each query reads is a sample name in
// METRICS.txt (GET /metrics of the daemon test). Writes each query, with Grafana's variables
// replaced, as a recording rule to RULES_OUT.yml, so that `promtool check rules` parses the PromQL.
// Prints "ok - ..." per check; exit 1 on the first failure.
'use strict';
const fs = require('fs');

const [dashFile, metricsFile, rulesOut] = process.argv.slice(2);
const tap = require('./tap.js');
const ok = (cond, name, detail) => tap.ok(cond, name, detail, true);  // one summary line at the end

const dash = JSON.parse(fs.readFileSync(dashFile, 'utf8'));
const exported = new Set();
for (const line of fs.readFileSync(metricsFile, 'utf8').split('\n')) {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
  if (m) exported.add(m[1]);
}
ok(exported.size > 20, 'metrics text has samples', `${exported.size} names`);
ok(dash.uid === 'cuzk-daemon' && typeof dash.title === 'string', 'dashboard uid and title');
const vars = (dash.templating && dash.templating.list) || [];
ok(vars.some((v) => v.name === 'datasource' && v.type === 'datasource' && v.query === 'prometheus'), 'datasource variable');
const inst = vars.find((v) => v.name === 'instance');
ok(inst && /cuzk_uptime_seconds/.test(inst.definition), 'instance variable from cuzk_uptime_seconds');

const rules = [];
const ids = new Set();
const used = new Set();
for (const p of dash.panels) {
  ok(Number.isInteger(p.id) && !ids.has(p.id), `panel id ${p.id} unique`);
  ids.add(p.id);
  ok(typeof p.title === 'string' && p.title.length > 0, `panel ${p.id} has a title`);
  const g = p.gridPos || {};
  ok(['x', 'y', 'w', 'h'].every((k) => Number.isInteger(g[k])) && g.x + g.w <= 24, `panel "${p.title}" grid position`);
  ok(p.datasource && p.datasource.uid === '${datasource}', `panel "${p.title}" uses the datasource variable`);
  ok(Array.isArray(p.targets) && p.targets.length > 0, `panel "${p.title}" has queries`);
  for (const t of p.targets) {
    const expr = t.expr || '';
    const names = expr.match(/\bcuzk_[a-zA-Z0-9_]+/g) || [];
    ok(names.length > 0, `panel "${p.title}" query ${t.refId} reads a cuzk series`, expr);
    for (const n of names) {
      ok(exported.has(n), `panel "${p.title}": ${n} is exported by the daemon`, expr);
      used.add(n);
    }
    ok(expr.includes('$instance'), `panel "${p.title}" query ${t.refId} follows the instance variable`, expr);
    rules.push(expr.replace(/\$__rate_interval/g, '5m').replace(/\$instance/g, '.*'));
  }
}
const y = ['groups:', '  - name: cuzk-dashboard-queries', '    rules:'];
rules.forEach((e, i) => y.push(`      - record: cuzk_dashboard:query_${i + 1}`, `        expr: ${JSON.stringify(e)}`));
fs.writeFileSync(rulesOut, y.join('\n') + '\n');
console.log(`ok - dashboard: ${dash.panels.length} panels, ${rules.length} queries, ${tap.count()} checks; ` +
  `series read: ${[...used].sort().join(' ')}`);
