#!/usr/bin/env bash
# End-to-end tests of cuzk-daemon and cuzk-bench as operators run them. One ctest test per case:
#   bash daemon_test.sh CASE     with DAEMON, BENCH, ROOT, WORK set (tests/daemon/CMakeLists.txt)
# Every wait is bounded; the daemon is always stopped (by PID) when a case ends.
set -euo pipefail
CASE=$1
: "${DAEMON:?}" "${BENCH:?}" "${ROOT:?}" "${WORK:?}"
FIX=$ROOT/tests/fixtures/snarkjs
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
DPID=""
cleanup() {
  if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then kill -KILL "$DPID" 2>/dev/null || true; fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f daemon.err ] && { echo "--- daemon log" >&2; tail -40 daemon.err >&2; }; exit 1; }
pass() { echo "ok - $*"; }

# A short unix socket path (sun_path is limited to ~100 bytes; build trees can be deep).
SOCK=$(mktemp -u /tmp/cuzk-test-XXXXXX).sock

# Benchmark-size circuit for slow jobs, cached across cases in the build tree.
# Cases run in parallel and may share a size: each generates into its own temporary folder, and the
# first rename wins (rename onto a non-empty folder fails), so no case ever reads a half-written one.
slow_circuit() {  # $1 = constraints
  local dir=$WORK/../gen-$1 tmp
  if [ ! -f "$dir/chain.zkey" ]; then
    tmp=$(mktemp -d "$dir.tmp.XXXXXX")
    "$BENCH" gen-circuit --constraints "$1" --out "$tmp" --id chain >/dev/null
    [ -d "$dir" ] && [ ! -f "$dir/chain.zkey" ] && rm -rf "$dir"  # left by an interrupted older run
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  echo "$dir"
}

write_config() {  # $1 = file, $2 = extra TOML appended; $AUTH, when set, is the [auth] section's body
  # By default TCP takes calls without a token (cuzk-bench sends none) and requests may name the
  # fixtures and the generated circuits (tests/server/auth_test.cpp tests the access rules).
  local auth=${AUTH:-}
  [ -n "$auth" ] || auth="insecure = true
allowed_dirs = [\"$ROOT/tests/fixtures\", \"$(dirname "$WORK")\"]"
  cat > "$1" <<TOML
[auth]
$auth
[daemon]
listen = ["unix://$SOCK", "127.0.0.1:0"]
status_listen = "127.0.0.1:0"
drain_timeout = "60s"
[memory]
total_budget = "1GiB"
eviction_min_idle = "0s"
[pipeline]
max_parallel_synthesis = 2
[logging]
level = "info"
[[srs.circuits]]
id = "mulchain"
zkey = "$FIX/mulchain/mulchain.zkey"
[[srs.circuits]]
id = "bits"
zkey = "$FIX/bits/bits.zkey"
$2
TOML
}

start_daemon() {  # $1 = config; $LAUNCH: a command line the daemon runs under (prlimit ...); $READY_S (10)
  # Remove the last daemon's output first: the shell truncates daemon.out in the background child, so
  # the loop below could otherwise still read the previous daemon's READY line and go on too early.
  rm -f daemon.out daemon.err
  ${LAUNCH:-} "$DAEMON" --config "$1" > daemon.out 2> daemon.err &
  DPID=$!
  for _ in $(seq 1 $((${READY_S:-10} * 20))); do
    grep -q '^READY ' daemon.out 2>/dev/null && break
    kill -0 "$DPID" 2>/dev/null || fail "daemon exited at start-up"
    sleep 0.05
  done
  grep -q '^READY ' daemon.out || fail "daemon not ready after ${READY_S:-10} s"
  GRPC_TCP=$(sed -n 's/^READY grpc=[^,]*,\([^ ]*\) http=.*/\1/p' daemon.out)
  HTTP=$(sed -n 's/^READY .* http=\(.*\)$/\1/p' daemon.out)
  GRPC_UNIX="unix://$SOCK"
}

stop_daemon() {  # SIGTERM; expects exit status 0 within $1 seconds (default 30)
  kill -TERM "$DPID"
  local t=${1:-30} rc=0
  for _ in $(seq 1 $((t * 20))); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$DPID" 2>/dev/null && fail "daemon still running ${t}s after SIGTERM"
  wait "$DPID" || rc=$?
  DPID=""
  [ "$rc" = 0 ] || fail "daemon exit status $rc after SIGTERM"
  [ ! -e "$SOCK" ] || fail "unix socket $SOCK left behind"
}

wait_for() {  # $1 = seconds, rest = command that must succeed
  local t=$1; shift
  for _ in $(seq 1 $((t * 20))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.05; done
  return 1
}

status_json() { "$BENCH" -a "$GRPC_TCP" --json status; }

case "$CASE" in
wire_compat)
  slow=$(slow_circuit 8192)
  write_config cuzk.toml ""
  start_daemon cuzk.toml
  (cd "$ROOT" && timeout 240 node tests/daemon/wire_compat.js "$GRPC_UNIX" "$GRPC_TCP" "$FIX" "$slow/chain.zkey" "$slow/chain.wtns" "$WORK/metrics.txt") \
    || fail "Node @grpc/grpc-js client"
  PROMTOOL=${PROMTOOL:-$(command -v promtool || true)}  # CMake passes PROMTOOL_EXECUTABLE (.deps/prometheus first)
  if [ -n "$PROMTOOL" ]; then
    "$PROMTOOL" check metrics < metrics.txt || fail "promtool check metrics rejected the GetMetrics text"
    curl -sf "http://$HTTP/metrics" > http_metrics.txt || fail "GET /metrics"
    "$PROMTOOL" check metrics < http_metrics.txt || fail "promtool check metrics rejected GET /metrics"
    pass "promtool check metrics accepts GetMetrics and GET /metrics"
  else
    echo "# promtool not found (scripts/install-deps.sh --test-peers unpacks it into .deps/prometheus): metrics lint skipped"
  fi
  stop_daemon
  pass "SIGTERM: exit 0"
  ;;

monitoring)
  # Drop-in for the Rust daemon's monitoring: its Prometheus series and /status fields on a running
  # daemon (beside ours), promtool's lint, the duration histogram, the per-device series (the CPU
  # backend's slot, named cpu), gRPC health and reflection, and the Grafana board's queries against
  # this very metrics text.
  write_config cuzk.toml ""
  start_daemon cuzk.toml
  for _ in 1 2; do
    "$BENCH" -a "$GRPC_TCP" single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" > single.txt || fail "single"
  done
  echo '["eA=="]' > vanilla.json
  "$BENCH" -a "$GRPC_TCP" single -t winning --vanilla vanilla.json > winning.txt || true
  grep -q '^status:    FAILED$' winning.txt || fail "a bad WinningPoSt should fail: $(cat winning.txt)"
  curl -sf "http://$HTTP/status" > status.json || fail "GET /status"
  jq -e '(.uptime_secs | type) == "number"
    and (.memory | has("total_bytes") and has("used_bytes") and has("available_bytes"))
    and .memory.total_bytes == 1073741824 and .memory.available_bytes == .memory.total_bytes - .memory.used_bytes
    and .synthesis.max_concurrent == 2 and .synthesis.active == 0 and (.pipelines | type) == "array"
    and (.gpu_workers | map(.stage)) == ["backend","backend","backend-urgent"]
    and all(.gpu_workers[]; (keys_unsorted[:6]) == ["worker_id","gpu_ordinal","state","current_job","current_partition","busy_secs"]
            and .state == "idle" and .current_job == null and .current_partition == null and .busy_secs == null and .gpu_ordinal == 0)
    and (.allocations.srs | map(select(.circuit_id == "bits"))[0] | (.last_used_secs_ago | type) == "number" and .evictable == true and .bytes > 0)
    and (.allocations.pce | type) == "array"
    and .counters.total_completed == 2 and .counters.total_failed == 1
    and .counters.completed_by_kind == {"porep-c2":0,"snap-update":0,"window-post":0,"winning-post":0,"generic-groth16":2}
    and .counters.failed_by_kind["winning-post"] == 1 and .counters.failed_by_kind["generic-groth16"] == 0
    and .counters.queue_depth == 0
    and (.buffers | keys) == ["aux_in_flight","pending_handles","provers_in_flight","shells_in_flight","synth_in_flight"]
    and all(.buffers[]; . == 0)
    and (.gpus | length) == 1
    and (.gpus[0] | {ordinal,name,vram_total_bytes,vram_free_bytes,busy,current_job,compute_capability})
        == {"ordinal":0,"name":"cpu","vram_total_bytes":0,"vram_free_bytes":0,"busy":false,"current_job":"","compute_capability":null}
    and .gpus[0].in_service == true and .gpus[0].fault == null and .gpus[0].partitions == 2
    and .gpus[0].requeued_partitions == 0 and .gpus[0].busy_secs_total > 0
    and (.workers | length) > 0 and (.counters.by_kind | has("generic-groth16"))' status.json >/dev/null \
    || fail "/status: the Rust fields: $(jq -c '{gpu_workers,counters,buffers,gpus,allocations,synthesis,memory}' status.json)"
  pass "GET /status: uptime_secs, memory, synthesis, gpu_workers (Rust shape), allocations.srs[].last_used_secs_ago, pce, counters.*_by_kind, buffers, gpus"
  curl -sf "http://$HTTP/metrics" > metrics.txt || fail "GET /metrics"
  for f in 'cuzk_proofs_completed_total counter' 'cuzk_proofs_failed_total counter' 'cuzk_uptime_seconds gauge' \
           'cuzk_queue_depth gauge' 'cuzk_proofs_completed untyped' 'cuzk_proofs_failed untyped' \
           'cuzk_proof_duration_seconds histogram' 'cuzk_running_jobs gauge' 'cuzk_gpu_workers gauge' \
           'cuzk_gpu_info gauge' 'cuzk_gpu_memory_total_bytes gauge' 'cuzk_gpu_memory_free_bytes gauge' 'cuzk_gpu_busy gauge' \
           'cuzk_gpu_in_service gauge' 'cuzk_gpu_busy_seconds_total counter' 'cuzk_gpu_partitions_total counter' \
           'cuzk_gpu_requeued_partitions_total counter'; do
    grep -qx "# TYPE $f" metrics.txt || fail "/metrics lacks '# TYPE $f'"
    grep -q "^# HELP ${f% *} " metrics.txt || fail "/metrics lacks '# HELP ${f% *}'"
  done
  for l in 'cuzk_proofs_completed_total 2' 'cuzk_proofs_failed_total 1' 'cuzk_queue_depth 0' 'cuzk_running_jobs 0' 'cuzk_gpu_workers 2' \
           'cuzk_proofs_completed{proof_kind="generic_groth16"} 2' 'cuzk_proofs_failed{proof_kind="winning_post"} 1' \
           'cuzk_proofs_completed{proof_kind="porep_c2"} 0' 'cuzk_proofs_completed{proof_kind="snap_update"} 0' \
           'cuzk_proofs_completed{proof_kind="window_post"} 0' 'cuzk_proofs_completed{proof_kind="winning_post"} 0' \
           'cuzk_proofs_completed_by_kind_total{proof_kind="generic_groth16"} 2' \
           'cuzk_proof_duration_seconds_count{proof_kind="generic_groth16"} 2' \
           'cuzk_proof_duration_seconds_bucket{proof_kind="generic_groth16",le="+Inf"} 2' \
           'cuzk_proof_duration_seconds_bucket{proof_kind="generic_groth16",le="3600"} 2' \
           'cuzk_proof_duration_seconds_count{proof_kind="winning_post"} 0' \
           'cuzk_gpu_info{device="0",name="cpu"} 1' 'cuzk_gpu_busy{device="0"} 0' \
           'cuzk_gpu_memory_total_bytes{device="0"} 0' 'cuzk_gpu_memory_free_bytes{device="0"} 0' \
           'cuzk_gpu_in_service{device="0"} 1' 'cuzk_gpu_partitions_total{device="0"} 2' \
           'cuzk_gpu_requeued_partitions_total{device="0"} 0'; do
    grep -qxF "$l" metrics.txt || fail "/metrics lacks the line: $l"
  done
  grep -Eq '^cuzk_uptime_seconds [0-9]+$' metrics.txt || fail "cuzk_uptime_seconds"
  grep -Eq '^cuzk_proof_duration_seconds_sum\{proof_kind="generic_groth16"\} [0-9]+\.[0-9]{3}$' metrics.txt || fail "duration _sum"
  # The histogram of every kind: 17 bounds then +Inf, counts never decreasing, +Inf = _count.
  awk '/^cuzk_proof_duration_seconds_bucket/ { match($0, /proof_kind="[a-z_0-9]+"/); k = substr($0, RSTART, RLENGTH);
         if ($2 < last[k]) { print "decreasing: " $0; bad = 1 } last[k] = $2; n[k]++; if ($0 ~ /le="\+Inf"/) inf[k] = $2 }
       /^cuzk_proof_duration_seconds_count/ { match($0, /proof_kind="[a-z_0-9]+"/); cnt[substr($0, RSTART, RLENGTH)] = $2 }
       END { for (k in n) { if (n[k] != 18 || inf[k] != cnt[k]) { print "kind " k ": " n[k] " buckets, +Inf " inf[k] ", count " cnt[k]; bad = 1 } kinds++ }
             if (kinds != 5) { print kinds " kinds"; bad = 1 } exit bad }' metrics.txt || fail "histogram not cumulative"
  ! grep -q 'proof_kind="kind_' metrics.txt || fail "a kind_<n> label"
  pass "GET /metrics: the Rust series (cuzk_proofs_completed{proof_kind} untyped, the duration histogram), per-device cuzk_gpu_*"
  PROMTOOL=${PROMTOOL:-$(command -v promtool || true)}
  if [ -n "$PROMTOOL" ]; then
    "$PROMTOOL" check metrics < metrics.txt || fail "promtool check metrics rejected GET /metrics"
    "$BENCH" -a "$GRPC_TCP" metrics > grpc_metrics.txt || fail "cuzk-bench metrics"
    "$PROMTOOL" check metrics < grpc_metrics.txt || fail "promtool check metrics rejected GetMetrics"
    pass "promtool check metrics accepts GET /metrics and GetMetrics"
  else
    echo "# promtool not installed (Debian package prometheus): metrics lint skipped"
  fi
  if command -v node >/dev/null && [ -d "$ROOT/node_modules/@grpc/grpc-js" ]; then
    (cd "$ROOT" && timeout 60 node tests/daemon/grpc_health_reflection.js "$GRPC_UNIX" "$GRPC_TCP") || fail "health / reflection"
    pass "grpc.health.v1.Health SERVING and reflection over unix socket and TCP"
    (cd "$ROOT" && node tests/daemon/check_dashboard.js deploy/grafana/cuzk-dashboard.json "$WORK/metrics.txt" "$WORK/dashboard-rules.yml") \
      || fail "the Grafana dashboard reads a series the daemon does not export"
    if [ -n "$PROMTOOL" ]; then
      "$PROMTOOL" check rules dashboard-rules.yml > /dev/null || fail "dashboard PromQL: $("$PROMTOOL" check rules dashboard-rules.yml 2>&1)"
    fi
    pass "deploy/grafana/cuzk-dashboard.json: every query reads exported series (and parses as PromQL)"
  else
    echo "# node or node_modules/@grpc/grpc-js missing: health, reflection and dashboard checks skipped"
  fi
  # The alert rules read exported series too (up is Prometheus' own).
  for n in $(grep -v '^ *#' "$ROOT/deploy/prometheus/cuzk-alerts.yml" | grep -o 'cuzk_[a-z_]*' | sort -u); do
    grep -q "^$n[{ ]" metrics.txt || fail "cuzk-alerts.yml reads $n, which the daemon does not export"
  done
  pass "deploy/prometheus/cuzk-alerts.yml reads exported series"
  stop_daemon
  ;;

