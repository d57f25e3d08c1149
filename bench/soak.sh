#!/usr/bin/env bash
# A soak of the daemon (issue 41 item 10): a bounded mixed load at 2 KiB on the CPU backend for a set
# time — PoRep, SnapDeals, WindowPoSt and WinningPoSt proofs, random cancels, bad requests — with the
# daemon stopped between epochs by SIGTERM (drain) or SIGKILL and started again. Every call of the
# load is one `cuzk-bench single` with its own request id, run under a timeout; its outcome goes to
# calls.csv. At the end, a table: calls made, answered once (a COMPLETED, FAILED or CANCELLED result,
# or UNAVAILABLE when a SIGKILL took the daemon away under it), lost (no answer before the timeout:
# must be 0), proofs of bad requests (must be 0), errors by kind, and the daemon's RSS per epoch
# (sampled from /status every 5 s; flat means no leak).
#
#   bench/soak.sh [MINUTES (default 30)] [OUT (default bench/logs/soak-<date>)]
#   bench/soak.sh --report OUT [MINUTES]      the report again, from OUT's calls.csv and rss.csv
#
# Env: BUILD (default build; cuzk, cuzk-daemon and cuzk-bench built there), PARAMS_POREP, PARAMS_POST,
# PARAMS_SNAP (default BUILD/fixtures/*-params-2k: ctest's shared TEST-ONLY keys; `ctest -R fixture`
# makes them), EPOCH_S (default 240: seconds between restarts), CALL_TIMEOUT_S (default 900).
set -euo pipefail
report() {
  python3 - "$1" "$2" <<'PY' | tee "$1/report.md"
import csv, sys, collections
out, minutes = sys.argv[1], sys.argv[2]
calls = list(csv.DictReader(open(f"{out}/calls.csv")))
for c in calls:  # a good call that may be cancelled carries -cx- in its id
    if "-cx-" in c["id"]:
        c["quality"] = "cx"
rss = list(csv.DictReader(open(f"{out}/rss.csv")))
by = collections.Counter((c["kind"], c["quality"], c["status"]) for c in calls)
answered = sum(1 for c in calls if c["status"] in ("COMPLETED", "FAILED", "CANCELLED", "UNAVAILABLE"))
lost = sum(1 for c in calls if c["status"] == "LOST")
odd = [c for c in calls if c["status"] not in ("COMPLETED", "FAILED", "CANCELLED", "UNAVAILABLE", "LOST")]
bad_proved = sum(1 for c in calls if c["quality"] == "bad" and c["status"] == "COMPLETED")
print(f"# soak: {minutes} min, {len(calls)} calls, answered once {answered}, lost {lost}, other RPC errors {len(odd)}, "
      f"bad requests proved {bad_proved}\n")
print("| kind | request (cx: good, may be cancelled) | COMPLETED | FAILED | CANCELLED | UNAVAILABLE (SIGKILL) | LOST | other |")
print("|---|---|---|---|---|---|---|---|")
for kind in ("porep", "snap", "wpost", "winning"):
    for q in ("good", "cx", "bad"):
        row = [by.get((kind, q, s), 0) for s in ("COMPLETED", "FAILED", "CANCELLED", "UNAVAILABLE", "LOST")]
        other = sum(v for (k, qq, s), v in by.items() if k == kind and qq == q and s not in ("COMPLETED", "FAILED", "CANCELLED", "UNAVAILABLE", "LOST"))
        print(f"| {kind} | {q} | " + " | ".join(map(str, row)) + f" | {other} |")
print("\n| epoch | RSS samples | RSS min MiB | RSS max MiB | RSS last MiB |")
print("|---|---|---|---|---|")
ep = collections.defaultdict(list)
for r in rss:
    ep[int(r["epoch"])].append(int(r["rss_bytes"]))
for e in sorted(ep):
    v = ep[e]
    print(f"| {e} | {len(v)} | {min(v) / 2**20:.0f} | {max(v) / 2**20:.0f} | {v[-1] / 2**20:.0f} |")
if odd:
    print("\nother RPC errors: " + ", ".join(sorted(set(c["status"] for c in odd))))
sys.exit(1 if lost or bad_proved else 0)
PY
}
if [ "${1:-}" = --report ]; then report "$(realpath "$2")" "${3:-?}"; exit; fi
cd "$(dirname "$0")/.."
MINUTES=${1:-30}
OUT=$(realpath -m "${2:-bench/logs/soak-$(date +%Y%m%d-%H%M%S)}")
BUILD=$(realpath "${BUILD:-build}")
CUZK=$BUILD/src/apps/cuzk/cuzk DAEMON=$BUILD/src/apps/cuzk-daemon/cuzk-daemon BENCH=$BUILD/src/apps/cuzk-bench/cuzk-bench
PARAMS_POREP=${PARAMS_POREP:-$BUILD/fixtures/porep-params-2k}
PARAMS_POST=${PARAMS_POST:-$BUILD/fixtures/post-params-2k}
PARAMS_SNAP=${PARAMS_SNAP:-$BUILD/fixtures/snap-params-2k}
EPOCH_S=${EPOCH_S:-240}
CALL_TIMEOUT_S=${CALL_TIMEOUT_S:-900}
for b in "$CUZK" "$DAEMON" "$BENCH"; do [ -x "$b" ] || { echo "soak: $b is missing (build it)" >&2; exit 2; }; done
for p in "$PARAMS_POREP" "$PARAMS_POST" "$PARAMS_SNAP"; do
  ls "$p"/*.vk > /dev/null 2>&1 || { echo "soak: no keys in $p (run: ctest --test-dir $BUILD -R fixture)" >&2; exit 2; }
done
mkdir -p "$OUT/in" "$OUT/calls"
cd "$OUT/in"
log() { echo "$(date +%H:%M:%S) $*" | tee -a "$OUT/soak.log"; }

# ---- inputs: three sealed 2 KiB sectors, an update of one, PoSt and Snap vanilla proofs, bad copies
hex() { printf "%064x" "$1"; }
rand() { python3 -c "import hashlib,sys;b=bytearray(hashlib.sha256(sys.argv[1].encode()).digest());b[31]&=0x3f;print(b.hex())" "$1"; }
field() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
log "preparing inputs in $OUT/in"
for i in 21 22 23; do
  "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed "$i" --ticket "$(hex "$i")" \
    --seed "$(hex $((i + 4000)))" --miner-id 1000 --sector-id "$i" --out "s$i" > /dev/null
done
python3 -c "import random; random.seed(23); open('data.bin','wb').write(bytes(random.getrandbits(8) for _ in range(2032)))"
"$CUZK" snap-encode --sector s23 --data data.bin --out u23 > /dev/null
"$CUZK" gen-vanilla snap --sector s23 --updated u23 -o snap.json > /dev/null
RW=$(rand soak-window)
RN=$(rand soak-winning)
"$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --sector s21 --sector s22 --miner-id 1000 \
  --randomness "$RW" -o window.json > /dev/null
"$CUZK" gen-vanilla winning-post --registered-proof StackedDrgWinning2KiBV1 --sector s21 --miner-id 1000 \
  --randomness "$RN" -o winning.json > /dev/null
COMM_R_OLD=$(field u23/comm.json comm_r_old) COMM_R_NEW=$(field u23/comm.json comm_r_new) COMM_D_NEW=$(field u23/comm.json comm_d_new)
head -c 3000 s21/c1.json > bad_c1.json  # cut short
mkdir -p params && ln -sf "$PARAMS_POREP"/* "$PARAMS_POST"/* "$PARAMS_SNAP"/* params/

# ---- the daemon
SOCK=$OUT/cuzk.sock
cat > "$OUT/cuzk.toml" <<TOML
[daemon]
listen = ["unix://$SOCK"]
status_listen = "127.0.0.1:0"
drain_timeout = "120s"
[memory]
total_budget = "8GiB"
[srs]
param_cache = "$OUT/in/params"
[logging]
level = "info"
TOML
DPID=
HTTP=
start_daemon() {
  local n=$1
  "$DAEMON" -c "$OUT/cuzk.toml" >> "$OUT/daemon.log" 2>&1 &
  DPID=$!
  for _ in $(seq 200); do
    HTTP=$(grep -Eo 'HTTP status on [0-9.]+:[0-9]+' "$OUT/daemon.log" | tail -1 | awk '{print $4}') || true
    if [ -n "$HTTP" ] && [ -S "$SOCK" ] && curl -sf "http://$HTTP/status" > /dev/null 2>&1; then break; fi
    sleep 0.1
  done
  log "epoch $n: daemon pid $DPID, status on $HTTP"
}
sample_rss() {  # epoch; runs until killed
  while true; do
    r=$(curl -sf --max-time 2 "http://$HTTP/status" | jq '.memory.process_rss_bytes' 2>/dev/null) || r=
    [ -n "$r" ] && echo "$(date +%s),$1,$r" >> "$OUT/rss.csv"
    sleep 5
  done
}

# ---- the load: one call = one cuzk-bench single, its outcome in calls/<id>.txt and calls.csv
CALLS=0
call() {  # kind good|bad, then cuzk-bench arguments
  local kind=$1 quality=$2
  shift 2
  CALLS=$((CALLS + 1))
  # one good call in four may be cancelled (the canceller picks only those: PoRep, the longest, would
  # otherwise be the one running at every pick)
  local mark=$quality
  [ "$quality" = good ] && [ $((RANDOM % 4)) = 0 ] && mark=cx
  local id="soak-$kind-$mark-$CALLS-$RANDOM"
  local t0
  t0=$(date +%s)
  set +e
  timeout "$CALL_TIMEOUT_S" "$BENCH" -a "unix://$SOCK" single --request-id "$id" "$@" > "$OUT/calls/$id.txt" 2>&1
  local rc=$?
  set -e
  local status
  status=$(grep -Eo '^status: +[A-Z]+' "$OUT/calls/$id.txt" | awk '{print $2}' | head -1 || true)
  if [ -z "$status" ]; then
    if [ "$rc" = 124 ]; then status=LOST
    elif grep -q 'UNAVAILABLE' "$OUT/calls/$id.txt"; then status=UNAVAILABLE
    else status="RPC:$(grep -Eo '[A-Z_]{6,}' "$OUT/calls/$id.txt" | head -1 || true)"; fi
  fi
  echo "$id,$kind,$quality,$status,$(( $(date +%s) - t0 ))" >> "$OUT/calls.csv"
}
canceller() {  # now and then cancels a running job among those marked cancellable
  while true; do
    sleep $((20 + RANDOM % 40))
    local id
    id=$(curl -sf --max-time 2 "http://$HTTP/status" | jq -r '[.pipelines[]? | select(.job_id | test("^soak-[a-z]+-cx-"))] | .[0].job_id // empty' 2>/dev/null) || id=
    [ -n "$id" ] && "$BENCH" -a "unix://$SOCK" cancel "$id" >> "$OUT/cancels.txt" 2>&1 && echo "$(date +%s),$id" >> "$OUT/cancelled.csv" || true
  done
}
loop() {  # one kind's calls, one after the other, until the epoch's deadline; every 3rd call bad
  local kind=$1 end=$2 n=0
  while [ "$(date +%s)" -lt "$end" ]; do
    n=$((n + 1))
    local q=good
    [ $((n % 3)) = 2 ] && q=bad
    case "$kind:$q" in
      porep:good) call porep good -t porep --c1 s21/c1.json --sector-num 21 ;;
      porep:bad) call porep bad -t porep --c1 bad_c1.json --sector-num 21 ;;
      snap:good) call snap good -t snap --vanilla snap.json --registered-proof 0 --sector-num 23 --comm-r-old "$COMM_R_OLD" \
        --comm-r-new "$COMM_R_NEW" --comm-d-new "$COMM_D_NEW" ;;
      snap:bad) call snap bad -t snap --vanilla snap.json --registered-proof 0 --sector-num 23 --comm-r-old "$COMM_R_NEW" \
        --comm-r-new "$COMM_R_NEW" --comm-d-new "$COMM_D_NEW" ;;
      wpost:good) call wpost good -t wpost --vanilla window.json --registered-proof 10 --randomness "$RW" ;;
      wpost:bad) call wpost bad -t wpost --vanilla window.json --registered-proof 10 --randomness "$RN" ;;
      winning:good) call winning good -t winning --vanilla winning.json --registered-proof 0 --randomness "$RN" ;;
      winning:bad) call winning bad -t winning --vanilla winning.json --registered-proof 0 --randomness "$RW" ;;
    esac
    sleep 1
  done
}

END=$(( $(date +%s) + MINUTES * 60 ))
echo "id,kind,quality,status,seconds" > "$OUT/calls.csv"
echo "unix_s,epoch,rss_bytes" > "$OUT/rss.csv"
epoch=0
while [ "$(date +%s)" -lt "$END" ]; do
  epoch=$((epoch + 1))
  start_daemon "$epoch"
  sample_rss "$epoch" &
  SAMPLER=$!
  canceller &
  CANCELLER=$!
  stop_at=$(( $(date +%s) + EPOCH_S ))
  [ "$stop_at" -gt "$END" ] && stop_at=$END
  pids=()
  for k in porep snap wpost winning; do loop "$k" "$stop_at" & pids+=($!); done
  sleep $((stop_at - $(date +%s) > 0 ? stop_at - $(date +%s) : 0))
  kill "$CANCELLER" 2> /dev/null || true
  if [ $((epoch % 2)) = 1 ]; then
    log "epoch $epoch: SIGKILL with the load running"
    kill -9 "$DPID"
  else
    log "epoch $epoch: SIGTERM (drain)"
    kill -TERM "$DPID"
  fi
  wait "${pids[@]}" 2> /dev/null || true
  wait "$DPID" 2> /dev/null || true
  kill "$SAMPLER" 2> /dev/null || true
  wait "$SAMPLER" 2> /dev/null || true
done

# ---- the report (also alone: bench/soak.sh --report OUT)
report "$OUT" "$MINUTES"
