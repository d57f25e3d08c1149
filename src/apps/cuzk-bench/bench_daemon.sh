#!/usr/bin/env bash
# Throughput and peak RSS of cuzk-bench batch against a local cuzk-daemon on the CPU backend, for
# generic Groth16 circuits at concurrency 1, 2 and 4 (the numbers in bench/RESULTS_daemon.md).
#
#   src/apps/cuzk-bench/bench_daemon.sh BUILD_DIR OUT_DIR [ROUNDS]
#
# ROUNDS (default 2) repeats the j = 1, 2, 4 sequence, interleaved, so that load from other
# processes on a shared machine shows up as spread between rounds rather than as a trend.
# Circuits: the snarkjs fixture "mulchain" (200 constraints: the per-proof overhead floor) and
# squaring chains of 2^14 and 2^16 constraints made by `cuzk-bench gen-circuit` (TEST-ONLY keys).
# A fresh daemon per circuit and concurrency (so peak RSS is per run); the key is preloaded first.
set -euo pipefail
BUILD=$(realpath "$1")
OUT=$(realpath -m "$2")
ROUNDS=${3:-2}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DAEMON=$BUILD/src/apps/cuzk-daemon/cuzk-daemon
BENCH=$BUILD/src/apps/cuzk-bench/cuzk-bench
mkdir -p "$OUT"
cd "$OUT"
SOCK=$(mktemp -u /tmp/cuzk-bench-XXXXXX).sock
DPID=""
trap '[ -n "$DPID" ] && kill -TERM $DPID 2>/dev/null; true' EXIT

for n in 16384 65536; do
  [ -f gen-$n/chain.zkey ] || "$BENCH" gen-circuit --constraints $n --out gen-$n --id chain
done

run_circuit() {  # $1 = label, $2 = zkey, $3 = wtns, $4 = count; a fresh daemon per concurrency
  cat > "$1.toml" <<TOML
[daemon]
listen = "unix://$SOCK"
[memory]
total_budget = "8GiB"
[[srs.circuits]]
id = "$1"
zkey = "$2"
preload = true
TOML
  for r in $(seq 1 "$ROUNDS"); do
    for j in 1 2 4; do
      local tag=$1-j$j-r$r
      "$DAEMON" --config "$1.toml" > "$tag.daemon.out" 2> "$tag.daemon.err" &
      DPID=$!
      for _ in $(seq 1 400); do grep -q '^READY' "$tag.daemon.out" 2>/dev/null && break; sleep 0.05; done
      "$BENCH" -a "unix://$SOCK" batch -t generic --circuit-id "$1" --wtns "$3" -c "$4" -j $j \
        --timeline "$tag.svg" | tee "$tag.txt"
      "$BENCH" -a "unix://$SOCK" --json status > "$tag.status.json"
      kill -TERM $DPID; wait $DPID; DPID=""
    done
  done
}

run_circuit mulchain "$ROOT/tests/fixtures/snarkjs/mulchain/mulchain.zkey" "$ROOT/tests/fixtures/snarkjs/mulchain/witness.wtns" 40
run_circuit chain16k "$OUT/gen-16384/chain.zkey" "$OUT/gen-16384/chain.wtns" 12
run_circuit chain64k "$OUT/gen-65536/chain.zkey" "$OUT/gen-65536/chain.wtns" 6
echo "results in $OUT"
