#!/usr/bin/env bash
# Throughput and peak RSS of 2 KiB PoRep C2 through a local cuzk-daemon on the CPU backend, at
# concurrency 1, 2 and 4 (the PoRep rows of bench/RESULTS_daemon.md).
#
#   src/apps/cuzk-bench/bench_porep.sh BUILD_DIR OUT_DIR PARAMS_DIR [J...]
#
# PARAMS_DIR holds TEST-ONLY StackedDrg2KiBV1_1 parameters (`cuzk setup --registered-proof
# StackedDrg2KiBV1_1 --out DIR`; the ctest fixture build/fixtures/porep-params-2k is one). Four
# different sectors are sealed with `cuzk seal`; each run cycles over them (COUNT = max(2, J) proofs).
# A fresh daemon per concurrency, porep-2k preloaded before the clock starts (so peak RSS is per run
# and the key load is not in the throughput). Every proof is self-verified by the daemon and then
# checked again with `cuzk verify-porep`.
set -euo pipefail
BUILD=$(realpath "$1")
OUT=$(realpath -m "$2")
PARAMS=$(realpath "$3")
shift 3
JS=("$@")
[ ${#JS[@]} -gt 0 ] || JS=(1 2 4)
CUZK=$BUILD/src/apps/cuzk/cuzk
DAEMON=$BUILD/src/apps/cuzk-daemon/cuzk-daemon
BENCH=$BUILD/src/apps/cuzk-bench/cuzk-bench
mkdir -p "$OUT"
cd "$OUT"
SOCK=$(mktemp -u /tmp/cuzk-bench-XXXXXX).sock
DPID=""
trap '[ -n "$DPID" ] && kill -TERM $DPID 2>/dev/null; true' EXIT

C1_ARGS=()
for i in 1 2 3 4; do
  [ -f s$i/c1.json ] || "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed $i --miner-id 1000 \
    --sector-id $i --ticket "$(printf '%064x' $((0x7100 + i)))" --seed "$(printf '%064x' $((0x5e00 + i)))" --out s$i > /dev/null
  C1_ARGS+=(--c1 "$OUT/s$i/c1.json")
done
cat > porep.toml <<TOML
[daemon]
listen = "unix://$SOCK"
[memory]
total_budget = "16GiB"
[backend]
kind = "cpu"
[srs]
param_cache = "$PARAMS"
preload = ["porep-2k"]
TOML

for j in "${JS[@]}"; do
  count=$((j > 2 ? j : 2))
  tag=porep-j$j
  echo "== $tag: load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$DAEMON" --config porep.toml > "$tag.daemon.out" 2> "$tag.daemon.err" &
  DPID=$!
  for _ in $(seq 1 3600); do grep -q '^READY' "$tag.daemon.out" 2>/dev/null && break; sleep 0.5; done
  grep -o 'preloaded porep-2k in [0-9]* ms' "$tag.daemon.err" || true
  "$BENCH" -a "unix://$SOCK" batch -t porep "${C1_ARGS[@]:0:$((2 * count < 8 ? 2 * count : 8))}" -c "$count" -j "$j" \
    --timeline "$tag.svg" --proofs-dir "$tag.proofs" | tee "$tag.txt"
  "$BENCH" -a "unix://$SOCK" --json status > "$tag.status.json"
  kill -TERM $DPID; wait $DPID; DPID=""
  while IFS=$'\t' read -r idx job c1 proof; do
    "$CUZK" verify-porep --c1 "$c1" --params "$PARAMS" --proof "$proof" --miner-id 1000 > /dev/null \
      || { echo "proof $idx of $tag does not verify" >&2; exit 1; }
  done < "$tag.proofs/index.tsv"
  echo "   every proof of $tag verified by cuzk verify-porep; load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "results in $OUT"