http_status)
  write_config cuzk.toml ""
  start_daemon cuzk.toml
  "$BENCH" -a "$GRPC_TCP" single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" > single.txt || fail "single"
  curl -sf -D headers.txt "http://$HTTP/status" > status.json || fail "GET /status"
  grep -qi '^Content-Type: application/json' headers.txt || fail "/status content type"
  grep -qi '^Access-Control-Allow-Origin: \*' headers.txt || fail "/status CORS header"
  jq -e '.counters.total_completed == 1 and .memory.total_bytes == 1073741824 and (.allocations.srs | map(.circuit_id) | index("bits") != null) and (.workers | length) > 0' status.json >/dev/null \
    || fail "/status JSON: $(cat status.json)"
  curl -sf -D mh.txt "http://$HTTP/metrics" > metrics.txt || fail "GET /metrics"
  grep -qi '^Content-Type: text/plain; version=0.0.4' mh.txt || fail "/metrics content type"
  grep -q '^cuzk_proofs_completed_total 1$' metrics.txt || fail "/metrics counter"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://$HTTP/nope")
  [ "$code" = 404 ] || fail "unknown path gave $code"
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$HTTP/status")
  [ "$code" = 405 ] || fail "POST gave $code"
  pass "GET /status, GET /metrics, 404, 405"
  stop_daemon
  ;;

