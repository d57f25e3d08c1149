#!/bin/bash
# Opcode histogram of the SASS of every kernel in binary $1 whose name matches the awk/grep -E
# pattern $2 (e.g. 'mul_rate_kernel'), then the registers each matching kernel uses. Needs cuobjdump
# (CUDA toolkit), so it runs on the GPU host. Usage: bash bench/gpu/sass_counts.sh BIN PATTERN
set -u
BIN=$1
PAT=$2
command -v cuobjdump > /dev/null || { echo "sass_counts: no cuobjdump"; exit 1; }
cuobjdump -sass "$BIN" | awk -v pat="$PAT" '
  /Function :/ { name = $3; keep = (name ~ pat); next }
  keep && /^[ \t]*\/\*[0-9a-f]+\*\// {
    line = $0
    sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
    sub(/^@!?U?P[0-9T]+[ \t]+/, "", line)
    split(line, w, /[ ;]/)
    if (w[1] != "") { count[name "\t" w[1]]++; total[name]++ }
  }
  END {
    for (k in count) { split(k, nk, "\t"); printf "%s\t%d\t%s\t%d\n", nk[1], total[nk[1]], nk[2], count[k] }
  }' | sort -t$'\t' -k1,1 -k4,4nr | awk -F'\t' '
  $1 != last { printf "-- %s: %d instructions\n", $1, $2; last = $1 }
  { printf "   %7d %s\n", $4, $3 }'
cuobjdump -res-usage "$BIN" 2>/dev/null | grep -A1 -E "Function [^:]*(${PAT})" |
  grep -oE "Function [^:]*|REG:[0-9]+|STACK:[0-9]+|LOCAL:[0-9]+" | paste -d' ' - - - -
