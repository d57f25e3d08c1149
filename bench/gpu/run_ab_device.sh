#!/bin/bash
# One device call that compares builds side by side: for each LABEL=TARBALL argument (a bins.tar.xz
# made by bench/gpu/build_prover.sh, e.g. with NVCC_EXTRA=-DCUZK_FIELD_KARATSUBA=0), the registers
# and spills of the MSM / NTT kernels, then bench_gpu $BENCH_ARGS (default: NTT to 2^27, G1 MSM to
# 2^27, G2 MSM to 2^24, no sweeps), its key lines printed. With CHECK=LABEL, that build's gpu_check
# and gpu_prover_check run first. Logs under $OUT (default ./gpu-out) as <label>_*.txt.
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
BENCH_ARGS=${BENCH_ARGS:---max-ntt 27 --max-msm 27 --max-g2 24 --no-sweep --reps 3}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,memory.used --format=csv,noheader
T0=$(date +%s)
t() { echo "($(( $(date +%s) - T0 )) s)"; }
for arg in "$@"; do
  L=${arg%%=*}
  B=./ab-bin/$L
  mkdir -p "$B" && tar -xJf "${arg#*=}" -C "$B" || exit 1
  echo "== $L: registers $(t)"
  bash "$(dirname "$0")/sass_counts.sh" "$B/bench_gpu" 'accumulate|reduce|sum_selected|ntt_pass|rate_kernel' 2>&1 |
    grep REG > "$OUT/${L}_regs.txt"
  cut -c1-160 "$OUT/${L}_regs.txt" | sed -E 's/Function _Z[0-9]+//' | head -16
  if [ "${CHECK:-}" = "$L" ]; then
    echo "== $L: gpu_check $(t)"
    timeout 200 "$B/gpu_check" > "$OUT/${L}_check.txt" 2>&1; echo "rc=$?"
    grep -E "FAIL|passed" "$OUT/${L}_check.txt" | tail -4
    echo "== $L: gpu_prover_check $(t)"
    timeout 150 "$B/gpu_prover_check" > "$OUT/${L}_prover_check.txt" 2>&1; echo "rc=$?"
    grep -E "FAIL|GPU PROVER CHECK" "$OUT/${L}_prover_check.txt" | tail -4
  fi
  echo "== $L: bench_gpu $BENCH_ARGS $(t)"
  timeout 300 "$B/bench_gpu" $BENCH_ARGS > "$OUT/${L}_bench.txt" 2>&1; echo "rc=$?"
  grep -E "^(Fp |Fp sqr|ntt 2\^2[4-8]:|msm 2|2\^2[0-9] profile|sum_selected 2|g2 msm 2\^2[0-9])" "$OUT/${L}_bench.txt"
done
echo "== done $(t)"
