#!/bin/bash
# One device call for streamed proving keys (bases in pinned host memory, sent in chunks at each
# proof): prebuilt binaries (bins.tar.xz in $1, made by bench/gpu/build_prover.sh) ->
# gpu_prover_check (every case, with the streamed-key checks) -> bench_prover at 2^$LOGS (default
# 24,27), compact witness with the real 1.3% non-0/1 share: key resident, then streamed with the
# default chunk, then streamed with chunks of 2^$CHUNK2 (default 23; SKIP_RESIDENT=1 skips the
# resident run, SKIP_CHECK=1 the check) -> with MAXNTT (e.g. 28),
# bench_gpu's NTT rows up to 2^MAXNTT. Logs under $OUT; the lines that matter on stdout.
set -u
D=${1:-build-x}
. "$(dirname "$0")/device_common.sh"
LOGS=${LOGS:-24,27}
ARGS="--logs $LOGS --reps ${REPS:-2} --compact --random-permille 13 --nosplit 0"
if [ "${SKIP_CHECK:-0}" != 1 ]; then
  echo "== gpu_prover_check $(t)"
  timeout ${CHECK_TIMEOUT:-240} "$B/gpu_prover_check" > "$OUT/prover_check.txt" 2>&1; echo "rc=$?"
  grep -E "FAIL|streamed|GPU PROVER CHECK" "$OUT/prover_check.txt" | cut -c1-900 | tail -8
fi
for variant in resident streamed "streamed --stream-chunk-log ${CHUNK2:-23}"; do
  [ "$variant" = resident ] && [ "${SKIP_RESIDENT:-0}" = 1 ] && continue
  extra=""
  [ "$variant" != resident ] && extra="--${variant}"
  f="$OUT/bench_prover_$(echo "$variant" | tr -c 'a-z0-9\n' '_').txt"
  echo "== bench_prover $ARGS $extra $(t)"
  timeout ${BENCH_TIMEOUT:-200} "$B/bench_prover" $ARGS $extra > "$f" 2>&1; echo "rc=$?"
  grep -E "^\| (log m|2[0-9]) |^Groth16|FAILED" "$f" | head -12
done
if [ -n "${MAXNTT:-}" ]; then
  echo "== bench_gpu NTT to 2^$MAXNTT $(t)"
  timeout 200 "$B/bench_gpu" --max-ntt "$MAXNTT" --max-msm 20 --max-g2 20 --no-sweep --reps 3 > "$OUT/bench_ntt.txt" 2>&1
  echo "rc=$?"
  grep -E "^NTT|^2\^2[0-8] " "$OUT/bench_ntt.txt" | head -40
fi
echo "== done $(t)"
