#!/bin/bash
# One device call for the G1 accumulation kernel's shape: gpu_check with the default and with the
# CUZK_MSM_OCC values in $CHECK_OCCS, gpu_prover_check, then G1 MSM 2^24..2^27 for each CUZK_MSM_OCC in
# $OCCS (1..4: blocks of 128 per SM the accumulation kernel is compiled for), then the 2^27 partition.
# Prebuilt binaries in $1 (bins.tar.xz from bench/gpu/build_prover.sh). Logs under $OUT.
set -u
D=${1:-build-x}
. "$(dirname "$0")/device_common.sh"
for occ in 2 ${CHECK_OCCS:-}; do
  echo "== gpu_check CUZK_MSM_OCC=$occ"
  CUZK_MSM_OCC=$occ timeout 200 "$B/gpu_check" > "$OUT/check_occ$occ.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|passed" "$OUT/check_occ$occ.txt" | tail -4
done
echo "== gpu_prover_check"
timeout 150 "$B/gpu_prover_check" > "$OUT/prover_check.txt" 2>&1; echo "rc=$?"
grep -E "FAIL|GPU PROVER CHECK" "$OUT/prover_check.txt" | tail -4
for occ in ${OCCS:-2 3}; do
  echo "== CUZK_MSM_OCC=$occ"
  CUZK_MSM_OCC=$occ timeout 150 "$B/bench_gpu" --max-ntt 0 --max-msm 27 --max-g2 0 --no-sweep --reps 2 \
    > "$OUT/bench_occ$occ.txt" 2>&1
  grep -E "^(Fp sqr|msm 2\^2[4-7]|2\^26 profile|sum_selected)" "$OUT/bench_occ$occ.txt"
done
echo "== bench_prover 2^27"
timeout 150 "$B/bench_prover" --logs 27 --reps 3 > "$OUT/bench_prover.txt" 2>&1; echo "rc=$?"
grep -E "^\| (log m|27) |device memory" "$OUT/bench_prover.txt" | head -3
