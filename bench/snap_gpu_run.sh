#!/usr/bin/env bash
# SnapDeals on one GPU (issue 25), end to end, in one call per phase.
#
#   bench/snap_gpu_run.sh PACK_DIR WORK_DIR PHASE...
#
#   PACK_DIR  bin/{cuzk,cuzk-daemon,cuzk-bench} + lib/ (bench/pack_for_gpu_host.sh), CUDA build
#   WORK_DIR  key, vanilla proofs, logs, proofs and summary-<phase>.md land here (reused)
#   PHASE     snap   TEST-ONLY key for StackedDrg<SIZE>V1 (`cuzk setup --update-proof`, GPU setup;
#                    the shape cached beside it); the P partition proofs of a STRUCTURED SYNTHETIC TEST
#                    DATA update (`cuzk gen-vanilla snap --synthetic`); `cuzk prove-snap --backend
#                    $BACKEND` once (per-partition synthesis / prove / self-check); then the daemon (key
#                    resident): a batch of COUNT snap proofs at each J in JS through cuzk-bench, every
#                    proof verified with the .vk (`cuzk verify-snap`); s/proof (steady), device s per
#                    partition, device busy, daemon RSS and peak
#             clean  removes the key (the disk holds one 32 GiB family's key at a time)
#
# Environment: SIZE (32GiB; 2KiB or 8MiB for a smoke test), BACKEND (cuda; cpu for the smoke test),
# SEED (toxic waste, default 7), COUNT (proofs per J, default 6), JS (default "2"), EXTRA_TOML
# (appended to the daemon config), GPU_WORKERS (default 2), SYNTH (pipeline.synthesis_concurrency,
# default 4).
set -euo pipefail
PACK=$(realpath "$1")
WORK=$(realpath -m "$2")
shift 2
PHASES=("$@")
SIZE=${SIZE:-32GiB}
BACKEND=${BACKEND:-cuda}
SEED=${SEED:-7}
COUNT=${COUNT:-6}
JS=${JS:-2}
EXTRA_TOML=${EXTRA_TOML:-}
GPU_WORKERS=${GPU_WORKERS:-2}
SYNTH=${SYNTH:-4}
PROOF=StackedDrg${SIZE}V1
case $SIZE in
  2KiB) ID=2k ;; 8MiB) ID=8m ;; 512MiB) ID=512m ;; 32GiB) ID=32g ;; 64GiB) ID=64g ;;
  *) echo "SIZE must be 2KiB, 8MiB, 512MiB, 32GiB or 64GiB" >&2; exit 2 ;;
esac
source "$(dirname "$(realpath "$0")")/run_lib.sh"
PARAMS=$WORK/params-snap

comm() { python3 -c "import json,sys;print(json.load(open('snap-comm.json'))[sys.argv[1]])" "$1"; }

for phase in "${PHASES[@]}"; do
  S=$WORK/summary-$phase.md
  echo "# $phase $PROOF ($(date -u +%F)); host $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); GPU: $(gpu_line)" > "$S"
  case $phase in
  snap)
    step "TEST-ONLY key $PROOF"
    if ls "$PARAMS"/*.vk > /dev/null 2>&1; then
      echo "   present: $(ls "$PARAMS"/*.params)"
    else
      rm -rf "$PARAMS.tmp"
      timed setup "$CUZK" setup --update-proof "$PROOF" --out "$PARAMS.tmp" --seed "$SEED" 2>&1 | tail -4
      mv "$PARAMS.tmp" "$PARAMS"
    fi
    ls -la "$PARAMS"
    step "STRUCTURED SYNTHETIC TEST DATA partition proofs"
    [ -f snap.json ] || timed gen-vanilla "$CUZK" gen-vanilla snap --synthetic --update-proof "$PROOF" --seed 3 \
      -o snap.json --comm-out snap-comm.json
    ls -la snap.json
    C=(--update-proof "$PROOF" --comm-r-old "$(comm comm_r_old)" --comm-r-new "$(comm comm_r_new)" --comm-d-new "$(comm comm_d_new)")
    step "cuzk prove-snap --backend $BACKEND (key load and shape included)"
    timed prove-snap "$CUZK" prove-snap "${C[@]}" --vanilla snap.json --params "$PARAMS" --out snap-cli.bin \
      --backend "$BACKEND" 2>&1 | tail -20 | tee -a "$S"
    "$CUZK" verify-snap "${C[@]}" --params "$PARAMS" --proof snap-cli.bin | tee -a "$S"
    cat > cuzk.toml << TOML
[daemon]
listen = "unix://$WORK/cuzk.sock"
[backend]
kind = "$BACKEND"
[gpus]
gpu_workers_per_device = $GPU_WORKERS
[pipeline]
synthesis_concurrency = $SYNTH
[srs]
param_cache = "$PARAMS"
preload = ["snap-$ID"]
$EXTRA_TOML
TOML
    step "daemon: snap-$ID preloaded"
    start_daemon cuzk.toml "snap-$ID"
    {
      echo
      echo "| J | proofs | s/proof | s/proof steady | device s/partition | synth s/partition | device busy | daemon RSS / peak GiB | verified |"
      echo "|---|---|---|---|---|---|---|---|---|"
    } >> "$S"
    for J in $JS; do
      step "J=$J: $COUNT snap proofs"
      rm -rf "snap-j$J.proofs"
      "$BENCH" -a "unix://$WORK/cuzk.sock" --json batch -t snap --vanilla snap.json --registered-proof "$PROOF" \
        --comm-r-old "$(comm comm_r_old)" --comm-r-new "$(comm comm_r_new)" --comm-d-new "$(comm comm_d_new)" \
        -c "$COUNT" -j "$J" --proofs-dir "snap-j$J.proofs" --timeline "snap-j$J.svg" > "snap-j$J.json" || true
      ok=0 n=0
      for proof in $(cut -f4 "snap-j$J.proofs/index.tsv" 2> /dev/null); do
        n=$((n + 1))
        "$CUZK" verify-snap "${C[@]}" --params "$PARAMS" --proof "$proof" > /dev/null 2>&1 && ok=$((ok + 1))
      done
      python3 - "snap-j$J.json" "$J" "$ok/$n" >> "$S" << 'PY'
import json, sys
d = json.load(open(sys.argv[1])); pp = d.get("per_partition_s", {})
g = lambda k: "%.2f" % d[k] if k in d else "-"
print("| %s | %d/%d | %s | %s | %.3f | %.3f | %.0f%% | %.1f / %.1f | %s |" % (
    sys.argv[2], d["completed"], d["count"], g("s_per_proof"), g("s_per_proof_steady"), pp.get("device", 0),
    pp.get("synthesis", 0), 100 * d.get("device_busy_fraction", 0), d.get("daemon_rss_bytes", 0) / 2**30,
    d.get("daemon_peak_rss_bytes", 0) / 2**30, sys.argv[3]))
PY
      tail -1 "$S"
    done
    stop_daemon
    ;;
  clean)
    rm -rf "$PARAMS" "$PARAMS.tmp"
    df -h "$WORK" | tail -1
    ;;
  *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
cat "$WORK"/summary-*.md
