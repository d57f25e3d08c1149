#!/bin/bash
# One device call for field-arithmetic changes (field.cuh): prebuilt binaries (bins.tar.xz in $1,
# made by bench/gpu/build_prover.sh) -> SASS opcode counts of the field-rate kernels and the
# registers of the MSM kernels -> gpu_check (defaults, then every MSM on the affine path) ->
# gpu_prover_check -> bench_gpu (field rates, NTT, G1 2^20..2^27, G2 2^20..2^24) -> bench_prover
# partitions of 2^$BENCH_LOGS (default 27; e.g. BENCH_LOGS=22,24,27), then, with $PROVER_ARGS2, once
# more with those arguments (e.g. "--logs 27 --random-permille 13"). Logs under $OUT; the lines that
# matter on stdout.
set -u
D=${1:-build-x}
. "$(dirname "$0")/device_common.sh"
echo "== SASS $(t)"
bash "$(dirname "$0")/sass_counts.sh" "$B/bench_gpu" 'rate_kernel' > "$OUT/sass_rates.txt" 2>&1
grep -E "^--|IMAD|REG" "$OUT/sass_rates.txt" | head -60
bash "$(dirname "$0")/sass_counts.sh" "$B/bench_gpu" 'accumulate|affine|reduce|sum_selected|ntt_pass' 2>&1 |
  grep REG > "$OUT/regs.txt"
cut -c1-200 "$OUT/regs.txt" | sed -E 's/Function _Z[0-9]+//' | head -30
echo "== gpu_check $(t)"
timeout 200 "$B/gpu_check" > "$OUT/check.txt" 2>&1; echo "rc=$?"
grep -E "FAIL|passed" "$OUT/check.txt" | tail -6
echo "== gpu_check, every MSM affine $(t)"
CUZK_MSM_AFFINE_LOG=1 timeout 200 "$B/gpu_check" > "$OUT/check_affine.txt" 2>&1; echo "rc=$?"
grep -E "FAIL|passed" "$OUT/check_affine.txt" | tail -6
echo "== gpu_prover_check $(t)"
timeout 150 "$B/gpu_prover_check" > "$OUT/prover_check.txt" 2>&1; echo "rc=$?"
grep -E "FAIL|GPU PROVER CHECK" "$OUT/prover_check.txt" | tail -6
echo "== bench_gpu $(t)"
timeout 300 "$B/bench_gpu" --max-ntt ${MAXNTT:-27} --max-msm ${MAXMSM:-27} --max-g2 ${MAXG2:-24} --no-sweep --reps 3 \
  > "$OUT/bench.txt" 2>&1; echo "rc=$?"
grep -E "^(Fp |Fp sqr|Montgomery|NTT|2\^2[0-8] |msm 2|sum_selected|g2 msm 2|g2 2)" "$OUT/bench.txt"
sed -n '/==== cuzk GPU results/,$p' "$OUT/bench.txt" | head -60
echo "== bench_prover ${BENCH_LOGS:=27} $(t)"
timeout 200 "$B/bench_prover" --logs "$BENCH_LOGS" --reps 3 > "$OUT/bench_prover.txt" 2>&1; echo "rc=$?"
grep -E "^\| (log m|2[0-9]) |device memory" "$OUT/bench_prover.txt" | head -12
if [ -n "${PROVER_ARGS2:-}" ]; then
  echo "== bench_prover $PROVER_ARGS2 $(t)"
  timeout 150 "$B/bench_prover" $PROVER_ARGS2 --reps 3 > "$OUT/bench_prover2.txt" 2>&1; echo "rc=$?"
  grep -E "^\| (log m|2[0-9]) " "$OUT/bench_prover2.txt" | head -6
fi
echo "== done $(t)"
