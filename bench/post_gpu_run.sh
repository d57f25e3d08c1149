#!/usr/bin/env bash
# WindowPoSt and WinningPoSt on one GPU (issue 24), end to end, in one call per phase.
#
#   bench/post_gpu_run.sh PACK_DIR WORK_DIR PHASE...
#
#   PACK_DIR  bin/{cuzk,cuzk-daemon,cuzk-bench} + lib/ (bench/pack_for_gpu_host.sh), CUDA build
#   WORK_DIR  keys, vanilla proofs, logs, proofs and summary-<phase>.md land here (reused)
#   PHASE     window   32 GiB WindowPoSt partition of 2,349 SYNTHETIC TEST DATA sectors: TEST-ONLY
#                      key (GPU setup; its section lengths and file size), vanilla proofs (`cuzk
#                      gen-vanilla --synthetic`), CLI_RUNS x `cuzk prove-post --backend cuda`
#                      (synthesis / GPU / self-check split), then the daemon (key resident): RUNS
#                      window-post proofs through cuzk-bench, each verified with the .vk (`cuzk
#                      verify-post`), the daemon's peak RSS
#             winning  32 GiB WinningPoSt: TEST-ONLY winning key and the 32 GiB PoRep key, one
#                      SYNTHETIC sector's vanilla proof, 2 PoRep C1s (`cuzk gen-c1`); one daemon with
#                      both keys preloaded: RUNS WinningPoSts idle, then RUNS WinningPoSts submitted
#                      one after another while a J=2 PoRep batch (POREP_COUNT proofs) runs; latency
#                      p50 / p99 / max, the PoRep batch's s/proof beside it; every proof verified
#             clean    removes the keys (the disk holds one 32 GiB family's key at a time)
#
# Environment: SEED (toxic waste, default 7), RUNS (default 20), POREP_COUNT (default 4),
# RANDOMNESS (hex, byte 31 < 0x40), EXTRA_TOML (appended to the daemon config), GPUS_TOML (lines of
# its [gpus] table, e.g. 'urgent_lane = "cpu"'),
# SIZE (32GiB; 2KiB for a smoke test of the script), BACKEND (cuda; cpu for the smoke test),
# LOAD_WAIT (seconds between the PoRep batch's start and the WinningPoSts, default 20), CLI_RUNS
# (default 2; 0 at 32 GiB on a 128 GiB host whose key lives on a tmpfs: the CLI decodes the key's
# 65 GB of bases on the host, the daemon with a GPU backend never does).
set -euo pipefail
PACK=$(realpath "$1")
WORK=$(realpath -m "$2")
shift 2
PHASES=("$@")
SEED=${SEED:-7}
RUNS=${RUNS:-20}
POREP_COUNT=${POREP_COUNT:-4}
RANDOMNESS=${RANDOMNESS:-0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a}
EXTRA_TOML=${EXTRA_TOML:-}
GPUS_TOML=${GPUS_TOML:-}
SIZE=${SIZE:-32GiB}
BACKEND=${BACKEND:-cuda}
LOAD_WAIT=${LOAD_WAIT:-20}
CLI_RUNS=${CLI_RUNS:-2}
WINDOW=StackedDrgWindow${SIZE}V1_1
WINNING=StackedDrgWinning${SIZE}V1
POREP=StackedDrg${SIZE}V1_1
case $SIZE in
  32GiB) ID=32g WSECTORS=2349 ;; 64GiB) ID=64g WSECTORS=2300 ;; 2KiB) ID=2k WSECTORS=2 ;;
  *) echo "SIZE must be 2KiB, 32GiB or 64GiB" >&2; exit 2 ;;
esac

source "$(dirname "$(realpath "$0")")/run_lib.sh"