bench_cli)
  write_config cuzk.toml ""
  start_daemon cuzk.toml
  B() { "$BENCH" -a "$GRPC_TCP" "$@"; }
  B single -t generic --circuit-id mulchain --wtns "$FIX/mulchain/witness.wtns" --timeline single.svg > single.txt || fail "single: $(cat single.txt)"
  grep -q '^=== Proof Result ===$' single.txt && grep -q '^status:    COMPLETED$' single.txt \
    && grep -Eq '^timings:   total=[0-9]+ ms \(queue=[0-9]+ ms, srs=[0-9]+ ms, synth=[0-9]+ ms, gpu=[0-9]+ ms\)$' single.txt \
    && grep -Eq '^wall time: [0-9]+ ms$' single.txt && grep -Eq '^proof:     192 bytes \(hex: [0-9a-f]{384}\)$' single.txt \
    || fail "single output: $(cat single.txt)"
  grep -q '<svg' single.svg || fail "single --timeline"
  pass "single: the Rust bench's result lines"
  B batch -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" -c 6 -j 3 --timeline batch.svg > batch.txt || fail "batch: $(cat batch.txt)"
  for re in '^=== Batch Benchmark ===$' '^proof type:  generic-groth16$' '^count:       6$' '^concurrency: 3$' \
            '^  \[6/6\] COMPLETED — [0-9]+\.[0-9]s \(prove=[0-9]+ ms, queue=[0-9]+ ms\)$' '^=== Batch Summary ===$' \
            '^total time:    [0-9]+\.[0-9]s$' '^completed:     6$' '^failed:        0$' \
            '^wall time:     avg=[0-9.]+s min=[0-9.]+s max=[0-9.]+s$' '^prove time:    avg=[0-9.]+s min=[0-9.]+s max=[0-9.]+s$' \
            '^throughput:    [0-9]+\.[0-9]{3} proofs/min \([0-9]+\.[0-9]s/proof\)$' \
            '^steady state:  [0-9]+\.[0-9]s/proof after the first 3 results \(3 more in [0-9]+\.[0-9]s\)$'; do
    grep -Eq "$re" batch.txt || fail "batch output lacks /$re/: $(cat batch.txt)"
  done
  [ "$(grep -c 'COMPLETED —' batch.txt)" = 6 ] || fail "batch: six result lines"
  n=$(grep -c '<rect' batch.svg); [ "$n" -gt 30 ] || fail "batch timeline has $n rects"
  pass "batch -c 6 -j 3: per-proof lines, summary, timeline SVG ($n rects)"
  B --json batch -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" -c 3 -j 2 > batch.json || fail "batch --json"
  jq -e '.completed == 3 and .failed == 0 and (.proofs | length) == 3 and .s_per_proof > 0 and (.s_per_proof_steady | type) == "number" and .s_per_proof_steady <= .total_s and (.proofs[0].timings.partitions | length) == 1' batch.json >/dev/null || fail "batch --json: $(cat batch.json)"
  B --json batch -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" -c 2 -j 2 > batch2.json || fail "batch --json -c 2"
  jq -e '.completed == 2 and has("s_per_proof_steady") == false' batch2.json >/dev/null || fail "-c 2 -j 2 has no steady state: $(cat batch2.json)"
  B --json single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" > single.json
  jq -e '.status == "COMPLETED" and .proof_bytes == 192' single.json >/dev/null || fail "single --json"
  pass "--json"
  B status > status.txt
  for re in '^=== cuzk daemon status ===$' '^uptime:           [0-9]+s$' '^proofs completed: 13$' '^proofs failed:    0$' \
            '^pinned memory:    0 / 0 bytes$' '^GPUs:$' '^  \[0\] .* — 0 MiB / 0 MiB VRAM — idle$' '^Loaded SRS:$' \
            '^  mulchain \(tier=0, size=[0-9]+ bytes, refs=0\)$' '^  bits \(tier=0, size=[0-9]+ bytes, refs=0\)$' '^Queues:$'; do
    grep -Eq "$re" status.txt || fail "status lacks /$re/: $(cat status.txt)"
  done
  pass "status"
  B metrics > metrics.txt; grep -q '^cuzk_proofs_completed_total 13$' metrics.txt || fail "metrics"
  [ "$(B preload -c mulchain)" = "mulchain already loaded" ] || fail "preload (loaded)"
  # EvictSRS is admin-only: the unix socket is admin; the insecure TCP port is not.
  set +e; out=$(B evict -c mulchain 2>&1); rc=$?; set -e
  [ "$rc" != 0 ] && echo "$out" | grep -q 'EvictSRS needs the admin scope' || fail "evict over insecure TCP: rc=$rc $out"
  U() { "$BENCH" -a "$GRPC_UNIX" "$@"; }
  out=$(U evict -c mulchain); echo "$out" | grep -Eq '^mulchain evicted, [0-9]+ bytes freed$' || fail "evict: $out"
  [ "$(U evict -c mulchain)" = "mulchain was not loaded" ] || fail "evict (not loaded)"
  out=$(B preload -c mulchain); echo "$out" | grep -Eq '^mulchain loaded in [0-9]+ ms$' || fail "preload (cold): $out"
  out=$(B register --circuit-id linear --zkey "$FIX/linear/linear.zkey" --preload); echo "$out" | grep -q '^linear registered, loaded in' || fail "register: $out"
  out=$(B single -t generic --circuit-id linear --wtns-path "$FIX/linear/witness.wtns"); echo "$out" | grep -q '^status:    COMPLETED$' || fail "--wtns-path: $out"
  [ "$(B cancel no-such-job || true)" = "no-such-job not found" ] || fail "cancel unknown"
  # PoSt inputs (tests/engine/post_kind_test.cpp and the post_e2e case prove real ones): the registered
  # proof by number or name, checked against the kind; the vanilla file's blobs decoded per sector.
  echo '["eA=="]' > vanilla.json
  out=$(B single -t winning --vanilla vanilla.json || true)
  echo "$out" | grep -q '^status:    FAILED$' && echo "$out" | grep -q '^error:     winning-post: vanilla_proofs\[0\]: ' || fail "winning: $out"
  out=$(B single -t wpost --registered-proof 0 --vanilla vanilla.json || true)
  echo "$out" | grep -q '^error:     window-post: registered_proof 0 is StackedDrgWinning2KiBV1, a winning-post proof (window-post takes 5-14)$' || fail "wpost code 0: $out"
  out=$(B single -t wpost --registered-proof StackedDrgWindow2KiBV1_2 --sector-size 2048 --vanilla vanilla.json --randomness "$(printf 'ff%.0s' $(seq 32))" || true)
  echo "$out" | grep -q '^error:     window-post: randomness: not a field element' || fail "wpost randomness: $out"
  set +e; out=$(B single -t wpost --registered-proof StackedDrgWindow3KiBV1 --vanilla vanilla.json 2>&1); rc=$?; set -e
  [ "$rc" = 2 ] && echo "$out" | grep -q -- "--registered-proof: unknown registered PoSt proof 'StackedDrgWindow3KiBV1'" || fail "bad proof name: $out"
  set +e; out=$(B single -t wpost --vanilla vanilla.json --randomness abc 2>&1); rc=$?; set -e
  [ "$rc" = 2 ] && echo "$out" | grep -q -- '--randomness: odd number of hex digits' || fail "bad randomness: $out"
  out=$(B single -t bogus 2>&1 || true)
  echo "$out" | grep -q 'unknown proof type: bogus. Use: porep, snap, wpost, winning, generic' || fail "bad type: $out"
  set +e; B single -t generic --circuit-id nope --wtns "$FIX/bits/witness.wtns" > nope.txt; rc=$?; set -e
  [ "$rc" = 1 ] && grep -q 'unknown circuit id "nope"' nope.txt || fail "unknown circuit: rc=$rc $(cat nope.txt)"
  pass "preload, evict, register, cancel, metrics, errors"
  # PoRep inputs: batch cycles over its --c1 files (proof i uses file i mod n); here two bad ones, so
  # the per-proof errors show which file each request carried. No proving involved.
  printf 'garbage' > c1a.bin; printf '{"SectorNum":1}' > c1b.json
  set +e; B batch -t porep --c1 c1a.bin --c1 c1b.json -c 3 -j 1 --proofs-dir pd > cyc.txt; rc=$?; set -e
  [ "$rc" = 1 ] && grep -q '^inputs:      2 C1 files, cycled$' cyc.txt && grep -q '^failed:        3$' cyc.txt || fail "cycled batch: $(cat cyc.txt)"
  [ "$(grep -c '^         error: porep-c2: vanilla_proof: bincode:' cyc.txt)" = 2 ] \
    && [ "$(grep -c '^         error: porep-c2: vanilla_proof: Curio wrapper JSON:' cyc.txt)" = 1 ] || fail "cycling: $(cat cyc.txt)"
  [ -f pd/index.tsv ] && [ ! -s pd/index.tsv ] || fail "--proofs-dir: expected an empty index"
  set +e; out=$(B batch -t porep --c1 c1a.bin --c1 c1b.json -c 1 2>&1); rc=$?; set -e
  [ "$rc" = 2 ] && echo "$out" | grep -q -- '--count 1 is less than the 2 --c1 files' || fail "count < files: $out"
  set +e; out=$(B single -t porep --c1 c1a.bin --c1 c1b.json 2>&1); rc=$?; set -e
  [ "$rc" = 2 ] && echo "$out" | grep -q 'single takes one --c1 file' || fail "single with two --c1: $out"
  pass "batch -t porep cycles over --c1 files; --proofs-dir; usage errors"
  # An unreachable daemon is a clear error, not a hang.
  set +e; out=$("$BENCH" -a 127.0.0.1:1 status 2>&1); rc=$?; set -e
  [ "$rc" = 2 ] && echo "$out" | grep -q 'cannot connect' || fail "unreachable daemon: $out"
  stop_daemon
  ;;

sigterm_drain)
  slow=$(slow_circuit 8192)
  write_config cuzk.toml "[[srs.circuits]]
id = \"slow\"
zkey = \"$slow/chain.zkey\"
preload = true"
  start_daemon cuzk.toml
  "$BENCH" -a "$GRPC_UNIX" batch -t generic --circuit-id slow --wtns "$slow/chain.wtns" -c 4 -j 4 > batch.txt 2>&1 &
  BPID=$!
  wait_for 30 sh -c "\"$BENCH\" -a $GRPC_TCP --json status | jq -e '.jobs_running + .jobs_queued >= 3'" || fail "jobs never running"
  kill -TERM "$DPID"
  # While draining: new work is refused, status still answers.
  sleep 0.2
  set +e; out=$("$BENCH" -a "$GRPC_TCP" single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" 2>&1); rc=$?; set -e
  if kill -0 "$DPID" 2>/dev/null; then
    [ "$rc" = 2 ] && echo "$out" | grep -Eq 'UNAVAILABLE|cannot connect' || fail "submission during drain: rc=$rc $out"
  fi
  timeout 120 tail --pid="$BPID" -f /dev/null || fail "bench did not finish"
  wait "$BPID" || fail "bench: $(cat batch.txt)"
  grep -q '^completed:     4$' batch.txt || fail "drain did not complete the running jobs: $(cat batch.txt)"
  for _ in $(seq 1 600); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$DPID" 2>/dev/null && fail "daemon still running after drain"
  rc=0; wait "$DPID" || rc=$?; DPID=""
  [ "$rc" = 0 ] || fail "exit status $rc"
  [ ! -e "$SOCK" ] || fail "socket left behind"
  grep -q 'stopped: 4 completed' daemon.err || fail "shutdown summary"
  pass "SIGTERM drains 4 running jobs, refuses new ones, exits 0"

  # shutdown = "cancel": running jobs end CANCELLED at once.
  write_config cancel.toml "[[srs.circuits]]
id = \"slow\"
zkey = \"$slow/chain.zkey\"
preload = true"
  sed -i 's/^drain_timeout = "60s"$/drain_timeout = "60s"\nshutdown = "cancel"/' cancel.toml
  start_daemon cancel.toml
  "$BENCH" -a "$GRPC_UNIX" batch -t generic --circuit-id slow --wtns "$slow/chain.wtns" -c 6 -j 6 > batch2.txt 2>&1 &
  BPID=$!
  wait_for 30 sh -c "\"$BENCH\" -a $GRPC_TCP --json status | jq -e '.jobs_running + .jobs_queued >= 5'" || fail "jobs never running"
  stop_daemon 30
  set +e; wait "$BPID"; set -e
  grep -q 'CANCELLED' batch2.txt || fail "cancel mode: $(cat batch2.txt)"
  pass "SIGTERM with shutdown = \"cancel\": jobs CANCELLED, exit 0"
  ;;

request_flood)
  # Issue 41 item 4: 100 PoRep requests of 16 MiB at once on a 1 GiB budget with a 64 MiB slice for
  # requests. Each is charged to the slice from submission (the rest RESOURCE_EXHAUSTED at once), gRPC
  # holds at most the slice plus one message while receiving, and each parse (2.5 x 16 MiB + 64 MiB)
  # is reserved before parsing: every call gets one answer, and the daemon's RSS never grows by more
  # than its budget. Measured on 2 cores (2026-12-07): RSS grew by 322 MB (54 refused, 46 parsed);
  # with request_budget = "0" (no slice, no gRPC quota) all 100 were taken and it grew by 979 MB.
  write_config cuzk.toml "[srs]
