#!/usr/bin/env bash
# Fuzzes the parsers that take outside bytes (issue 41 item 1): builds the libFuzzer harnesses of
# tests/fuzz/ with clang (-DCUZK_FUZZ=ON: ASan + UBSan, only the parsers' libraries) and runs each for a
# set time on a copy of its seed corpus (tests/fuzz/corpus/<name>) and crash regressions
# (tests/fuzz/regressions/<name>); new inputs go to the scratch copy, never into the committed corpus.
# One table row per harness: executions, coverage (libFuzzer's final cov:), crashes, seconds. Exit 1
# when any harness found a crash, a leak, a timeout (-timeout=10) or an allocation past -rss_limit_mb=2048;
# the input that did it is kept and its path printed (add it to tests/fuzz/regressions/<name>/ with the
# parser's fix: ctest's fuzz.replay.<name> replays it in every build).
#
#   scripts/fuzz.sh [--seconds N (600)] [--build DIR (build-fuzz)] [--jobs J (1)] [--opt -O0|-O1] [--no-build]
#                   [NAMES...]
#
# --no-build: run the harnesses already in DIR/tests/fuzz (built elsewhere: a host without clang).
# --opt: the build's optimization (CMake CUZK_FUZZ_OPT, default -O1; -O0 builds 2.5x faster, fuzzes slower).
# NAMES: harnesses (tests/fuzz/fuzz_<name>.cpp), default all. --jobs: harnesses run at once. Env:
# CUZK_FUZZ_CXX (default clang++; CC is the clang beside it), CUZK_FUZZ_BUILD_JOBS (ninja -j, default 2).
# Scratch (corpus copies, logs, crash files): DIR/runs/<name>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=600
build=$root/build-fuzz
jobs=1
opt=
no_build=0
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --no-build) no_build=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
if [ ${#names[@]} -eq 0 ]; then
  for f in "$root"/tests/fuzz/fuzz_*.cpp; do n=${f##*/fuzz_}; names+=("${n%.cpp}"); done
fi
for n in "${names[@]}"; do
  [ -f "$root/tests/fuzz/fuzz_$n.cpp" ] || { echo "fuzz.sh: no harness tests/fuzz/fuzz_$n.cpp" >&2; exit 2; }
done

t0=$(date +%s)
if [ $no_build = 1 ]; then
  for n in "${names[@]}"; do
    [ -x "$build/tests/fuzz/fuzz_$n" ] || { echo "fuzz.sh: --no-build: $build/tests/fuzz/fuzz_$n is missing" >&2; exit 2; }
  done
else
  cxx=${CUZK_FUZZ_CXX:-clang++}
  cc=${cxx/clang++/clang}
  mkdir -p "$build"
  if [ ! -f "$build/build.ninja" ] || { [ -n "$opt" ] && ! grep -qx "CUZK_FUZZ_OPT:STRING=$opt" "$build/CMakeCache.txt"; }; then
    CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -G Ninja -DCUZK_FUZZ=ON ${opt:+-DCUZK_FUZZ_OPT=$opt} \
      >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; echo "fuzz.sh: configure failed" >&2; exit 2; }
  fi
  targets=()
  for n in "${names[@]}"; do targets+=("fuzz_$n"); done
  ninja -C "$build" -j "${CUZK_FUZZ_BUILD_JOBS:-2}" "${targets[@]}" >"$build/fuzz-build.log" 2>&1 ||
    { tail -40 "$build/fuzz-build.log" >&2; echo "fuzz.sh: build failed ($build/fuzz-build.log)" >&2; exit 2; }
  echo "fuzz.sh: built ${#names[@]} harnesses in $(( $(date +%s) - t0 )) s ($build)"
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# run_one NAME: fuzzes NAME for $seconds; writes DIR/runs/NAME/{log,row}.
run_one() {
  local n=$1 w=$build/runs/$1
  rm -rf "$w"
  mkdir -p "$w/corpus" "$w/artifacts"
  cp "$root/tests/fuzz/corpus/$n"/* "$w/corpus/" 2>/dev/null || true
  if [ -d "$root/tests/fuzz/regressions/$n" ]; then cp "$root/tests/fuzz/regressions/$n"/* "$w/corpus/" 2>/dev/null || true; fi
  local s0 s1 rc=0
  s0=$(date +%s)
  "$build/tests/fuzz/fuzz_$n" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$w/artifacts/" "$w/corpus" >"$w/log" 2>&1 || rc=$?
  s1=$(date +%s)
  local execs cov crashes
  # a harness that did not start (a missing library) has no stats: still one row, counted as failed
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log" | tail -1 || true)
  cov=$({ grep -o 'cov: [0-9]*' "$w/log" || true; } | tail -1 | cut -d' ' -f2)
  crashes=$(find "$w/artifacts" -type f | wc -l)
  [ "$rc" -eq 0 ] || [ "$crashes" -gt 0 ] || crashes="1 (rc $rc)"
  echo "| $n | ${execs:-?} | ${cov:-?} | $crashes | $((s1 - s0)) |" >"$w/row"
}
mkdir -p "$build/runs"
running=0
for n in "${names[@]}"; do
  run_one "$n" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

echo
echo "| harness | executions | cov | crashes | seconds |"
echo "| --- | ---: | ---: | ---: | ---: |"
bad=0
for n in "${names[@]}"; do
  [ -f "$build/runs/$n/row" ] || echo "| $n | ? | ? | 1 (no result) | ? |" >"$build/runs/$n/row"
  cat "$build/runs/$n/row"
  if [ "$(sed 's/^| [^|]* | [^|]* | [^|]* | \([^|]*\) |.*/\1/' "$build/runs/$n/row" | tr -d ' ')" != 0 ]; then bad=1; fi
done
echo
echo "fuzz.sh: ${#names[@]} harnesses, ${seconds} s each, $(( $(date +%s) - t0 )) s in all"
if [ $bad = 1 ]; then
  for n in "${names[@]}"; do
    for f in "$build/runs/$n/artifacts"/*; do
      [ -e "$f" ] && echo "fuzz.sh: $n: $f (log: $build/runs/$n/log)"
    done
    grep -q -E '\((rc |no result)' "$build/runs/$n/row" && echo "fuzz.sh: $n failed without an artifact (log: $build/runs/$n/log)"
  done
  exit 1
fi
exit 0
