#!/usr/bin/env bash
# Issue 27's measurements in one go on the GPU host: the 32 GiB PoRep key resident (J = 2 and J = 1)
# and streamed from pinned host memory (J = 2), through bench/porep_c2_gpu_run.sh, plus the prepare
# stages of one C1 (porep_prepare_bench, when the pack has it). Prints each run's summary and the
# daemon's key-load lines (where READY's time goes).
#
#   bench/key_memory_gpu_run.sh PACK_DIR WORK_DIR [MODES]
#
# MODES: any of "resident streamed" (default both). Environment: as porep_c2_gpu_run.sh (SECTORS,
# COUNT...). The key and C1s are made once in WORK_DIR and reused by every mode.
set -euo pipefail
PACK=$(realpath "$1")
WORK=$(realpath -m "$2")
MODES=${3:-resident streamed}
HERE=$(dirname "$(realpath "$0")")
mkdir -p "$WORK"
export SECTORS=${SECTORS:-2}

key_lines() {  # the daemon's start-up lines about the key: shape, mapping, copies, READY
  grep -E "partition shape|mapped, its counts|proving key .* on device|loaded proving key|READY|streamed|H copies dropped" \
    "$WORK/daemon.log" | sed -E 's/^[0-9T:.-]+ //' | cut -c1-260 | sed 's/^/   /'
}

for mode in $MODES; do
  case $mode in
    resident) js=(2 1) residency=auto ;;
    streamed) js=(2) residency=streamed ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  echo "=== $mode (gpus.key_residency = $residency, J = ${js[*]})"
  KEY_RESIDENCY=$residency bash "$HERE/porep_c2_gpu_run.sh" "$PACK" "$WORK" "${js[@]}" > "$WORK/$mode.log" 2>&1 ||
    { tail -30 "$WORK/$mode.log"; exit 1; }
  cp "$WORK/summary.md" "$WORK/$mode.md"
  sed -n '/^| J |/,$p' "$WORK/$mode.md"
  grep -E "READY after|host RSS peak while loading" "$WORK/$mode.log" | sed 's/^ *//;s/^/   /'
  key_lines
done

if [ -x "$PACK/bin/porep_prepare_bench" ] && [ -f "$WORK/c1/s1.json" ]; then
  echo "=== prepare stages of one C1 (porep_prepare_bench)"
  for t in 1 0; do "$PACK/bin/porep_prepare_bench" --c1 "$WORK/c1/s1.json" --reps 2 --threads "$t" | tail -8; done
fi