key() {  # key PROOF DIR
  if ls "$2"/*.vk > /dev/null 2>&1; then
    echo "   present: $(ls "$2"/*.params)"
    return
  fi
  rm -rf "$2.tmp"
  timed "setup-$1" "$CUZK" setup --registered-proof "$1" --out "$2.tmp" --seed "$SEED" --progress 0 2>&1 | tail -12
  mv "$2.tmp" "$2"
  ls -l "$2"/*.params | tee -a "$S"
}

start_post_daemon() {  # start_post_daemon PARAMS_DIR PRELOAD...
  local params=$1
  shift
  local pre=""
  for p in "$@"; do pre+="${pre:+, }\"$p\""; done
  cat > cuzk.toml << TOML
[daemon]
listen = "unix://$WORK/cuzk.sock"
[backend]
kind = "$BACKEND"
[gpus]
gpu_workers_per_device = 2
$GPUS_TOML
[pipeline]
synthesis_concurrency = 2
[srs]
param_cache = "$params"
preload = [$pre]
$EXTRA_TOML
TOML
  start_daemon cuzk.toml "$*"
}
verify_dir() {  # verify_dir PROOFS_DIR PROOF_NAME VANILLA PARAMS -> "ok/total"
  local ok=0 n=0
  for proof in $(cut -f4 "$1/index.tsv"); do
    n=$((n + 1))
    "$CUZK" verify-post --registered-proof "$2" --miner-id 1000 --randomness "$RANDOMNESS" --vanilla "$3" \
      --params "$4" --proof "$proof" > /dev/null 2>&1 && ok=$((ok + 1))
  done
  echo "$ok/$n"
}

for phase in "${PHASES[@]}"; do
  S=$WORK/summary-$phase.md
  echo "# $phase ($(date -u +%F)); host $(nproc) cores; GPU: $(gpu_line)" > "$S"
  case $phase in
  window)
    step "TEST-ONLY key $WINDOW"
    key "$WINDOW" "$WORK/params-window"
    step "$WSECTORS SYNTHETIC TEST DATA sectors' vanilla proofs"
    [ -f wpost.json ] || timed gen-vanilla "$CUZK" gen-vanilla window-post --registered-proof "$WINDOW" --synthetic "$WSECTORS" \
      --miner-id 1000 --randomness "$RANDOMNESS" -o wpost.json
    ls -la wpost.json
    step "cuzk prove-post --backend $BACKEND (key load included), $CLI_RUNS times"
    for i in $(seq 1 "$CLI_RUNS"); do
      timed "prove-post-$i" "$CUZK" prove-post --registered-proof "$WINDOW" --miner-id 1000 --randomness "$RANDOMNESS" \
        --vanilla wpost.json --params "$WORK/params-window" --out "wpost-cli-$i.bin" --backend "$BACKEND" 2>&1 | tail -6 | tee -a "$S"
      "$CUZK" verify-post --registered-proof "$WINDOW" --miner-id 1000 --randomness "$RANDOMNESS" --vanilla wpost.json \
        --params "$WORK/params-window" --proof "wpost-cli-$i.bin" | tee -a "$S"
    done
    step "daemon: $RUNS window-post proofs, one at a time, key resident"
    start_post_daemon "$WORK/params-window" "wpost-$ID"
    rm -rf wpost.proofs
    "$BENCH" -a "unix://$WORK/cuzk.sock" --json batch -t wpost --vanilla wpost.json --randomness "$RANDOMNESS" \
      --registered-proof "$WINDOW" -c "$RUNS" -j 1 --proofs-dir wpost.proofs > wpost-batch.json
    read -r n p50 p99 max avg <<< "$(lat_stats wpost-batch.json)"
    ver=$(verify_dir wpost.proofs "$WINDOW" wpost.json "$WORK/params-window")
    hwm=$(awk '/^VmHWM/ {printf "%.2f GB", $2 / 1e6}' "/proc/$DPID/status")
    stop_daemon
    {
      echo
      echo "| proofs | p50 s | p99 s | max s | avg s | verified |"
      echo "|---|---|---|---|---|---|"
      echo "| $n | $p50 | $p99 | $max | $avg | $ver |"
      echo "daemon peak RSS $hwm"
      python3 -c "import json;d=json.load(open('wpost-batch.json'));print('per partition', d.get('per_partition_s'))"
    } | tee -a "$S"
    ;;
  winning)
    step "TEST-ONLY keys $WINNING and $POREP (one params dir)"
    key "$WINNING" "$WORK/params-winning"
    if ! ls "$WORK"/params-winning/v28-stacked-* > /dev/null 2>&1; then
      timed "setup-$POREP" "$CUZK" setup --registered-proof "$POREP" --out "$WORK/params-winning" --seed "$SEED" 2>&1 | tail -3
    fi
    step "inputs: 1 SYNTHETIC sector's winning vanilla proof, 2 SYNTHETIC C1s"
    [ -f winning.json ] || "$CUZK" gen-vanilla winning-post --registered-proof "$WINNING" --synthetic 1 --first-sector-id 7 \
      --miner-id 1000 --randomness "$RANDOMNESS" -o winning.json
    mkdir -p c1
    for i in 1 2; do
      [ -f "c1/s$i.json" ] || "$CUZK" gen-c1 --registered-proof "$POREP" --sector-id "$i" --miner-id 1000 --rng-seed "$i" \
        --out "c1/s$i.json"
    done
    step "cuzk prove-post --backend cpu, idle"
    "$CUZK" prove-post --registered-proof "$WINNING" --miner-id 1000 --randomness "$RANDOMNESS" --vanilla winning.json \
      --params "$WORK/params-winning" --out winning-cpu.bin --backend cpu 2>&1 | tail -2 | tee -a "$S"
    start_post_daemon "$WORK/params-winning" "porep-$ID" "winning-$ID"
    step "idle: $RUNS WinningPoSts one after another"
    rm -rf win-idle.proofs win-load.proofs porep.proofs
    "$BENCH" -a "unix://$WORK/cuzk.sock" --json batch -t winning --vanilla winning.json --randomness "$RANDOMNESS" \
      --registered-proof "$WINNING" -c "$RUNS" -j 1 --proofs-dir win-idle.proofs > win-idle.json
    step "under load: a J=2 PoRep batch of $POREP_COUNT, then $RUNS WinningPoSts one after another"
    "$BENCH" -a "unix://$WORK/cuzk.sock" batch -t porep --c1 c1/s1.json --c1 c1/s2.json -c "$POREP_COUNT" -j 2 \
      --proofs-dir porep.proofs --timeline porep.svg > porep-batch.txt &
    PB=$!
    sleep "$LOAD_WAIT"  # both PoRep jobs past their first partitions: the GPU is saturated
    "$BENCH" -a "unix://$WORK/cuzk.sock" --json batch -t winning --vanilla winning.json --randomness "$RANDOMNESS" \
      --registered-proof "$WINNING" -c "$RUNS" -j 1 --proofs-dir win-load.proofs > win-load.json
    wait "$PB"
    read -r n1 a50 a99 amax aavg <<< "$(lat_stats win-idle.json)"
    read -r n2 b50 b99 bmax bavg <<< "$(lat_stats win-load.json)"
    v1=$(verify_dir win-idle.proofs "$WINNING" winning.json "$WORK/params-winning")
    v2=$(verify_dir win-load.proofs "$WINNING" winning.json "$WORK/params-winning")
    pbad=0
    while IFS=$'\t' read -r _i _j c1 proof; do
      "$CUZK" verify-porep --c1 "$c1" --params "$WORK/params-winning" --proof "$proof" --miner-id 1000 > /dev/null 2>&1 \
        || pbad=$((pbad + 1))
    done < porep.proofs/index.tsv
    stop_daemon
    {
      echo
      echo "| WinningPoSt $SIZE | proofs | p50 s | p99 s | max s | avg s | verified |"
      echo "|---|---|---|---|---|---|---|"
      echo "| idle | $n1 | $a50 | $a99 | $amax | $aavg | $v1 |"
      echo "| during a J=2 PoRep batch | $n2 | $b50 | $b99 | $bmax | $bavg | $v2 |"
      echo
      echo "PoRep batch beside it: $(grep -E '^(completed|throughput|steady state)' porep-batch.txt | tr '\n' ' ')" \
        "; PoRep proofs failing verification: $pbad"
    } | tee -a "$S"
    ;;
  clean)
    rm -rf "$WORK"/params-window "$WORK"/params-winning
    df -h "$WORK" | tail -1
    ;;
  *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
