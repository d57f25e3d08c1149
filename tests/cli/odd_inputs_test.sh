#!/usr/bin/env bash
# Every file a tool reads refuses devices, FIFOs and /proc files at once (issue 41 item 9): the
# sweep finds every subcommand of cuzk and cuzk-bench (and cuzk-daemon's own flags) from --help,
# every option or positional shown as FILE there, and runs it with /dev/zero, /dev/urandom, a FIFO
# and a /proc file: each must exit 2 with one line naming the path, within a second. Also the
# options that must be FILE are FILE (a new input option without the check fails here).
#   bash odd_inputs_test.sh     with CUZK, BENCH, DAEMON, ROOT, WORK set
set -uo pipefail
: "${CUZK:?}" "${BENCH:?}" "${DAEMON:?}" "${ROOT:?}" "${WORK:?}"
source "$ROOT/tests/cli/expect.sh"
rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK" || exit 1
mkfifo fifo
BAD=(/dev/zero /dev/urandom "$WORK/fifo" /proc/self/status)

# subcommands TOOL [SUB...]: the subcommands listed by `TOOL SUB... --help`, one per line.
subcommands() {
  "$@" --help 2>/dev/null | awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1} s && /^$/ {s = 0}'
}
# file_args TOOL [SUB...]: the FILE options ("--zkey") and positionals ("file") of that command.
file_args() {
  "$@" --help 2>/dev/null | awk '/^  -/ || /^  [a-z]/ {
      if ($0 ~ /:FILE/) { split($1, n, ","); print n[length(n)] } }'
}
checked=0 cmds=0
sweep() {  # sweep TOOL [SUB...]
  local args; mapfile -t args < <(file_args "$@")
  [ "${#args[@]}" -gt 0 ] && cmds=$((cmds + 1))
  for a in "${args[@]}"; do
    for p in "${BAD[@]}"; do
      local call=("$@")
      if [ "${a#-}" != "$a" ]; then call+=("$a" "$p"); else call+=("$p"); fi
      local t0 rc dt
      t0=$(date +%s%N)
      timeout 5 "${call[@]}" > out.txt 2> err.txt; rc=$?
      dt=$(( ($(date +%s%N) - t0) / 1000000 ))
      [ "$rc" = 2 ] || die "${call[*]}: exit $rc (want 2): $(head -2 err.txt)"
      [ "$(wc -l < err.txt)" = 1 ] || die "${call[*]}: not one line: $(cat err.txt)"
      grep -qF -- "$p" err.txt || die "${call[*]}: the error does not name $p: $(cat err.txt)"
      [ "$dt" -lt 1000 ] || die "${call[*]}: took $dt ms"
      checked=$((checked + 1))
    done
  done
  local s; for s in $(subcommands "$@"); do [ "$s" = daemon ] || sweep "$@" "$s"; done
}
sweep "$CUZK"
sweep "$BENCH"
sweep "$DAEMON"
sweep "$CUZK" daemon
ok "$checked refusals in $cmds commands (cuzk, cuzk-bench, cuzk-daemon): exit 2, one line naming the path, < 1 s each"
echo "  e.g. $(cat err.txt)"

# The input options that must carry the check (what the tools read themselves).
must_be_file() {  # must_be_file "OPTION" TOOL SUB...
  local opt=$1; shift
  file_args "$@" | grep -qx -- "$opt" || die "$* $opt is not checked as FILE"
}
must_be_file file "$CUZK" inspect
for s in prove-porep verify-porep; do must_be_file --c1 "$CUZK" $s; done
for s in prove-post verify-post; do must_be_file --vanilla "$CUZK" $s; done
must_be_file --vanilla "$CUZK" post check
must_be_file --vanilla "$CUZK" snap check
for s in prove-snap verify-snap; do must_be_file --vanilla "$CUZK" $s; done
for o in --zkey --params --wtns --r1cs; do must_be_file $o "$CUZK" prove; done
for o in --vk --proof --public --inputs; do must_be_file $o "$CUZK" verify; done
must_be_file --data "$CUZK" seal
must_be_file --data "$CUZK" snap-encode
for s in single batch; do for o in --c1 --vanilla --wtns; do must_be_file $o "$BENCH" $s; done; done
must_be_file --config "$DAEMON"
ok "every input option of the tools is checked as FILE"
# A missing --config still means the defaults (the Rust daemon's behaviour): not refused here.
timeout 5 "$DAEMON" --config "$WORK/none.toml" --check-config > out.txt 2> err.txt || die "--config missing: $(cat err.txt)"
ok "a missing --config file still means the defaults"
