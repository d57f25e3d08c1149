#!/bin/bash
# One device call for the batch-affine MSM accumulation (msm_affine.cuh): prebuilt binaries
# (bins.tar.xz in $1, made by bench/gpu/build_prover.sh) -> gpu_check with every MSM on the affine
# path (CUZK_MSM_AFFINE_LOG=1) -> gpu_prover_check (that and the defaults) -> bench_gpu with the
# defaults (G1 2^20..2^27 on XYZZ, G2 2^20..2^24 affine) -> G1 tuning variants (G1_VARIANTS) -> G2
# tuning variants (VARIANTS) -> bench_prover 2^27 partition. Logs under $OUT; the lines
# that matter on stdout.
set -u
D=${1:-build-x}
. "$(dirname "$0")/device_common.sh"
echo "== gpu_check, every MSM on the affine path $(t)"
CUZK_MSM_AFFINE_LOG=1 timeout 200 "$B/gpu_check" > "$OUT/check_affine.txt" 2>&1; echo "rc=$?"
grep -E "FAIL|passed" "$OUT/check_affine.txt" | tail -8
for a in 1 default; do
  if [ $a = default ]; then E=""; else E="CUZK_MSM_AFFINE_LOG=$a"; fi
  echo "== gpu_prover_check affine_log=$a $(t)"
  env $E timeout 150 "$B/gpu_prover_check" > "$OUT/prover_check_$a.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|GPU PROVER CHECK" "$OUT/prover_check_$a.txt" | tail -6
done
echo "== bench_gpu defaults $(t)"
timeout 240 "$B/bench_gpu" --max-ntt 0 --max-msm ${MAXMSM:-27} --max-g2 ${MAXG2:-24} --no-sweep --reps 3 > "$OUT/bench_default.txt" 2>&1
echo "rc=$?"
grep -E "^(msm 2|2\^26 profile|sum_selected|g2 msm 2|g2 2)" "$OUT/bench_default.txt"
for v in ${G1_VARIANTS:-CUZK_MSM_RED_CHUNK=16 CUZK_MSM_RED_CHUNK=64}; do
  echo "== bench_gpu G1 $v $(t)"
  env $v timeout 150 "$B/bench_gpu" --max-ntt 0 --max-msm 27 --max-g2 0 --no-sweep --reps 2 > "$OUT/bench_g1_${v#*=}.txt" 2>&1
  grep -E "^(msm 2\^2[4-7]|2\^26 profile)" "$OUT/bench_g1_${v#*=}.txt"
done
i=0
for v in ${VARIANTS:-CUZK_MSM_AFF_PROFILE=1 CUZK_MSM_RED_CHUNK=16 CUZK_MSM_RED_CHUNK=8 CUZK_MSM_AFF_PER=32}; do
  i=$((i + 1))
  echo "== bench_gpu G2 $v $(t)"
  env $v timeout 120 "$B/bench_gpu" --max-ntt 0 --max-msm 0 --max-g2 24 --no-sweep --reps 2 > "$OUT/bench_g2_var$i.txt" 2>&1
  grep -E "^(g2 msm 2\^2[2-4]|g2 2)|phases \(n=16777216" "$OUT/bench_g2_var$i.txt" | tail -5
done
echo "== bench_prover 2^27 $(t)"
timeout 150 "$B/bench_prover" --logs 27 --reps 3 > "$OUT/bench_prover.txt" 2>&1; echo "rc=$?"
grep -E "^\| (log m|27) |device memory" "$OUT/bench_prover.txt" | head -4
echo "== done $(t)"
