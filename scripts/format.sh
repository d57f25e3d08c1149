#!/usr/bin/env bash
# Formats the C++ and CUDA sources with clang-format and .clang-format (Debian's clang-format 14).
#   scripts/format.sh           rewrites every tracked .cpp/.hpp/.cu/.cuh under src/, tests/ and bench/
#   scripts/format.sh --check   changes nothing; lists the files that are not formatted, exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'src/*.cu' 'src/*.cuh' 'tests/*.cpp' 'tests/*.hpp' 'tests/*.cu' \
  'tests/*.cuh' 'bench/*.cpp' 'bench/*.hpp' 'bench/*.cu' 'bench/*.cuh')
if [ "${1:-}" = --check ]; then
  bad=0
  for f in "${files[@]}"; do clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || { echo "$f"; bad=1; }; done
  exit $bad
fi
clang-format -i "${files[@]}"
