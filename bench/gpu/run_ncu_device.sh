#!/bin/bash
# One device call: Nsight Compute (ncu, installed on the GPU host) on the G1 accumulation kernel (the
# first launch at 2^24, c = 20 as at 2^26: 17 launches come before it in this bench_gpu run) and on the
# first three NTT passes of a 2^27 partition (bench_prover). Prebuilt binaries in $1 (bins.tar.xz from
# bench/gpu/build_prover.sh). Logs under $OUT (ncu_acc.txt, ncu_ntt.txt); the lines that matter on stdout.
set -u
D=${1:-build-x}
. "$(dirname "$0")/device_common.sh"
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy"
echo "== accumulate_l1 $(t)"
ncu --kernel-name regex:accumulate_l1 --launch-skip 17 --launch-count 1 $SECTIONS --section InstructionStats \
  "$B/bench_gpu" --max-ntt 0 --max-msm 24 --max-g2 0 --no-sweep --reps 3 > "$OUT/ncu_acc.txt" 2>&1
echo "rc=$?"
echo "== ntt_pass $(t)"
ncu --kernel-name regex:ntt_pass --launch-skip 0 --launch-count 3 $SECTIONS --section MemoryWorkloadAnalysis \
  "$B/bench_prover" --logs 27 --reps 1 > "$OUT/ncu_ntt.txt" 2>&1
echo "rc=$?"
grep -hE "_kernel|Duration|Compute \(SM\)|Issue Slots|highest-utilized|Active Warps Per Scheduler|Eligible Warps|fixed latency" \
  "$OUT/ncu_acc.txt" "$OUT/ncu_ntt.txt" | cut -c1-150