param_cache = \"$WORK/none\""
  sed -i 's/^eviction_min_idle = "0s"$/eviction_min_idle = "0s"\nrequest_budget = "64MiB"/' cuzk.toml
  sed -i 's/^status_listen = /max_message_size = "256MiB"\nstatus_listen = /' cuzk.toml
  start_daemon cuzk.toml
  curl -sf "http://$HTTP/status" | jq -e '.memory.request_budget_bytes == 67108864' > /dev/null ||
    fail "request slice: $(curl -sf "http://$HTTP/status" | jq -c .memory)"
  base_rss=$(status_json | jq '.memory.process_rss_bytes')
  python3 -c "import sys; sys.stdout.write('{\"x\":\"' + 'a' * (16 << 20) + '\"}')" > flood_c1.json
  "$BENCH" -a "$GRPC_UNIX" --json batch -t porep --c1 flood_c1.json -c 100 -j 100 > flood.json 2> flood.err || true
  answered=$(jq '[.proofs[] | select(.status != "")] | length' flood.json 2>/dev/null || echo 0)
  refused=$(jq '[.proofs[] | select(.error | test("memory for requests is full"))] | length' flood.json 2>/dev/null || echo 0)
  parsed=$(jq '[.proofs[] | select(.status == "FAILED" and (.error | test("vanilla_proof")))] | length' flood.json 2>/dev/null || echo 0)
  s=$(status_json)
  peak_rss=$(echo "$s" | jq '.memory.process_peak_rss_bytes'); total=$(echo "$s" | jq '.memory.budget_bytes')
  echo "# flood: $(jq -c '[.proofs[].status] | group_by(.) | map({(.[0]): length}) | add' flood.json 2>/dev/null), refused for the slice $refused, parsed and failed $parsed; rss start $base_rss, peak $peak_rss, budget $total"
  [ "$answered" = 100 ] || fail "answers: $answered of 100 ($(head -c 600 flood.json) $(head -c 600 flood.err))"
  [ "$refused" -ge 1 ] && [ "$parsed" -ge 1 ] && [ $((refused + parsed)) = 100 ] ||
    fail "expected refusals for the slice and parse failures, 100 in all: $(jq -c '[.proofs[].error] | unique' flood.json | head -c 1500)"
  curl -sf "http://$HTTP/status" | jq -e '.memory.request_bytes == 0 and .memory.parse_bytes == 0' > /dev/null ||
    fail "request or parse bytes still held: $(curl -sf "http://$HTTP/status" | jq -c .memory)"
  [ $((peak_rss - base_rss)) -le "$total" ] || fail "peak RSS grew by $((peak_rss - base_rss)) > budget $total"
  pass "100 requests of 16 MiB at once on a 1 GiB budget: each answered once, RSS grew by $(( (peak_rss - base_rss) >> 20 )) MiB"
  stop_daemon
  ;;

budget_rss)
  # Submissions outnumber the budget 10:1: the budget fits the key and two partitions, 20 jobs at once.
  slow=$(slow_circuit 16384)
  write_config probe.toml "[[srs.circuits]]
id = \"big\"
zkey = \"$slow/chain.zkey\"
preload = true"
  start_daemon probe.toml
  "$BENCH" -a "$GRPC_TCP" single -t generic --circuit-id big --wtns "$slow/chain.wtns" > /dev/null || fail "probe proof"
  key=$(status_json | jq '.memory.srs_bytes')
  part=$(status_json | jq '.memory.peak_bytes - .memory.srs_bytes')
  stop_daemon
  budget=$((key + 2 * part + part / 2))
  write_config cuzk.toml "[[srs.circuits]]
id = \"big\"
zkey = \"$slow/chain.zkey\"
preload = true"
  sed -i "s/^total_budget = \"1GiB\"$/total_budget = $budget/" cuzk.toml
  sed -i 's/^max_parallel_synthesis = 2$/max_parallel_synthesis = 8/' cuzk.toml
  start_daemon cuzk.toml
  base_rss=$(status_json | jq '.memory.process_rss_bytes')
  "$BENCH" -a "$GRPC_TCP" --json batch -t generic --circuit-id big --wtns "$slow/chain.wtns" -c 20 -j 20 > batch.json || fail "batch: $(head -c 2000 batch.json)"
  jq -e '.completed == 20' batch.json >/dev/null || fail "not all 20 completed"
  s=$(status_json)
  peak=$(echo "$s" | jq '.memory.peak_bytes'); total=$(echo "$s" | jq '.memory.budget_bytes')
  peak_rss=$(echo "$s" | jq '.memory.process_peak_rss_bytes')
  [ "$peak" -le "$total" ] || fail "budget exceeded: peak $peak > $total"
  # Peak RSS may exceed the start-up RSS by the partition budget plus the 20 requests' witnesses in
  # gRPC buffers and allocator slack (64 MiB), never by 20 partitions' working sets.
  allowed=$((base_rss + budget - key + 20 * $(stat -c %s "$slow/chain.wtns") * 2 + 64 * 1024 * 1024))
  echo "# budget $budget (key $key, partition ~$part); engine peak $peak; rss start $base_rss, peak $peak_rss, allowed $allowed"
  [ "$peak_rss" -le "$allowed" ] || fail "peak RSS $peak_rss above $allowed"
  pass "20 jobs on a budget for 2 partitions: all completed, budget and RSS held"
  stop_daemon
  ;;

porep_e2e)
  # PoRep C2 end to end: seal a 2 KiB test sector, prove it through the daemon (Prove RPC,
  # POREP_SEAL_COMMIT, the c1.json bytes), verify the proof with `cuzk verify-porep`. A C1 with one
  # label flipped (sent as raw C1 JSON) is refused with the vanilla check's message, without proving.
  : "${CUZK:?}" "${PARAMS:?}"
  hex() { printf "%064x" "$1"; }
  "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed 21 --ticket "$(hex 21)" --seed "$(hex 4660)" \
    --miner-id 1000 --sector-id 21 --out s21 > /dev/null || fail "cuzk seal"
  "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed 22 --ticket "$(hex 22)" --seed "$(hex 4661)" \
    --miner-id 1000 --sector-id 22 --c1-format json --out s22 > /dev/null || fail "cuzk seal (json)"
  jq -c '.vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column.rows[1][3] |= (if . % 2 == 0 then . + 1 else . - 1 end)' \
    s22/c1.json > bad_c1.json
  write_config cuzk.toml "[srs]
param_cache = \"$PARAMS\""
  sed -i 's/^total_budget = "1GiB"$/total_budget = "12GiB"/' cuzk.toml
  start_daemon cuzk.toml
  set +e; "$BENCH" -a "$GRPC_UNIX" single -t porep --c1 bad_c1.json > bad.txt; rc=$?; set -e
  [ "$rc" = 1 ] && grep -q '^status:    FAILED$' bad.txt \
    && grep -Eq '^error:     porep-c2: vanilla_proof: .*c_x' bad.txt || fail "corrupt C1: rc=$rc $(cat bad.txt)"
  status_json | jq -e '[.loaded_srs[] | select(.circuit_id == "porep-2k")] | length == 0' > /dev/null \
    || fail "a refused C1 loaded the PoRep key"
  pass "a C1 with one label flipped: FAILED naming the check, no key loaded"
  timeout 800 "$BENCH" -a "$GRPC_UNIX" single -t porep --c1 s21/c1.json --sector-num 21 --out proof.bin \
    --timeline porep.svg > single.txt || fail "PoRep single: $(cat single.txt)"
  grep -q '^status:    COMPLETED$' single.txt && grep -Eq '^proof:     192 bytes \(hex: [0-9a-f]{384}\)$' single.txt \
    || fail "single output: $(cat single.txt)"
  [ "$(stat -c %s proof.bin)" = 192 ] || fail "--out wrote $(stat -c %s proof.bin) bytes"
  out=$("$CUZK" verify-porep --c1 s21/c1.json --params "$PARAMS" --proof proof.bin --miner-id 1000) || fail "verify-porep: $out"
  [ "$out" = "OK (StackedDrg2KiBV1_1, 1 partition proofs)" ] || fail "verify-porep: $out"
  # ... and bound to its sector.
  set +e; out=$("$CUZK" verify-porep --c1 s22/c1.json --params "$PARAMS" --proof proof.bin); rc=$?; set -e
  [ "$rc" = 1 ] && echo "$out" | grep -q '^INVALID' || fail "verify-porep accepted the proof for another sector: $out"
  status_json | jq -e '.loaded_srs[] | select(.circuit_id == "porep-2k") | .tier_name == "host" and .size_bytes > 500000000' \
    > /dev/null || fail "porep-2k not resident as a host key: $(status_json | jq -c .loaded_srs)"
  grep -q '<svg' porep.svg || fail "timeline"
  pass "Prove POREP_SEAL_COMMIT: 192-byte proof accepted by cuzk verify-porep; key porep-2k resident (host)"
  stop_daemon 60
  ;;

post_e2e)
  # WindowPoSt (V1_1, two sectors) and WinningPoSt end to end at 2 KiB: TEST-ONLY keys from `cuzk
  # setup --registered-proof StackedDrgWindow2KiBV1_1 / StackedDrgWinning2KiBV1` (fixture
  # post_params_2k), sectors sealed by `cuzk seal`, vanilla proofs from `cuzk gen-vanilla`, proved
  # through the daemon (WINDOW_POST_PARTITION / WINNING_POST from cuzk-bench), verified by `cuzk verify-post`.
  : "${CUZK:?}" "${PARAMS:?}"
  hex() { printf "%064x" "$1"; }
  RAND=$(printf '%02x' $(seq 1 31))00  # 32 bytes, byte 31 = 0: a field element
  OTHER=$(printf '%02x' $(seq 2 32))00
  for i in 31 32; do
    "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed "$i" --ticket "$(hex "$i")" --seed "$(hex $((i + 100)))" \
      --miner-id 1000 --sector-id "$i" --out "s$i" > /dev/null || fail "cuzk seal $i"
  done
  "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --sector s31 --sector s32 --miner-id 1000 \
    --randomness "$RAND" -o wpost.json > /dev/null || fail "gen-vanilla window-post"
  "$CUZK" gen-vanilla winning-post --registered-proof StackedDrgWinning2KiBV1 --sector s31 --miner-id 1000 \
    --randomness "$RAND" -o winning.json > /dev/null || fail "gen-vanilla winning-post"
  write_config cuzk.toml "[srs]
