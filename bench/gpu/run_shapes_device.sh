#!/bin/bash
# One device call for kernel-shape sweeps through the CUZK_* tuning overrides: the NTT pass kernel
# (CUZK_NTT_SHAPE, kNttShapes in src/gpu/ntt.cu; CUZK_NTT_ELEMS) and G1 MSM settings (e.g.
# CUZK_MSM_OCC). Correctness first: gpu_check with the defaults (unless $SKIP_DEFAULT_CHECK) and with
# $CHECK_ENV (full), then gpu_check --quick for each NTT shape in $QUICK_SHAPES; then bench_gpu's NTT
# table (every shape x elements per block at 2^24..2^27, up to 2^$MAXNTT; MAXNTT=0 skips it) and the
# G1 MSM once per setting in $MSM_ENVS (space-separated settings, ';' between the variables of one).
# With $SASS_PAT: first the SASS opcode histogram of bench_gpu's kernels matching it (sass_counts.sh).
# Prebuilt binaries in $1 (bins.tar.xz from bench/gpu/build_prover.sh). Logs under $OUT.
set -u
D=${1:-build-x}
. "$(dirname "$0")/device_common.sh"
if [ -n "${SASS_PAT:-}" ]; then
  echo "== SASS $SASS_PAT $(t)"
  bash "$(dirname "$0")/sass_counts.sh" "$B/bench_gpu" "$SASS_PAT" > "$OUT/sass.txt" 2>&1
  grep -A14 -E "^--" "$OUT/sass.txt" | cut -c1-160 | head -80
fi
if [ -z "${SKIP_DEFAULT_CHECK:-}" ]; then
  echo "== gpu_check defaults $(t)"
  timeout 200 "$B/gpu_check" > "$OUT/check.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|passed" "$OUT/check.txt" | tail -4
fi
echo "== gpu_check ${CHECK_ENV:=CUZK_NTT_SHAPE=1} $(t)"
env $CHECK_ENV timeout 200 "$B/gpu_check" > "$OUT/check_env.txt" 2>&1; echo "rc=$?"
grep -E "FAIL|passed" "$OUT/check_env.txt" | tail -4
for sh in ${QUICK_SHAPES:-}; do
  echo "== gpu_check --quick CUZK_NTT_SHAPE=$sh $(t)"
  CUZK_NTT_SHAPE=$sh timeout 100 "$B/gpu_check" --quick > "$OUT/check_shape$sh.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|passed" "$OUT/check_shape$sh.txt" | tail -3
done
if [ "${MAXNTT:-27}" -gt 0 ]; then
  echo "== bench_gpu NTT $(t)"
  timeout 200 "$B/bench_gpu" --max-ntt ${MAXNTT:-27} --max-msm 0 --max-g2 0 --no-sweep --reps 3 > "$OUT/bench_ntt.txt" 2>&1
  echo "rc=$?"
  grep -E "^(Fr mul|ntt 2\^2[4-8])" "$OUT/bench_ntt.txt"
fi
i=0
for envs in ${MSM_ENVS:-}; do
  i=$((i + 1))
  echo "== bench_gpu G1 MSM with ${envs//;/ } $(t)"
  env ${envs//;/ } timeout 150 "$B/bench_gpu" --max-ntt 0 --max-msm ${MAXMSM:-27} --max-g2 0 --no-sweep --reps 2 \
    > "$OUT/bench_msm$i.txt" 2>&1; echo "rc=$?"
  grep -E "^(msm 2\^2[4-7]|2\^26 profile|sum_selected)" "$OUT/bench_msm$i.txt"
done
echo "== done $(t)"
