#!/bin/bash
# Dense witnesses on the GPU (issue 39 item 1): full MSMs in pieces that fit the memory left.
#   STEP=check (first call): builds the GPU-core programs here (J=16, sm_90a) into build-dense-dev
#     (kept between calls on a warm machine), then gpu_prover_check (every case; the new one proves
#     dense witnesses in pieces, capped and under a memory limit, byte-identical to the CPU backend)
#     and gpu_check --quick (the MSMs, whose bases may now start at an offset).
#   STEP=bench (builds too on a fresh machine): bench_prover on synthetic PoRep-shaped partitions with
#     a dense witness (--random-permille 1000) at 2^24 and 2^27, key resident, REPS proofs (default 1), --check-pieces (the five sums
#     with the MSMs cut elsewhere); 2^27 again under --memory-limit-gib $LIMIT_GIB when set; then the PoRep witness
#     (10 % not 0/1) at 2^27, whose MSMs fit in one piece as before. LIMIT_ARGS adds arguments to the
#     limited run (e.g. --streamed: a 24 GiB card cannot hold the 48 GB key).
#   STEP=all: gpu_prover_check, then the bench step, in one call. --cancel-after-ms CANCEL_MS (default
#     300) times a cancelled dense proof: from the cancel to start()'s return (issue 41 item 5).
# Full logs under $OUT (or ./gpu-out); a short table on stdout.
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
B=build-dense-dev
T0=$(date +%s)
t() { echo "$(( $(date +%s) - T0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [ ! -x "$B/gpu_prover_check" ] || [ ! -x "$B/bench_prover" ]; then
  echo "== building ($(t))"
  J=16 TARGETS="${TARGETS:-gpu_prover_check gpu_check bench_prover}" bash bench/gpu/build_prover.sh "$B" > "$OUT/build.txt" 2>&1 ||
    { tail -30 "$OUT/build.txt"; exit 1; }
  echo "built ($(t)); warnings: $(grep -c 'warning' "$OUT/build.txt")"
fi
run() {  # name, timeout, then the command
  local name=$1 to=$2
  shift 2
  timeout "$to" "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "== $name rc=$rc ($(t))"
  grep -E "PASS|FAIL|passed|pieces|2\^[0-9]+:|device:|ancel" "$OUT/$name.txt" | cut -c1-400 | tail -${TAILN:-12}
}
case "${STEP:-check}" in
  check | all)
    TAILN=40 run prover_check 420 "$B/gpu_prover_check" ${PROVER_ARGS:-}
    [ "${STEP:-check}" = check ] && run gpu_check 200 "$B/gpu_check" --quick
    ;;&
  bench | all)
    run dense 240 "$B/bench_prover" --logs ${LOGS:-24,27} --nosplit 0 --reps ${REPS:-1} --random-permille 1000 --check-pieces \
      --cancel-after-ms ${CANCEL_MS:-300}
    [ -n "${LIMIT_GIB:-}" ] && run dense_limit 200 "$B/bench_prover" --logs 27 --nosplit 0 --reps ${REPS:-1} \
      --random-permille 1000 --memory-limit-gib "$LIMIT_GIB" --check-pieces ${LIMIT_ARGS:-}
    [ -z "${NO_POREP:-}" ] && run porep 100 "$B/bench_prover" --logs 27 --nosplit 0 --reps ${REPS:-1}
    ;;
esac
