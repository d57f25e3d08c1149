#!/usr/bin/env bash
# PoRep C2 end to end on the CPU for one sector size, timed: seal a random sector (cuzk seal), make
# TEST-ONLY parameters (cuzk setup --registered-proof, cached in the work dir), prove every partition
# (cuzk prove-porep, self-verified), verify (cuzk verify-porep), and print a table with wall seconds and
# peak RSS per step.
#   bench/porep_e2e.sh [REGISTERED_PROOF] [WORKDIR]      default StackedDrg8MiBV1_1 out/porep-e2e
set -euo pipefail
cd "$(dirname "$0")/.."
PROOF=${1:-StackedDrg8MiBV1_1}
WORK=${2:-out/porep-e2e}/$PROOF
CUZK=${CUZK:-build/src/apps/cuzk/cuzk}
mkdir -p "$WORK"
TICKET=0303030303030303030303030303030303030303030303030303030303030300
SEED=0404040404040404040404040404040404040404040404040404040404040400
rows=()
step() {  # step NAME CMD...
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ||
    { echo "FAILED: $name: $(tail -2 "$WORK/$name.err")"; exit 1; }
  read -r secs kb < "$WORK/time.txt"
  rows+=("| $name | $secs | $((kb / 1024)) |")
}
step seal "$CUZK" seal --registered-proof "$PROOF" --random --rng-seed 1 --ticket $TICKET --seed $SEED \
  --miner-id 1000 --sector-id 1 --out "$WORK/sector"
if ! ls "$WORK"/params/*.vk >/dev/null 2>&1; then
  step setup "$CUZK" setup --registered-proof "$PROOF" --out "$WORK/params" --seed 1
fi
step prove "$CUZK" prove-porep --c1 "$WORK/sector/c1.json" --params "$WORK/params" --out "$WORK/proof.bin"
step verify "$CUZK" verify-porep --c1 "$WORK/sector/c1.json" --params "$WORK/params" --proof "$WORK/proof.bin" --miner-id 1000
echo "$PROOF on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%FT%TZ)"
echo "| step | wall s | peak RSS MiB |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
grep -h "cuzk" "$WORK"/setup.err "$WORK"/prove.err 2>/dev/null | grep -v TEST-ONLY | sed 's/^/  /'
cat "$WORK/verify.out"
