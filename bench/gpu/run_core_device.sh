#!/bin/bash
# One device call after a change to src/gpu: the check programs of the GPU-core build, a pass/fail
# table on stdout, full logs under $OUT (or ./gpu-out). Binaries come from $BIN (default build-gpubp,
# made by bench/gpu/build_prover.sh here and carried); when they do not run on this machine they are
# built here with the same script (J=16). Then: ctest lists the gpu-labelled tests, gpu_prover_check
# (CPU and GPU proofs byte-identical), gpu_check --quick, and the tuning reader refusing CUZK_MSM_SEG=0.
# Env: CHECK_ARGS (gpu_check, default --quick), PROVER_ARGS, TIMEOUT (per program, default 240).
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
BIN=${BIN:-build-gpubp}
T0=$(date +%s)
t() { echo "$(( $(date +%s) - T0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [ ! -x "$BIN/gpu_prover_check" ] || [ ! -x "$BIN/gpu_check" ] || ldd "$BIN/gpu_check" "$BIN/gpu_prover_check" 2>&1 | grep -q "not found"; then
  echo "== building here ($(t))"
  BIN=build-gpucore-dev
  J=16 bash bench/gpu/build_prover.sh "$BIN" > "$OUT/build.txt" 2>&1 || { tail -30 "$OUT/build.txt"; exit 1; }
  echo "built ($(t)); warnings: $(grep -c 'warning' "$OUT/build.txt")"
fi
# what ctest registers in a GPU configuration (configure only)
cmake -S . -B /tmp/cuzk-gpucore-cfg -DCUZK_GPU_CORE_ONLY=ON > "$OUT/configure.txt" 2>&1 &&
  ctest --test-dir /tmp/cuzk-gpucore-cfg -N -L '^gpu$' | tail -5
echo "($(t))"
declare -A RC
run() {  # name, then the command
  local name=$1
  shift
  timeout "${TIMEOUT:-240}" "$@" > "$OUT/$name.txt" 2>&1
  RC[$name]=$?
  echo "== $name rc=${RC[$name]} ($(t))"
  tail -4 "$OUT/$name.txt" | cut -c1-160
}
run prover_check "$BIN/gpu_prover_check" ${PROVER_ARGS:-}
run gpu_check "$BIN/gpu_check" ${CHECK_ARGS:---quick}
CUZK_MSM_SEG=0 "$BIN/gpu_check" --quick > "$OUT/seg0.txt" 2>&1
RC[seg0_refused]=$?
echo "== CUZK_MSM_SEG=0: rc=${RC[seg0_refused]}: $(head -1 "$OUT/seg0.txt")"
echo
echo "| check | result |"
echo "|---|---|"
echo "| gpu_prover_check | $([ "${RC[prover_check]}" = 0 ] && echo pass || echo "FAIL rc=${RC[prover_check]}") $(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$OUT/prover_check.txt" | tail -1) |"
echo "| gpu_check ${CHECK_ARGS:---quick} | $([ "${RC[gpu_check]}" = 0 ] && echo pass || echo "FAIL rc=${RC[gpu_check]}") $(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$OUT/gpu_check.txt" | tail -1) |"
echo "| CUZK_MSM_SEG=0 refused | $([ "${RC[seg0_refused]}" = 2 ] && echo pass || echo "FAIL rc=${RC[seg0_refused]}") |"
