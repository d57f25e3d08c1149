#!/usr/bin/env bash
# Scaling over the GPUs of one host (issue 29): the 32 GiB PoRep batch of bench/porep_c2_gpu_run.sh on
# GPU 0 alone and then on every GPU, same machine, same build, same key and C1s, and the throughput
# ratio per J. On a one-GPU host the second run is the default device list (every usable device),
# which must match the first.
#
#   bench/multi_gpu_run.sh PACK_DIR WORK_DIR [J...]      (default J: 2 4; COUNT proofs each, default 8)
#
# Environment: as porep_c2_gpu_run.sh (PROOF, SECTORS default 2, KEY_RESIDENCY, GPU_WORKERS...).
# Output: WORK_DIR/one.md, WORK_DIR/all.md (the two summaries) and WORK_DIR/scaling.md (printed): per J,
# s/proof on one GPU and on all, the ratio, per-device busy % and partitions, daemon CPU cores, peak
# host RSS and how many proofs verified with the .vk.
set -euo pipefail
PACK=$(realpath "$1")
WORK=$(realpath -m "$2")
shift 2
JS=("$@")
[ ${#JS[@]} -gt 0 ] || JS=(2 4)
HERE=$(dirname "$(realpath "$0")")
export COUNT=${COUNT:-8} SECTORS=${SECTORS:-2}
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)
mkdir -p "$WORK"
# One WORK_DIR for both runs: the key and C1s are made by the first and reused by the second.
DEVICES=0 bash "$HERE/porep_c2_gpu_run.sh" "$PACK" "$WORK" "${JS[@]}"
cp "$WORK/summary.md" "$WORK/one.md"
DEVICES= PHASES=run bash "$HERE/porep_c2_gpu_run.sh" "$PACK" "$WORK" "${JS[@]}"
cp "$WORK/summary.md" "$WORK/all.md"

# Fields of a summary row split at "|" (porep_c2_gpu_run.sh): 2 J, 7 s/proof, 8 steady, 13 per device,
# 14 daemon CPU cores, 15 peak host RSS, 18 verified.
row_of() { awk -F' *\\| *' -v j="$2" '$2 == j && $3 ~ /^[0-9]+$/ { print; exit }' "$WORK/$1.md"; }
{
  echo "# Scaling over GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1) x $ngpu ($(date -u +%F))"
  echo
  echo "| J | s/proof, GPU 0 | s/proof, all $ngpu | throughput ratio | steady, GPU 0 | steady, all | per device (all) | daemon CPU cores (all) | peak host RSS GiB (all) | verified (one, all) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for j in "${JS[@]}"; do
    a=$(row_of one "$j")
    b=$(row_of all "$j")
    awk -F' *\\| *' -v a="$a" -v b="$b" -v j="$j" 'BEGIN {
      split(a, x, / *\| */); split(b, y, / *\| */)
      r = (y[7] + 0 > 0) ? x[7] / y[7] : 0
      printf "| %s | %s | %s | %.2fx | %s | %s | %s | %s | %s | %s, %s |\n", j, x[7], y[7], r, x[8], y[8], y[13], y[14], y[15], x[18], y[18]
    }'
  done
} | tee "$WORK/scaling.md"
