#!/bin/bash
# One device call that compares tuning switches of one build: prebuilt binaries ($1/bins.tar.xz, made
# by bench/gpu/build_prover.sh) -> gpu_check and gpu_prover_check (unless NOCHECK=1) -> bench_gpu
# $BENCH_ARGS (default: NTT 2^20..2^28 only, 5 repetitions) once per further argument LABEL="VAR=VALUE
# [VAR=VALUE ...]" (the environment of that run; LABEL=base with nothing after '=' for the defaults),
# in the order given, then the same list again in reverse (drift between runs shows as a difference
# between the two passes). Logs under $OUT as <label>_<pass>_bench.txt; the NTT, MSM and MSM-profile
# lines on stdout.
set -u
D=${1:-build-x}
shift
. "$(dirname "$0")/device_common.sh"
BENCH_ARGS=${BENCH_ARGS:---max-ntt 28 --max-msm 0 --max-g2 0 --no-sweep --reps 5}
if [ "${NOCHECK:-0}" != 1 ]; then
  echo "== gpu_check $(t)"
  timeout 200 "$B/gpu_check" > "$OUT/check.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|passed" "$OUT/check.txt" | tail -6
  echo "== gpu_prover_check $(t)"
  timeout 200 "$B/gpu_prover_check" > "$OUT/prover_check.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|streamed keys: pinned|GPU PROVER CHECK" "$OUT/prover_check.txt" | cut -c1-400 | tail -8
fi
specs=("$@")
order=()
for ((i = 0; i < ${#specs[@]}; ++i)); do order+=("$i:1"); done
for ((i = ${#specs[@]} - 1; i >= 0; --i)); do order+=("$i:2"); done
for o in "${order[@]}"; do
  spec=${specs[${o%%:*}]}
  L=${spec%%=*}
  ENVS=${spec#*=}
  echo "== $L pass ${o#*:}: env ${ENVS:-(defaults)} bench_gpu $BENCH_ARGS $(t)"
  env $ENVS timeout 300 "$B/bench_gpu" $BENCH_ARGS > "$OUT/${L}_${o#*:}_bench.txt" 2>&1; echo "rc=$?"
  grep -E "^(ntt 2\^2[4-8]:|msm 2|2\^2[67] profile|g2 msm 2\^2[0-9])" "$OUT/${L}_${o#*:}_bench.txt"
done
echo "== done $(t)"
