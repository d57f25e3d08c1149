#!/usr/bin/env bash
# Crash consistency of the files cuzk writes (issue 41 item 2): `cuzk setup` killed with SIGKILL at
# random points, then run again. A key file under its final name (.params, .vk, .meta) must always be
# the whole file — byte-identical to the same seed's complete key (the post_params_2k fixture) —
# never a part: everything is written to a .tmp-<pid> name, synced and renamed (base/file_commit.hpp).
#   bash crash_test.sh     with CUZK, ROOT, WORK, PARAMS (post_params_2k) set
set -uo pipefail
: "${CUZK:?}" "${ROOT:?}" "${WORK:?}" "${PARAMS:?}"
source "$ROOT/tests/cli/expect.sh"
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK" || exit 1
STEM=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e
for ext in params vk meta; do [ -f "$PARAMS/$STEM.$ext" ] || die "fixture $PARAMS/$STEM.$ext missing"; done
# One uninterrupted run's time here bounds the kill points.
t0=$(date +%s%N)
"$CUZK" setup --registered-proof StackedDrgWinning2KiBV1 --out full --seed 7 > /dev/null 2>&1 || die "setup"
full_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
for ext in params vk meta; do cmp -s "full/$STEM.$ext" "$PARAMS/$STEM.$ext" || die "a full run differs from the fixture ($ext)"; done
kills=0 partial=0 seen=0
RANDOM=41  # reproducible kill points
for i in $(seq 1 8); do
  at=$(( 50 + RANDOM % (full_ms + 200) ))
  "$CUZK" setup --registered-proof StackedDrgWinning2KiBV1 --out k --seed 7 > /dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%03d' $((at % 1000)))"; [ $((at / 1000)) -gt 0 ] && sleep $((at / 1000))
  kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
  wait "$pid" 2>/dev/null
  for ext in params vk meta; do
    f=k/$STEM.$ext
    [ -e "$f" ] || continue
    seen=$((seen + 1))
    cmp -s "$f" "$PARAMS/$STEM.$ext" || die "after a kill at $at ms: $f is not the whole key ($(stat -c %s "$f") bytes)"
  done
  ls k/*.tmp-* > /dev/null 2>&1 && partial=$((partial + 1))
done
[ "$kills" -ge 4 ] || die "only $kills of 8 runs were still running when killed (full run: $full_ms ms)"
ok "$kills SIGKILLs at random points of a $full_ms ms setup: every key file under its name was whole ($seen seen), $partial runs left only .tmp-<pid> files"
# The restart completes, and what it writes is the key.
expect_exit 0 "$CUZK" setup --registered-proof StackedDrgWinning2KiBV1 --out k --seed 7
for ext in params vk meta; do cmp -s "k/$STEM.$ext" "$PARAMS/$STEM.$ext" || die "after the restart: $ext differs"; done
ok "the run after the kills writes the whole key (params, vk, meta byte-identical to the fixture)"