param_cache = \"$PARAMS\"
preload = [\"wpost-2k\"]"
  sed -i 's/^total_budget = "1GiB"$/total_budget = "4GiB"/' cuzk.toml
  start_daemon cuzk.toml
  status_json | jq -e '.loaded_srs[] | select(.circuit_id == "wpost-2k") | .tier_name == "host"' > /dev/null \
    || fail "srs.preload wpost-2k: $(status_json | jq -c .loaded_srs)"
  pass "srs.preload = [\"wpost-2k\"]: the PoSt key decoded at start-up"
  B() { "$BENCH" -a "$GRPC_UNIX" "$@"; }
  V() { "$CUZK" verify-post --registered-proof "$1" --miner-id 1000 --randomness "$2" --vanilla "$3" --params "$PARAMS" --proof "$4"; }
  timeout 300 "$BENCH" -a "$GRPC_UNIX" single -t wpost --registered-proof 10 --vanilla wpost.json --randomness "$RAND" \
    --out wpost.bin > single.txt || fail "wpost single: $(cat single.txt)"
  grep -q '^status:    COMPLETED$' single.txt && grep -Eq '^proof:     192 bytes \(hex: [0-9a-f]{384}\)$' single.txt \
    || fail "wpost single output: $(cat single.txt)"
  out=$(V StackedDrgWindow2KiBV1_1 "$RAND" wpost.json wpost.bin) || fail "verify-post window: $out"
  echo "$out" | grep -q '^OK' || fail "verify-post window: $out"
  set +e; out=$(V StackedDrgWindow2KiBV1_1 "$OTHER" wpost.json wpost.bin); rc=$?; set -e
  [ "$rc" = 1 ] && echo "$out" | grep -q '^INVALID' || fail "verify-post accepted the window proof for other randomness: rc=$rc $out"
  pass "Prove WINDOW_POST_PARTITION (code 10, 2 sectors): accepted by cuzk verify-post, not for other randomness"
  timeout 300 "$BENCH" -a "$GRPC_UNIX" single -t winning --registered-proof StackedDrgWinning2KiBV1 --vanilla winning.json \
    --randomness "$RAND" -o winning.bin > single.txt || fail "winning single: $(cat single.txt)"
  grep -q '^status:    COMPLETED$' single.txt || fail "winning single output: $(cat single.txt)"
  out=$(V StackedDrgWinning2KiBV1 "$RAND" winning.json winning.bin) || fail "verify-post winning: $out"
  echo "$out" | grep -q '^OK' || fail "verify-post winning: $out"
  pass "Prove WINNING_POST (code 0): accepted by cuzk verify-post"
  # Two window-post jobs in flight at once, proofs written by --proofs-dir.
  timeout 300 "$BENCH" -a "$GRPC_UNIX" batch -t wpost --registered-proof StackedDrgWindow2KiBV1_2 --vanilla wpost.json \
    --randomness "$RAND" -c 2 -j 2 --proofs-dir pd > batch.txt || fail "wpost batch: $(cat batch.txt)"
  grep -q '^completed:     2$' batch.txt || fail "wpost batch: $(cat batch.txt)"
  for n in 1 2; do
    out=$(V StackedDrgWindow2KiBV1_1 "$RAND" wpost.json "pd/proof-$n.bin") || fail "verify-post batch proof $n: $out"
  done
  # A tampered vanilla proof: FAILED naming the sector, nothing proved.
  jq -c '.[1] |= (.[0:40] + (if .[40:41] == "A" then "B" else "A" end) + .[41:])' wpost.json > bad.json
  set +e; B single -t wpost --registered-proof 10 --vanilla bad.json --randomness "$RAND" > bad.txt; rc=$?; set -e
  [ "$rc" = 1 ] && grep -Eq '^error:     window-post: vanilla_proofs\[1\]' bad.txt || fail "tampered vanilla: rc=$rc $(cat bad.txt)"
  pass "batch -t wpost -c 2 -j 2: both proofs verify; a tampered vanilla proof FAILED naming vanilla_proofs[1]"
  stop_daemon 60
  ;;

snap_e2e)
  # SnapDeals end to end at 2 KiB: a TEST-ONLY key from `cuzk setup --update-proof StackedDrg2KiBV1`
  # (fixture snap_params_2k), a sector sealed by `cuzk seal`, its update encoded by `cuzk snap-encode`,
  # the partition proof from `cuzk gen-vanilla snap`, proved through the daemon (SNAP_DEALS_UPDATE from
  # cuzk-bench), verified by `cuzk verify-snap`.
  : "${CUZK:?}" "${PARAMS:?}"
  hex() { printf "%064x" "$1"; }
  "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed 41 --ticket "$(hex 41)" --seed "$(hex 141)" \
    --miner-id 1000 --sector-id 41 --out s41 > /dev/null || fail "cuzk seal"
  python3 -c "import random; random.seed(41); open('data.bin','wb').write(bytes(random.getrandbits(8) for _ in range(2032)))"
  "$CUZK" snap-encode --sector s41 --data data.bin --out u41 > /dev/null || fail "cuzk snap-encode"
  "$CUZK" gen-vanilla snap --sector s41 --updated u41 -o snap.json > /dev/null || fail "gen-vanilla snap"
  C=(--comm-r-old "$(jq -r .comm_r_old u41/comm.json)" --comm-r-new "$(jq -r .comm_r_new u41/comm.json)"
     --comm-d-new "$(jq -r .comm_d_new u41/comm.json)")
  write_config cuzk.toml "[srs]
