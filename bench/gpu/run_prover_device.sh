#!/bin/bash
# One device call for the Groth16 GPU prover: gpu_prover_check (CPU vs GPU proofs) then bench_prover,
# full logs under $OUT (or ./gpu-out). Binaries come from $BIN (default build-gpubp, made here by
# bench/gpu/build_prover.sh and carried); if they do not run on this machine they are rebuilt here.
# Env: CHECK_ARGS, BENCH_ARGS, CHECK_TIMEOUT, BENCH_TIMEOUT, SKIP_CHECK=1, SKIP_BENCH=1.
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
BIN=${BIN:-build-gpubp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,memory.used --format=csv,noheader
nproc
if [ ! -x "$BIN/gpu_prover_check" ] || ldd "$BIN/gpu_prover_check" 2>&1 | grep -q "not found"; then
  echo "building here"
  J=${J:-16} bash bench/gpu/build_prover.sh build-gpubp-dev > "$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
  BIN=build-gpubp-dev
fi
if [ "${SKIP_CHECK:-0}" != 1 ]; then
  echo "== gpu_prover_check ${CHECK_ARGS:-}"
  timeout ${CHECK_TIMEOUT:-300} "$BIN/gpu_prover_check" ${CHECK_ARGS:-} > "$OUT/prover_check.txt" 2>&1
  echo "gpu_prover_check rc=$?"
  cut -c1-150 "$OUT/prover_check.txt" | tail -34
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo "== bench_prover ${BENCH_ARGS:-}"
  timeout ${BENCH_TIMEOUT:-400} "$BIN/bench_prover" ${BENCH_ARGS:-} > "$OUT/bench_prover.txt" 2>&1
  echo "bench_prover rc=$?"
  grep -v " run [0-9]" "$OUT/bench_prover.txt" | tail -32
fi
