# Helpers shared by the CLI test scripts (sourced): die/ok, and expect_exit/expect_error, which run a
# command, require its exit code and, for usage/input errors (exit 2), exactly one line on stderr.
die() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# expect_exit CODE CMD... : runs CMD, requires exit CODE; for errors, one line on stderr.
expect_exit() {
  local want=$1; shift
  "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq "$want" ] || die "exit $rc (want $want): $* :: $(cat err.txt out.txt | head -3)"
  if [ "$want" -eq 2 ]; then
    [ "$(wc -l < err.txt)" -eq 1 ] || die "error is not one line: $(cat err.txt)"
  fi
}
expect_error() {  # expect_error NEEDLE CMD... : exit 2 and the one-line error contains NEEDLE
  local needle=$1; shift
  expect_exit 2 "$@"
  grep -qF -- "$needle" err.txt || die "error lacks '$needle': $(cat err.txt)"
  ok "rejected ($needle): $(cat err.txt)"
}
