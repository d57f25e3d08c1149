#!/bin/bash
# One device call: (build if needed) -> gpu_check -> bench_gpu, logs under $OUT (or ./gpu-out).
# Prebuilt binaries are taken from build-gpubp/ (bench/gpu/build_prover.sh) when they run on this
# machine; otherwise the programs are built here by the same script (CMake's GPU-core build).
# Usage: bash bench/gpu/run_device.sh [check-args...] ; env BENCH_ARGS for bench_gpu.
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
BIN=${BIN:-build-gpubp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
NEED_BUILD=0
if [ ! -x "$BIN/gpu_check" ] || [ ! -x "$BIN/bench_gpu" ] || ldd "$BIN/gpu_check" 2>&1 | grep -q "not found"; then
  NEED_BUILD=1
fi
if [ "${FORCE_BUILD:-0}" = 1 ] || [ "$NEED_BUILD" = 1 ]; then
  echo "building here (CMake, GPU core)"
  BIN=build-dev
  J=${J:-16} bash bench/gpu/build_prover.sh $BIN > "$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
fi
echo "== gpu_check"
timeout ${CHECK_TIMEOUT:-300} "$BIN/gpu_check" "$@" > "$OUT/check.txt" 2>&1
echo "gpu_check rc=$?"
grep -E "FAIL|exception|mismatch|GPU CHECK|passed" "$OUT/check.txt" | head -40
echo "== bench_gpu"
timeout ${BENCH_TIMEOUT:-300} "$BIN/bench_gpu" ${BENCH_ARGS:-} > "$OUT/bench.txt" 2>&1
echo "bench_gpu rc=$?"
grep -vE "^(ntt 2\^|msm 2\^|sweep|variant)" "$OUT/bench.txt" | tail -45
echo "== SASS census of the Fp multiplication (mul_rate_kernel<Fp>)"
cuobjdump -sass "$BIN/bench_gpu" 2>/dev/null | awk '/Function : .*mul_rate_kernel.*FpParams/{f=1;next} /Function :/{f=0} f' |
  grep -oE "(IMAD|IADD3|SEL|LOP3|ISETP|IMAD\.[A-Z.0-9]+)\b" | sort | uniq -c | sort -rn | head -8