param_cache = \"$PARAMS\"
preload = [\"snap-2k\"]"
  sed -i 's/^total_budget = "1GiB"$/total_budget = "4GiB"/' cuzk.toml
  start_daemon cuzk.toml
  status_json | jq -e '.loaded_srs[] | select(.circuit_id == "snap-2k") | .tier_name == "host"' > /dev/null \
    || fail "srs.preload snap-2k: $(status_json | jq -c .loaded_srs)"
  B() { "$BENCH" -a "$GRPC_UNIX" "$@"; }
  V() { "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "$@" --params "$PARAMS"; }
  timeout 300 "$BENCH" -a "$GRPC_UNIX" single -t snap --registered-proof StackedDrg2KiBV1 --vanilla snap.json "${C[@]}" \
    --out snap.bin > single.txt || fail "snap single: $(cat single.txt)"
  grep -q '^status:    COMPLETED$' single.txt && grep -Eq '^proof:     192 bytes \(hex: [0-9a-f]{384}\)$' single.txt \
    || fail "snap single output: $(cat single.txt)"
  out=$(V "${C[@]}" --proof snap.bin) || fail "verify-snap: $out"
  echo "$out" | grep -q '^OK' || fail "verify-snap: $out"
  set +e; out=$(V --comm-r-old "$(jq -r .comm_r_new u41/comm.json)" --comm-r-new "$(jq -r .comm_r_new u41/comm.json)" \
    --comm-d-new "$(jq -r .comm_d_new u41/comm.json)" --proof snap.bin); rc=$?; set -e
  [ "$rc" = 1 ] && echo "$out" | grep -q '^INVALID' || fail "verify-snap accepted the proof for another comm_r_old: rc=$rc $out"
  pass "Prove SNAP_DEALS_UPDATE (StackedDrg2KiBV1): accepted by cuzk verify-snap, not for another comm_r_old"
  timeout 300 "$BENCH" -a "$GRPC_UNIX" batch -t snap --registered-proof 0 --vanilla snap.json "${C[@]}" -c 2 -j 2 \
    --proofs-dir pd > batch.txt || fail "snap batch: $(cat batch.txt)"
  grep -q '^completed:     2$' batch.txt || fail "snap batch: $(cat batch.txt)"
  for n in 1 2; do
    out=$(V "${C[@]}" --proof "pd/proof-$n.bin") || fail "verify-snap batch proof $n: $out"
  done
  # A tampered partition proof: FAILED naming it, nothing proved.
  jq -c '.[0] |= (.[0:60] + (if .[60:61] == "A" then "B" else "A" end) + .[61:])' snap.json > bad.json
  set +e; B single -t snap --registered-proof 0 --vanilla bad.json "${C[@]}" > bad.txt; rc=$?; set -e
  [ "$rc" = 1 ] && grep -Eq '^error:     snap-update: vanilla_proofs\[0\]' bad.txt || fail "tampered vanilla: rc=$rc $(cat bad.txt)"
  pass "batch -t snap -c 2 -j 2: both proofs verify; a tampered partition proof FAILED naming vanilla_proofs[0]"
  stop_daemon 60
  ;;

odd_limits)
  # Limits and odd files never kill or block the daemon (issue 41 item 3), with the 2 KiB PoRep key
  # preloaded from a folder of links to the shared fixture (so the shape cache is written here):
  # SIGTERM during the preload stops it at once (exit 0, nothing served); under a file-size limit
  # below the shape cache's size, with a FIFO at the cache path, it starts, serves and says why the
  # cache was not written, leaving no .tmp behind.
  : "${PARAMS:?}"
  mkdir params
  ln -s "$PARAMS"/* params/
  write_config cuzk.toml "[srs]
param_cache = \"$WORK/params\"
preload = [\"porep-2k\"]"
  sed -i 's/^total_budget = "1GiB"$/total_budget = "4GiB"/' cuzk.toml
  rm -f daemon.out daemon.err
  "$DAEMON" --config cuzk.toml > daemon.out 2> daemon.err &
  DPID=$!
  wait_for 30 grep -q 'preloading porep-2k' daemon.err || fail "the preload never started"
  t0=$(date +%s%N)
  kill -TERM "$DPID"
  for _ in $(seq 1 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$DPID" 2>/dev/null && fail "still running 5 s after SIGTERM during the preload"
  rc=0; wait "$DPID" || rc=$?; DPID=""
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ "$rc" = 0 ] || fail "exit $rc after SIGTERM during the preload"
  grep -q 'received SIGTERM while starting (before serving): stopping now' daemon.err || fail "no log line for the early SIGTERM"
  ! grep -q '^READY' daemon.out || fail "READY after SIGTERM"
  [ ! -e "$SOCK" ] || fail "socket left behind"
  pass "SIGTERM during the key preload: exit 0 in $ms ms, nothing served"
  SHAPE=$(ls params/*.params).shape
  rm -f "$SHAPE"
  mkfifo "$SHAPE"
  LAUNCH="prlimit --fsize=4194304" READY_S=60 start_daemon cuzk.toml
  grep -F "$SHAPE: not a regular file" daemon.err | grep -q 'cannot write .*\.tmp: File too large' \
    || fail "the shape-cache warning does not name both reasons: $(grep -i shape daemon.err)"
  grep -F 'shape cache' daemon.err | sed 's/^/  log: /'
  [ -p "$SHAPE" ] && [ ! -e "$SHAPE.tmp" ] || fail "the FIFO was replaced or a .tmp was left"
  curl -sf "http://$HTTP/status" | jq -e '.allocations.srs[] | select(.circuit_id == "porep-2k")' > /dev/null \
    || fail "porep-2k not loaded"
  stop_daemon 30
  pass "a FIFO at the shape cache and a file-size limit below its size: served, one warning naming both reasons, no .tmp"
  ;;

curio_traffic)
  # What Curio's Go code sends (issue 38), through one daemon at 2 KiB on the CPU backend, from
  # tests/daemon/curio_client.js (Curio's proto, Prove only, no token, Curio's ids, fields and
  # priorities): PoRep (Curio's C1 wrapper; its first call abandoned, the retry picks the job up),
  # PSProve PoRep, SnapDeals, WinningPoSt and two WindowPoSt partitions of other sectors under one
  # request_id (at once, and one after the other), all at once; then an abandoned WinningPoSt, seen
  # cancelled. Every proof is verified against its own inputs by `cuzk verify-*` and by the
  # independent noble verifier; the log names both jobs of a shared id and the abandoned one.
  : "${CUZK:?}" "${PARAMS_POREP:?}" "${PARAMS_POST:?}" "${PARAMS_SNAP:?}"
  hex() { printf "%064x" "$1"; }
  rand() { python3 -c "import hashlib,sys;b=bytearray(hashlib.sha256(sys.argv[1].encode()).digest());b[31]&=0x3f;print(b.hex())" "$1"; }
  field() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
  NOBLE_BP=$ROOT/tests/peers/noble_verify_bellperson.mjs
  mkdir params
  ln -s "$PARAMS_POREP"/* "$PARAMS_POST"/* "$PARAMS_SNAP"/* params/
  for i in 21 22 23; do
    "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed "$i" --ticket "$(hex "$i")" --seed "$(hex $((i + 4000)))" \
      --miner-id 1000 --sector-id "$i" --out "s$i" > /dev/null || fail "cuzk seal $i"
  done
  python3 -c "import random; random.seed(23); open('data.bin','wb').write(bytes(random.getrandbits(8) for _ in range(2032)))"
  "$CUZK" snap-encode --sector s23 --data data.bin --out u23 > /dev/null || fail "cuzk snap-encode"
  "$CUZK" gen-vanilla snap --sector s23 --updated u23 -o snap.json > /dev/null || fail "gen-vanilla snap"
  R1=$(rand deadline-1); R2=$(rand deadline-2); RW=$(rand winning); A1=$(rand abandon-1); A2=$(rand abandon-2); A3=$(rand abandon-3)
  # Partition a = sectors 21 and 22, partition b = sector 23 (Curio leaves skipped sectors out).
  for d in 1 2; do
    r=R$d
    "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --sector s21 --sector s22 --miner-id 1000 \
      --randomness "${!r}" -o "w${d}a.json" > /dev/null || fail "gen-vanilla window-post $d a"
    "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --sector s23 --miner-id 1000 \
      --randomness "${!r}" -o "w${d}b.json" > /dev/null || fail "gen-vanilla window-post $d b"
  done
  for r in RW A1 A2 A3; do
    "$CUZK" gen-vanilla winning-post --registered-proof StackedDrgWinning2KiBV1 --sector s21 --miner-id 1000 \
      --randomness "${!r}" -o "win_$r.json" > /dev/null || fail "gen-vanilla winning-post $r"
  done
  cat > manifest.json <<JSON
{"miner": 1000, "sector_size": 2048, "window_proof": 10, "winning_proof": 0,
 "porep": {"sector": 21, "c1": "s21/c1.json", "registered_proof": 5, "sector_size": 2048},
 "ps_porep": {"sector": 22, "c1": "s22/c1.json", "registered_proof": 5, "sector_size": 2048, "task_id": 4711},
 "snap": {"sector": 23, "vanilla": "snap.json", "registered_proof": 0, "sector_size": 2048,
          "comm_r_old": "$(field u23/comm.json comm_r_old)", "comm_r_new": "$(field u23/comm.json comm_r_new)",
          "comm_d_new": "$(field u23/comm.json comm_d_new)"},
 "window": [{"randomness": "$R1", "partitions": [{"name": "w1a", "vanilla": "w1a.json"}, {"name": "w1b", "vanilla": "w1b.json"}]},
            {"randomness": "$R2", "partitions": [{"name": "w2a", "vanilla": "w2a.json"}, {"name": "w2b", "vanilla": "w2b.json"}]}],
 "winning": {"randomness": "$RW", "vanilla": "win_RW.json"},
 "abandon_winning": [{"randomness": "$A1", "vanilla": "win_A1.json"}, {"randomness": "$A2", "vanilla": "win_A2.json"},
                     {"randomness": "$A3", "vanilla": "win_A3.json"}]}
JSON
  write_config cuzk.toml "[srs]
param_cache = \"$WORK/params\""
  sed -i 's/^total_budget = "1GiB"$/total_budget = "12GiB"/' cuzk.toml
  start_daemon cuzk.toml
  (timeout 900 node "$ROOT/tests/daemon/curio_client.js" "$GRPC_UNIX" "$HTTP" manifest.json out) > client.txt 2>&1 \
    || { cat client.txt; fail "curio_client.js"; }
  cat client.txt
  # Every proof against its own inputs: cuzk's verifiers, then noble with the inputs cuzk derives.
  noble() {  # VK PROOF INPUTS_TXT
    python3 -c "import json,sys;print(json.dumps([l.strip() for l in open(sys.argv[1]) if not l.startswith('#')]))" "$3" > inputs.json
    node "$NOBLE_BP" "$1" "$2" inputs.json > /dev/null || fail "noble rejects $2"
  }
  for p in porep:21 ps_porep:22; do
    name=${p%%:*} i=${p#*:}
    out=$("$CUZK" verify-porep --c1 "s$i/c1.json" --params params --proof "out/$name.bin" --miner-id 1000) || fail "verify-porep $name: $out"
    "$CUZK" porep inputs --registered-proof StackedDrg2KiBV1_1 --miner-id 1000 --sector-id "$i" --ticket "$(hex "$i")" \
      --seed "$(hex $((i + 4000)))" --comm-d "$(field "s$i/comm.json" comm_d)" --comm-r "$(field "s$i/comm.json" comm_r)" > "$name.inputs"
    noble "$(ls "$PARAMS_POREP"/*.vk)" "out/$name.bin" "$name.inputs"
  done
  C=(--comm-r-old "$(field u23/comm.json comm_r_old)" --comm-r-new "$(field u23/comm.json comm_r_new)" --comm-d-new "$(field u23/comm.json comm_d_new)")
  out=$("$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${C[@]}" --params params --proof out/snap.bin) || fail "verify-snap: $out"
  "$CUZK" snap inputs --update-proof StackedDrg2KiBV1 "${C[@]}" --partition 0 > snap.inputs
  noble "$(ls "$PARAMS_SNAP"/*.vk)" out/snap.bin snap.inputs
  sector() { echo "$(field "s$1/comm.json" sector_id):$(field "s$1/comm.json" comm_r)"; }
  # The official 2 KiB PoSt parameter names (tests/cli/post_test.sh): window, then winning.
  WINDOW_VK=params/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk
  WINNING_VK=params/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk
  post_check() {  # NAME PROOF_NAME RANDOMNESS VANILLA SECTOR...
    local name=$1 rp=$2 r=$3 v=$4 key=$WINDOW_VK; shift 4
    case $rp in StackedDrgWinning*) key=$WINNING_VK ;; esac
    local sectors=(); for i in "$@"; do sectors+=(--sector "$(sector "$i")"); done
    out=$("$CUZK" verify-post --registered-proof "$rp" --miner-id 1000 --randomness "$r" --vanilla "$v" --params params \
      --proof "out/$name.bin") || fail "verify-post $name: $out"
    "$CUZK" post inputs --registered-proof "$rp" --miner-id 1000 --randomness "$r" "${sectors[@]}" > "$name.inputs"
    noble "$key" "out/$name.bin" "$name.inputs"
  }
  post_check w1a StackedDrgWindow2KiBV1_1 "$R1" w1a.json 21 22
  post_check w1b StackedDrgWindow2KiBV1_1 "$R1" w1b.json 23
  post_check w2a StackedDrgWindow2KiBV1_1 "$R2" w2a.json 21 22
  post_check w2b StackedDrgWindow2KiBV1_1 "$R2" w2b.json 23
  post_check winning StackedDrgWinning2KiBV1 "$RW" win_RW.json 21
  # ... and each partition's proof is its own: partition b's proof does not verify as partition a's.
  set +e; out=$("$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id 1000 --randomness "$R1" \
    --vanilla w1a.json --params params --proof out/w1b.bin); rc=$?; set -e
  [ "$rc" = 1 ] && echo "$out" | grep -q '^INVALID' || fail "partition b's proof verified as partition a's: rc=$rc $out"
  pass "8 proofs from Curio's requests (PoRep, PSProve, Snap, 4 WindowPoSt partitions under 2 ids, WinningPoSt): each verified by cuzk verify-* and noble against its own inputs"
  # The log: the shared id's second job named with the first; the abandoned WinningPoSt; the
  # abandoned PoRep proved once (its retry joined).
  W1=$(jq -r '.[] | select(.name == "w1a") | .request_id' out/results.json)
  grep -F "request_id \"$W1\" is also job" daemon.err > shared.txt || fail "no log line for the shared request_id"
  [ "$(wc -l < shared.txt)" = 1 ] || fail "the shared id logged $(wc -l < shared.txt) times"
  sed 's/^/  log: /' shared.txt
  AB=$(jq -r '.[] | select(.name == "abandoned_winning") | .request_id' out/results.json)
  grep -F "job $AB: abandoned: the call waiting for it was cancelled by its caller" daemon.err > abandoned.txt \
    || fail "no log line for the abandoned WinningPoSt"
  grep -F "job $AB cancelled: winning-post" daemon.err >> abandoned.txt || fail "no cancel line for $AB"
  sed 's/^/  log: /' abandoned.txt
  [ "$(grep -c 'job porep-1000-21 accepted' daemon.err)" = 1 ] || fail "the abandoned PoRep was run more than once"
  [ "$(grep -c 'job porep-1000-21 done' daemon.err)" = 1 ] || fail "the abandoned PoRep did not complete once"
  pass "log: the shared wdpost id's two jobs named together; the abandoned WinningPoSt cancelled; the abandoned PoRep proved once"
  stop_daemon 60
  ;;

logs_json)
  # Operator logs as JSON lines (apps/common/logging.hpp), RUST_LOG applied: one success, one failure
  # (a witness of another circuit; its error text has quotes) and one cancellation of a running job
  # through CancelProof; every stderr line must be one JSON object, and the lifecycle lines must be there.
  slow=$(slow_circuit 16384)
  write_config cuzk.toml "[[srs.circuits]]
id = \"slow\"
zkey = \"$slow/chain.zkey\"
preload = true"
  sed -i 's/^level = "info"$/level = "warn"\nformat = "json"/' cuzk.toml
  sed -i 's/^\[pipeline\]$/[pipeline]\ntimeline = true/' cuzk.toml  # TIMELINE lines become JSON lines too
  # A bad RUST_LOG level is one line and exit 2, before anything runs.
  set +e; RUST_LOG="info,cuzk_core=loud" "$DAEMON" --config cuzk.toml --check-config > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" = 2 ] && [ "$(wc -l < err.txt)" = 1 ] \
    && grep -qx 'cuzk-daemon: RUST_LOG: log filter "info,cuzk_core=loud": directive "cuzk_core=loud": level "loud" is not trace, debug, info, warn, error or off' err.txt \
    || fail "bad RUST_LOG: rc=$rc $(cat err.txt)"
  # RUST_LOG wins over logging.level = "warn": the base is info, the engine's loggers debug.
  export RUST_LOG="info,cuzk_core=debug,tonic=warn"
  start_daemon cuzk.toml
  unset RUST_LOG
  B() { "$BENCH" -a "$GRPC_UNIX" "$@"; }
  B single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" --request-id 'ok-"1"' > ok.txt || fail "success: $(cat ok.txt)"
  set +e; B single -t generic --circuit-id bits --wtns "$FIX/mulchain/witness.wtns" --request-id bad-1 > bad.txt; rc=$?; set -e
  [ "$rc" = 1 ] && grep -q '^status:    FAILED$' bad.txt || fail "failure: rc=$rc $(cat bad.txt)"
  # Three slow jobs (~0.3-0.8 s each on the device), then a fourth behind them, cancelled through
  # CancelProof as soon as it is prepared (running, not finished).
  logged() { jq -R -r 'fromjson? | .msg' daemon.err | grep -q "$1"; }
  B batch -t generic --circuit-id slow --wtns "$slow/chain.wtns" --request-id long -c 3 -j 3 > batch.txt 2>&1 &
  BPID=$!
  for i in 1 2 3; do wait_for 60 logged "^job long-$i prepared: " || fail "long-$i never prepared"; done
  B single -t generic --circuit-id slow --wtns "$slow/chain.wtns" --request-id long-4 > long4.txt 2>&1 &
  LPID=$!
  wait_for 60 logged '^job long-4 prepared: ' || fail "long-4 never prepared"
  out=$(B cancel long-4) || fail "cancel: $out"
  [ "$out" = "long-4 cancelled" ] || fail "cancel long-4: $out"
  set +e; timeout 120 tail --pid="$LPID" -f /dev/null; wait "$LPID"; rc=$?; set -e
  [ "$rc" = 1 ] && grep -q '^status:    CANCELLED$' long4.txt || fail "long-4: rc=$rc $(cat long4.txt)"
  timeout 120 tail --pid="$BPID" -f /dev/null || fail "batch did not finish"
  wait "$BPID" || fail "batch: $(cat batch.txt)"
  grep -q '^completed:     3$' batch.txt || fail "batch: $(cat batch.txt)"
  stop_daemon
  cp daemon.err json.log  # kept for a look after the run
  # Every line is one JSON object {time, level, target, msg}, time UTC RFC 3339 with milliseconds.
  n=$(wc -l < daemon.err)
  [ "$n" -gt 10 ] || fail "only $n log lines"
  jq -R -e 'fromjson' daemon.err > /dev/null || fail "a stderr line is not JSON: $(jq -R 'fromjson? // .' daemon.err | grep -v '^{' | head -3)"
  jq -R -s -e 'split("\n") | map(select(length > 0) | fromjson)
    | all(keys_unsorted == ["time", "level", "target", "msg"]
          and (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"))
          and (.level | IN("trace", "debug", "info", "warn", "error", "critical"))
          and (.target | IN("daemon", "engine", "srs", "server")))' daemon.err > /dev/null \
    || fail "log lines lack time/level/target/msg: $(head -3 daemon.err)"
  L() { jq -R -e -s --arg lv "$1" --arg tg "$2" --arg re "$3" 'split("\n") | map(select(length > 0) | fromjson
    | select(.level == $lv and .target == $tg and (.msg | test($re)))) | length > 0' daemon.err > /dev/null || fail "no $1 $2 line /$3/"; }
  L warn daemon '^log filter "info,cuzk_core=debug,tonic=warn": unknown target\(s\) tonic ignored'
  L info daemon '^preloading slow: .*/chain\.zkey \([0-9.]+ [KM]iB\)$'
  L info srs '^loading proving key slow from .*/chain\.zkey \('
  L info srs '^loaded proving key slow in [0-9]+ ms \('
  L info daemon '^preloaded slow in [0-9]+ ms$'
  L info daemon '^TIMELINE,[0-9]+,SYNTH_START,[^,]+,partition=0$'
  L info engine '^job ok-"1" accepted: generic-groth16, priority NORMAL, '
  L info engine '^job ok-"1" prepared: generic-groth16, 1 partition\(s\), key bits'
  L info engine '^job ok-"1" done: generic-groth16 in [0-9]+\.[0-9]{3} s, 1 partition\(s\), queue wait [0-9]+ ms'
  L debug engine '^job ok-"1" partition 0: synthesized in [0-9]+ ms$'
  L info engine '^job bad-1 accepted: '
  L error engine '^job bad-1 failed: generic-groth16 after [0-9.]+ s: partition 0 synthesis failed: generic-groth16: the witness has [0-9]+ values but circuit "bits" has [0-9]+ variables$'
  L info engine '^job long-4 accepted: '
  L info engine '^job long-4 cancelled: generic-groth16 after [0-9.]+ s: cancelled by request$'
  L info engine '^job long-1 done: '
  L info engine '^job long-2 done: '
  L info engine '^job long-3 done: '
  L info engine '^no longer accepting jobs'
  # No job ends twice, and none that did not end is said to.
  ends=$(jq -R -r 'fromjson | .msg | capture("^job (?<id>[^ ]+) (?<how>done|failed|cancelled):") | .id + " " + .how' daemon.err | sort | tr '\n' ',')
  [ "$ends" = 'bad-1 failed,long-1 done,long-2 done,long-3 done,long-4 cancelled,ok-"1" done,' ] || fail "job ends: $ends"
  # logging.level = "warn" alone (no RUST_LOG) keeps info lines out.
  start_daemon cuzk.toml
  B single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" --request-id quiet-1 > ok.txt || fail "quiet: $(cat ok.txt)"
  stop_daemon
  ! jq -R -r 'fromjson | .level' daemon.err | grep -qv '^warn$\|^error$' || fail "info lines at level warn: $(head -3 daemon.err)"
  pass "JSON log lines: $n lines parse; accept, prepared, done, failed (with its error), cancelled for the right jobs"
  ;;

config_errors)
  cat > bad.toml <<TOML
