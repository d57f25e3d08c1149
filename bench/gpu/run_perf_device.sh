#!/bin/bash
# One device call for a GPU performance change: prebuilt binaries (bins.tar.xz in $1, default
# build-wtgpu, made by `bash bench/gpu/build_prover.sh` and packed with tar -cJf) -> gpu_check ->
# gpu_prover_check -> bench_gpu (G1 MSM up to 2^27, 0/1-path and G2-window variants) -> the best
# variants picked from that log -> gpu_prover_check again with them -> bench_prover at 2^27 with
# the defaults and with the picked variants (SKIP_VAR=1: defaults only). Logs under $OUT (or ./gpu-out); a short table at the end.
# The device machine receives the session's checkout, not a helper's worktree: put the folder (an
# ignored build* folder holding bins.tar.xz and this script) there and name it in the call's carry.
set -u
D=${1:-build-wtgpu}
. "$(dirname "$0")/device_common.sh"
T0=$(date +%s)
echo "== gpu_check"
timeout ${CHECK_TIMEOUT:-200} "$B/gpu_check" > "$OUT/check.txt" 2>&1; echo "gpu_check rc=$?"
grep -E "FAIL|passed|GPU CHECK" "$OUT/check.txt" | tail -6
echo "== gpu_prover_check (defaults)"
timeout 150 "$B/gpu_prover_check" > "$OUT/prover_check.txt" 2>&1; echo "gpu_prover_check rc=$?"
grep -E "FAIL|GPU PROVER CHECK" "$OUT/prover_check.txt" | tail -6
echo "== bench_gpu ($(( $(date +%s) - T0 )) s)"
timeout 200 "$B/bench_gpu" --max-ntt 0 --max-msm 27 --max-g2 22 --no-sweep --reps 3 > "$OUT/bench.txt" 2>&1
echo "bench_gpu rc=$?"
grep -E "^(Fp mul|msm 2|2\^26 profile|sum_selected|variant|g2 msm)" "$OUT/bench.txt"
if [ "${SKIP_VAR:-0}" = 1 ]; then  # defaults only
  echo "== bench_prover 2^27 default ($(( $(date +%s) - T0 )) s)"
  timeout 150 "$B/bench_prover" --logs 27 --reps 3 > "$OUT/bench_prover_default.txt" 2>&1; echo "bench_prover rc=$?"
  grep -E "^\| (log m|27) " "$OUT/bench_prover_default.txt" | head -2
  echo "== done ($(( $(date +%s) - T0 )) s)"
  exit 0
fi
# best 0/1-path variant (occ, per) and best G2 window cap at n = 3.3M (the 2^27 B2 tail)
SEL=$(grep "variant sum_selected occ=" "$OUT/bench.txt" | sed 's/.*occ=\([0-9]*\) per=\([0-9]*\): \([0-9.]*\) ms/\3 \1 \2/' | sort -n | head -1)
CMAX=$(grep "variant g2 msm n=3300000" "$OUT/bench.txt" | sed 's/.*cmax=\([0-9]*\): \([0-9.]*\) ms.*/\2 \1/' | sort -n | head -1 | cut -d' ' -f2)
SELBASE=$(grep "^sum_selected" "$OUT/bench.txt" | sed 's/.*: \([0-9.]*\) ms/\1/')
OCC=1; PER=64
if [ -n "$SEL" ] && [ -n "$SELBASE" ] && awk "BEGIN{exit !($(echo $SEL | cut -d' ' -f1) < 0.98 * $SELBASE)}"; then
  OCC=$(echo $SEL | cut -d' ' -f2); PER=$(echo $SEL | cut -d' ' -f3)
fi
CMAX=${CMAX:-17}
VAR="CUZK_SEL_OCC=$OCC CUZK_SEL_PER=$PER CUZK_MSM_G2_CMAX=$CMAX"
echo "picked: $VAR"
echo "== gpu_prover_check ($VAR) ($(( $(date +%s) - T0 )) s)"
env $VAR timeout 150 "$B/gpu_prover_check" > "$OUT/prover_check_var.txt" 2>&1; echo "gpu_prover_check rc=$?"
grep -E "FAIL|GPU PROVER CHECK" "$OUT/prover_check_var.txt" | tail -6
for v in default var; do
  echo "== bench_prover 2^27 $v ($(( $(date +%s) - T0 )) s)"
  if [ $v = default ]; then E=""; else E="$VAR"; fi
  if [ $v = var ] && [ "$VAR" = "CUZK_SEL_OCC=1 CUZK_SEL_PER=64 CUZK_MSM_G2_CMAX=17" ]; then echo "(same as default)"; continue; fi
  env $E timeout 150 "$B/bench_prover" --logs 27 --reps 3 > "$OUT/bench_prover_$v.txt" 2>&1; echo "bench_prover rc=$?"
  grep -E "^\| (log m|27) " "$OUT/bench_prover_$v.txt" | head -2
done
echo "== done ($(( $(date +%s) - T0 )) s)"