[memory]
total_budget = "lots"
[gpus]
gpu_workers_per_device = "two"
TOML
  set +e; "$DAEMON" --config bad.toml > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" = 2 ] || fail "bad config: exit $rc"
  grep -q 'bad.toml:2: memory.total_budget: size "lots" does not start with a number' err.txt || fail "$(cat err.txt)"
  grep -q 'gpus.gpu_workers_per_device: expected an integer' err.txt || fail "$(cat err.txt)"
  write_config good.toml '[scheduler]
sort_by_type = true'
  "$DAEMON" --config good.toml --check-config > ok.txt 2> warn.txt || fail "check-config: $(cat warn.txt)"
  grep -q '^config ok: budget 1.00 GiB' ok.txt || fail "$(cat ok.txt)"
  grep -q 'scheduler.sort_by_type: unused' warn.txt || fail "deprecated-key warning: $(cat warn.txt)"
  # Tuning variables are read once at start: a bad value is one line and exit 2 (CUZK_MSM_SEG=0 used
  # to divide by zero in the MSM), a good non-default one is logged.
  for bad in CUZK_MSM_SEG=0 CUZK_THREADS=0 CUZK_NO_IFMA=yes CUZK_SHAPE_CACHE=2; do
    set +e; env "$bad" "$DAEMON" --config good.toml --check-config > out.txt 2> err.txt; rc=$?; set -e
    [ "$rc" = 2 ] || fail "$bad: exit $rc"
    grep -q "^cuzk-daemon: ${bad%%=*}=\"${bad#*=}\": expected an integer from " err.txt || fail "$bad: $(cat err.txt)"
  done
  CUZK_THREADS=3 "$DAEMON" --config good.toml --check-config > ok.txt 2> warn.txt || fail "CUZK_THREADS=3: $(cat warn.txt)"
  grep -q 'tuning: CUZK_THREADS=3 (from the environment)' warn.txt || fail "CUZK_THREADS=3 not logged: $(cat warn.txt)"
  # backend.kind = "cuda" without a GPU (or in a CPU-only build): one line, exit 2, before serving.
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    write_config cuda.toml '[backend]
kind = "cuda"'
    set +e; "$DAEMON" --config cuda.toml > out.txt 2> err.txt; rc=$?; set -e
    [ "$rc" = 2 ] || fail "backend.kind = cuda without a GPU: exit $rc"
    grep -qE '^cuzk-daemon: backend.kind = "cuda": (no CUDA device found|this build has no CUDA backend); use "cpu" or "auto"$' err.txt \
      || fail "backend.kind = cuda error: $(cat err.txt)"
    [ "$(wc -l < err.txt)" -le 3 ] || fail "backend.kind = cuda: more than the error: $(cat err.txt)"
    ! grep -q READY out.txt || fail "served without its backend"
    write_config auto.toml '[backend]
kind = "auto"'
    "$DAEMON" --config auto.toml --check-config > ok.txt 2> warn.txt || fail "check-config auto: $(cat warn.txt)"
    grep -q 'backend cpu$' ok.txt || fail "auto without a GPU is not cpu: $(cat ok.txt)"
    # Deadlines under load (docs/daemon.md 3a): the defaults, and the GPU lane needs the CUDA backend.
    grep -qx 'deadlines: urgent from HIGH (1 reserved synthesis workers, headroom auto), lane cpu up to 2^22; cancelled when abandoned: window-post, winning-post' ok.txt \
      || fail "deadlines line: $(cat ok.txt)"
    # scheduler.cancel_abandoned (docs/daemon.md "Abandoned calls"): names or aliases; an unknown one
    # is refused with the kinds known.
    write_config abandon.toml '[scheduler]
cancel_abandoned = ["winning", "porep-c2"]'
    "$DAEMON" --config abandon.toml --check-config > ok.txt 2> warn.txt || fail "check-config cancel_abandoned: $(cat warn.txt)"
    grep -q 'cancelled when abandoned: porep-c2, winning-post$' ok.txt || fail "cancel_abandoned line: $(cat ok.txt)"
    write_config abandon_none.toml '[scheduler]
cancel_abandoned = []'
    "$DAEMON" --config abandon_none.toml --check-config > ok.txt 2> warn.txt || fail "check-config cancel_abandoned = []"
    grep -q 'cancelled when abandoned: none$' ok.txt || fail "cancel_abandoned = []: $(cat ok.txt)"
    write_config abandon_bad.toml '[scheduler]
cancel_abandoned = ["wdpost"]'
    set +e; "$DAEMON" --config abandon_bad.toml --check-config > out.txt 2> err.txt; rc=$?; set -e
    [ "$rc" = 2 ] && grep -qx 'cuzk-daemon: scheduler.cancel_abandoned: unknown proof kind "wdpost" (known: porep-c2, snap-update, window-post, winning-post, generic-groth16)' err.txt \
      || fail "cancel_abandoned unknown kind: exit $rc: $(cat err.txt)"
    write_config lane.toml '[gpus]
urgent_lane = "gpu"'
    set +e; "$DAEMON" --config lane.toml --check-config > out.txt 2> err.txt; rc=$?; set -e
    [ "$rc" = 2 ] && grep -qx 'cuzk-daemon: gpus.urgent_lane = "gpu" needs the CUDA backend (backend.kind resolved to "cpu"); use "cpu", "off" or "auto"' err.txt \
      || fail "urgent_lane = gpu without CUDA: exit $rc: $(cat err.txt)"
  fi
  set +e; "$DAEMON" --config good.toml --listen localhost > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q 'expected host:port' err.txt || fail "--listen validation: $(cat err.txt)"
  set +e; "$DAEMON" --config good.toml --log-level loud > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" = 2 ] || fail "--log-level validation"
  # --listen and --log-level override the file; a missing file means defaults, said in the log.
  "$DAEMON" --config "$WORK/none.toml" --listen "unix://$SOCK" --log-level debug > daemon.out 2> daemon.err &
  DPID=$!
  wait_for 10 grep -q '^READY grpc=unix://' daemon.out || fail "daemon with defaults did not start"
  grep -q "config file $WORK/none.toml not found; using the defaults" daemon.err || fail "missing-config message"
  stop_daemon
  # A second daemon on a live socket is refused; a stale socket file is replaced.
  write_config a.toml ""
  start_daemon a.toml
  set +e; "$DAEMON" --config a.toml > out2.txt 2> err2.txt; rc=$?; set -e
  [ "$rc" = 2 ] && grep -q 'another process is already listening' err2.txt || fail "second daemon: $(cat err2.txt)"
  kill -KILL "$DPID"; wait "$DPID" 2>/dev/null || true; DPID=""
  [ -S "$SOCK" ] || fail "expected a stale socket"
  start_daemon a.toml
  [ "$(stat -c %a "$SOCK")" = 660 ] || fail "unix socket mode $(stat -c %a "$SOCK"), expected 660"
  stop_daemon
  pass "config validation, flags, stale and live sockets (mode 0660)"
  # Access control at start-up (docs/daemon.md "Access control"): a TCP listener without a token is
  # refused unless auth.insecure, before any key is loaded; a token file others may read is refused.
  AUTH='allowed_dirs = []' write_config open.toml ""
  for flag in "" --check-config; do
    set +e; "$DAEMON" --config open.toml $flag > out.txt 2> err.txt; rc=$?; set -e
    [ "$rc" = 2 ] && grep -qx "cuzk-daemon: listen 127.0.0.1:0: a TCP listener needs a bearer token (auth.token_file) or auth.insecure = true" err.txt \
      || fail "TCP without a token ($flag): exit $rc: $(cat err.txt)"
    ! grep -q READY out.txt || fail "served TCP without a token"
  done
  printf '%s\n' 0123456789abcdef0123456789abcdef > token
  chmod 0644 token
  AUTH="token_file = \"$WORK/token\"" write_config tok.toml ""
  set +e; "$DAEMON" --config tok.toml --check-config > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" = 2 ] && grep -qx "cuzk-daemon: auth.token_file: $WORK/token: the token file is readable by every user; chmod 0600 (or 0640 for a group)" err.txt \
    || fail "world-readable token: exit $rc: $(cat err.txt)"
  chmod 0600 token
  AUTH="token_file = \"$WORK/token\"
unix_socket_mode = \"0600\"" write_config tok.toml ""
  start_daemon tok.toml
  [ "$(stat -c %a "$SOCK")" = 600 ] || fail "auth.unix_socket_mode 0600: got $(stat -c %a "$SOCK")"
  set +e; out=$("$BENCH" -a "$GRPC_TCP" status 2>&1); rc=$?; set -e
  [ "$rc" != 0 ] && echo "$out" | grep -q 'missing credentials' || fail "TCP status without the token: rc=$rc $out"
  "$BENCH" -a "$GRPC_UNIX" status > /dev/null || fail "the unix socket needs no token"
  # The operator's tools reach it with the token (issue 41 item 8): cuzk-bench --token-file.
  "$BENCH" -a "$GRPC_TCP" --token-file token status > /dev/null || fail "status with --token-file"
  "$BENCH" -a "$GRPC_TCP" --token-file token metrics > metrics.txt || fail "metrics with --token-file"
  grep -q "^cuzk_uptime_seconds " metrics.txt || fail "metrics with --token-file: $(head -3 metrics.txt)"
  printf '%s\n' 0123456789abcdef0123456789abcdeX > wrong; chmod 0600 wrong
  set +e; out=$("$BENCH" -a "$GRPC_TCP" --token-file wrong status 2>&1); rc=$?; set -e
  [ "$rc" != 0 ] && echo "$out" | grep -q 'invalid token' || fail "a wrong --token-file: rc=$rc $out"
  stop_daemon
  # TLS (auth.tls_cert / tls_key): cuzk-bench --tls-ca with the CA that signed the daemon's certificate.
  (openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days 2 \
     -subj /CN=cuzk-test-ca \
   && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr -subj /CN=localhost \
   && printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > ext.cnf \
   && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile ext.cnf) \
    > openssl.log 2>&1 || fail "openssl: $(cat openssl.log)"
  AUTH="token_file = \"$WORK/token\"
tls_cert = \"$WORK/server.pem\"
tls_key = \"$WORK/server.key\"" write_config tls.toml ""
  start_daemon tls.toml
  "$BENCH" -a "$GRPC_TCP" --tls-ca ca.pem --token-file token status > /dev/null || fail "status over TLS with --tls-ca"
  set +e; out=$("$BENCH" -a "$GRPC_TCP" --token-file token status 2>&1); rc=$?; set -e
  [ "$rc" != 0 ] || fail "plain TCP to a TLS listener succeeded"
  set +e; out=$("$BENCH" -a "$GRPC_UNIX" --tls-ca ca.pem status 2>&1); rc=$?; set -e
  [ "$rc" = 2 ] && echo "$out" | grep -q -- '--tls-ca: unix://.* is a unix socket' || fail "--tls-ca on a unix socket: rc=$rc $out"
  stop_daemon
  pass "auth: TCP needs a token or insecure; token files 0600; unix_socket_mode; cuzk-bench --token-file and --tls-ca"
  ;;

*)
  echo "unknown case $CASE" >&2
  exit 2
  ;;
esac
