#!/usr/bin/env bash
# The set-up scripts on a machine without (a new enough) Node, and the progress lines of the long
# commands. Nothing is downloaded or installed: node, npm, apt-get, sudo, dpkg and cmake are stubs
# where a case needs them, on a PATH made of links to every other command of this machine.
#   node_check   install-deps.sh --check-node: no node, v18, v20.18 (below 20.19), a node that does
#                not run -> exit 1 and one line saying why and how; v20.19 -> exit 0 naming it; a
#                node in CUZK_DEPS/node/bin is taken before PATH's
#   node_install install-deps.sh --test-peers with node v18: npm installs the pinned node-linux-<arch>
#                into CUZK_DEPS/node (stub npm), the run ends naming that node; apt-get never called;
#                npm failing -> exit 1 with one line
#   demo_deps    demo.sh with no node and no npm on PATH gets through its dependency step to the build
#                (a stub cmake stops it there), node and npm never called
#   progress     setup / seal / gen-c1 with --progress 0.000001 print their progress lines (format,
#                100% / last layer / last partition) on stderr; stdout and every file written are the
#                same as with --progress 0; the default (5 s) prints none on these quick runs
# Run by ctest as `scripts_test.sh CASE` with ROOT, WORK (and CUZK for progress) set.
set -uo pipefail
CASE=$1
: "${ROOT:?}" "${WORK:?}"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
source "$ROOT/scripts/deps-env.sh"  # CUZK_NODE_MIN, CUZK_NODE_PIN

# farm: links to every command on this PATH except node, npm and friends (a machine without Node).
make_farm() {
  local d f b
  mkdir -p farm
  IFS=: read -ra dirs <<< "$PATH"
  for d in "${dirs[@]}"; do
    for f in "$d"/*; do
      b=${f##*/}
      case $b in node | nodejs | npm | npx | corepack) continue ;; esac
      [ -x "$f" ] && [ ! -e "farm/$b" ] && ln -s "$f" "farm/$b"
    done
  done
  [ -e farm/bash ] && [ ! -e farm/node ] || die "could not build a PATH without node"
}
# fake_node DIR VERSION: DIR/node printing vVERSION (as `node --version` does).
fake_node() { mkdir -p "$1" && printf '#!/bin/sh\necho v%s\n' "$2" > "$1/node" && chmod +x "$1/node"; }
# stub DIR NAME RC: DIR/NAME appends "NAME ARGS" to $WORK/calls.log and exits RC.
stub() { mkdir -p "$1" && printf '#!/bin/sh\necho "%s $*" >> "%s/calls.log"\nexit %s\n' "$2" "$WORK" "$3" > "$1/$2" && chmod +x "$1/$2"; }

check_node() {  # check_node PATH... : runs --check-node with that PATH and an empty CUZK_DEPS unless set
  PATH="$1" CUZK_DEPS=${DEPS:-$WORK/empty} "$ROOT/scripts/install-deps.sh" --check-node >out.txt 2>err.txt
}

case "$CASE" in
node_check)
  make_farm
  check_node "$WORK/farm"; rc=$?
  [ $rc -eq 1 ] || die "no node: exit $rc"
  [ "$(wc -l < err.txt)" -eq 1 ] || die "no node: not one line: $(cat err.txt)"
  grep -qF "install-deps: no node on PATH; the tests' peers (@noble/curves) need Node >= 20.19.0: run scripts/install-deps.sh --test-peers (installs Node $CUZK_NODE_PIN from the npm registry into .deps/node)" err.txt ||
    die "no node: $(cat err.txt)"
  ok "no node: $(cat err.txt)"
  for v in 18.19.0 20.18.1; do
    fake_node "$WORK/v$v" "$v"
    check_node "$WORK/v$v:$WORK/farm"; rc=$?
    [ $rc -eq 1 ] || die "node v$v: exit $rc"
    [ "$(wc -l < err.txt)" -eq 1 ] || die "node v$v: not one line: $(cat err.txt)"
    grep -qF "node v$v at $WORK/v$v/node is older than 20.19.0; the tests' peers (@noble/curves) need Node >= 20.19.0: run scripts/install-deps.sh --test-peers" err.txt ||
      die "node v$v: $(cat err.txt)"
    ok "node v$v refused: $(cat err.txt)"
  done
  mkdir -p broken && printf '#!/bin/sh\nexit 1\n' > broken/node && chmod +x broken/node
  check_node "$WORK/broken:$WORK/farm"; rc=$?
  [ $rc -eq 1 ] && grep -qF "$WORK/broken/node does not run" err.txt || die "broken node: exit $rc: $(cat err.txt)"
  ok "broken node refused"
  fake_node "$WORK/v20.19.0" 20.19.0
  check_node "$WORK/v20.19.0:$WORK/farm"; rc=$?
  [ $rc -eq 0 ] || die "node v20.19.0: exit $rc: $(cat err.txt)"
  [ "$(cat out.txt)" = "install-deps: node v20.19.0 at $WORK/v20.19.0/node" ] || die "node v20.19.0: $(cat out.txt)"
  ok "$(cat out.txt)"
  fake_node "$WORK/deps/node/bin" "$CUZK_NODE_PIN"
  DEPS=$WORK/deps check_node "$WORK/v18.19.0:$WORK/farm"; rc=$?
  [ $rc -eq 0 ] && [ "$(cat out.txt)" = "install-deps: node v$CUZK_NODE_PIN at $WORK/deps/node/bin/node" ] ||
    die "CUZK_DEPS node not preferred: exit $rc: $(cat out.txt err.txt)"
  ok "CUZK_DEPS/node/bin/node before PATH's v18: $(cat out.txt)"
  ;;

node_install)
  make_farm
  fake_node "$WORK/v18" 18.19.0
  # npm stub: `install --global --prefix P node-linux-ARCH@V` makes P/bin/node (vV); `ci` is recorded.
  mkdir -p stubs
  cat > stubs/npm <<EOF
#!/bin/bash
echo "npm \$*" >> "$WORK/calls.log"
[ "\${NPM_FAIL:-0}" = 0 ] || { echo "npm ERR! 404 (stub)" >&2; exit 1; }
if [ "\$1" = install ]; then
  while [ \$# -gt 0 ]; do
    case \$1 in --prefix) prefix=\$2; shift ;; node-linux-*@*) v=\${1##*@} ;; esac
    shift
  done
  mkdir -p "\$prefix/bin" && printf '#!/bin/sh\necho v%s\n' "\$v" > "\$prefix/bin/node" && chmod +x "\$prefix/bin/node"
fi
EOF
  chmod +x stubs/npm
  stub stubs apt-get 1
  stub stubs sudo 1
  stub stubs dpkg 0        # every Debian package "installed": this case is about Node
  printf '#!/bin/sh\necho "promtool, version 2.42.0 (stub)"\n' > stubs/promtool && chmod +x stubs/promtool
  case $(uname -m) in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) die "no Node package for $(uname -m)" ;; esac
  PATH="$WORK/stubs:$WORK/v18:$WORK/farm" CUZK_DEPS=$WORK/deps "$ROOT/scripts/install-deps.sh" --test-peers >out.txt 2>err.txt
  rc=$?
  [ $rc -eq 0 ] || die "--test-peers with node v18: exit $rc: $(cat err.txt out.txt)"
  grep -qF "npm install --global --prefix $WORK/deps/node --no-audit --no-fund --loglevel=error node-linux-$arch@$CUZK_NODE_PIN" calls.log ||
    die "npm not asked for node-linux-$arch@$CUZK_NODE_PIN: $(cat calls.log)"
  grep -qF "install-deps: node v18.19.0 at $WORK/v18/node is older than 20.19.0: installing node-linux-$arch@$CUZK_NODE_PIN into $WORK/deps/node" out.txt ||
    die "no install line: $(cat out.txt)"
  [ "$(tail -1 out.txt)" = "install-deps: ok (build and test peers; node v$CUZK_NODE_PIN at $WORK/deps/node/bin/node, promtool at $WORK/stubs/promtool)" ] ||
    die "last line: $(tail -1 out.txt)"
  ! grep -q "^apt-get\|^sudo" calls.log || die "apt-get called: $(cat calls.log)"
  ok "node v18 -> npm install node-linux-$arch@$CUZK_NODE_PIN into CUZK_DEPS; $(tail -1 out.txt)"
  # Installed once: a second run asks npm for nothing but (perhaps) ci.
  : > calls.log
  PATH="$WORK/stubs:$WORK/v18:$WORK/farm" CUZK_DEPS=$WORK/deps "$ROOT/scripts/install-deps.sh" --test-peers >out.txt 2>err.txt ||
    die "second run: $(cat err.txt)"
  ! grep -q "^npm install" calls.log || die "second run installed again: $(cat calls.log)"
  ok "second run: nothing installed"
  # npm failing: one line saying what failed and what to do.
  rm -rf deps
  PATH="$WORK/stubs:$WORK/v18:$WORK/farm" CUZK_DEPS=$WORK/deps NPM_FAIL=1 "$ROOT/scripts/install-deps.sh" --test-peers >out.txt 2>err.txt
  rc=$?
  [ $rc -eq 1 ] || die "npm failing: exit $rc"
  [ "$(tail -1 err.txt)" = "install-deps: npm install node-linux-$arch@$CUZK_NODE_PIN failed (see above): install Node >= 20.19.0 and put it first in PATH" ] ||
    die "npm failing: $(cat err.txt)"
  ok "npm failing: $(tail -1 err.txt)"
  ;;

demo_deps)
  make_farm
  mkdir -p stubs
  stub stubs node 1
  stub stubs npm 1
  stub stubs apt-get 1
  stub stubs sudo 1
  stub stubs cmake 97  # the build step: the dependency step is over
  PATH="$WORK/stubs:$WORK/farm" "$ROOT/scripts/demo.sh" >out.txt 2>err.txt
  rc=$?
  [ $rc -eq 97 ] || die "demo.sh did not reach the build step (exit $rc): $(cat err.txt out.txt calls.log 2>/dev/null | head -5)"
  grep -q "^cmake -S \. -B build" calls.log || die "no cmake call: $(cat calls.log)"
  ! grep -q "^node\|^npm" calls.log || die "demo.sh's dependency step ran node/npm: $(cat calls.log)"
  ! grep -q "^apt-get\|^sudo" calls.log || die "apt-get called (a build dependency is missing here?): $(cat calls.log)"
  ok "demo.sh: dependency step without node or npm, then $(head -1 calls.log)"
  ;;

progress)
  : "${CUZK:?}"
  R1CS=$ROOT/tests/fixtures/snarkjs/mulchain/mulchain.r1cs
  HEX1=$(printf '%064x' 1) HEX2=$(printf '%064x' 2)
  run() {  # run TAG INTERVAL CMD...: in folder INTERVAL, stdout TAG.out, stderr TAG.err
    local tag=$1 iv=$2; shift 2
    (cd "$iv" && "$@" --progress "$iv" >"$tag.out" 2>"$tag.err") || die "$tag --progress $iv: $(cat "$iv/$tag.err")"
  }
  for iv in 0 0.000001 5; do
    mkdir -p $iv
    run setup $iv "$CUZK" setup --r1cs "$R1CS" --out keys --seed 3
    run seal $iv "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --ticket "$HEX1" --seed "$HEX2" --out sector
    run genc1 $iv "$CUZK" gen-c1 --registered-proof StackedDrg2KiBV1_1 --out c1.json
  done
  for tag in setup seal genc1; do
    cmp -s "0/$tag.out" "0.000001/$tag.out" || die "$tag: stdout differs with progress lines"
    ! grep -q ", [0-9]* s$" "0/$tag.err" || die "$tag --progress 0 printed a progress line: $(cat "0/$tag.err")"
    ! grep -q ", [0-9]* s$" "5/$tag.err" || die "$tag --progress 5 printed a progress line on a quick run"
  done
  for f in keys/mulchain.params keys/mulchain.vk sector/sealed sector/comm.json sector/c1.json c1.json; do
    cmp "0/$f" "0.000001/$f" || die "$f differs with progress lines"
  done
  ok "stdout and files identical with --progress 0 / 0.000001; no line with 0 nor on quick runs with 5"

  pre="0.000001/setup.err"
  grep -Eq "^cuzk setup: [0-9]+% of the key's points \(section (vk|h|l|a|b_g1|b_g2), [0-9]+ of [0-9]+\), [0-9]+ s$" "$pre" ||
    die "setup: no progress line: $(cat "$pre")"
  last=$(grep "of the key's points" "$pre" | tail -1)
  [[ $last == "cuzk setup: 100% of the key's points (section b_g2, "* ]] || die "setup: last line $last"
  grep -q "^cuzk setup: QAP at tau \.\.\., [0-9]* s$" "$pre" || die "setup: no QAP stage line: $(cat "$pre")"
  ok "setup: $(grep -c "of the key's points" "$pre") lines, last: $last"

  pre="0.000001/seal.err"
  # 2 KiB: 2 layers of 64 nodes, then the phases after the labels.
  grep -qx "cuzk seal: labels: layer 1 of 2, 100% of its 64 nodes, [0-9]* s" "$pre" &&
    grep -qx "cuzk seal: labels: layer 2 of 2, 100% of its 64 nodes, [0-9]* s" "$pre" &&
    grep -qx "cuzk seal: tree R done, [0-9]* s" "$pre" || die "seal: progress lines: $(cat "$pre")"
  ok "seal: $(wc -l < "$pre") lines ($(grep -c layer "$pre") of layers)"

  pre="0.000001/genc1.err"
  grep -qx "cuzk gen-c1: labels: 2 of 2 layers, [0-9]* s" "$pre" &&
    grep -qx "cuzk gen-c1: vanilla proofs: 1 of 1 partitions, [0-9]* s" "$pre" &&
    grep -qx "cuzk gen-c1: vanilla check of 1 partitions, [0-9]* s" "$pre" || die "gen-c1: progress lines: $(cat "$pre")"
  "$CUZK" gen-c1 --registered-proof StackedDrg2KiBV1_1 --out q.json -q --progress 0.000001 >/dev/null 2>q.err ||
    die "gen-c1 -q"
  ! grep -q ", [0-9]* s$" q.err || die "gen-c1 -q printed progress: $(cat q.err)"
  ok "gen-c1: labels / vanilla proofs / vanilla check lines; none with -q"
  ;;

*) die "unknown case $CASE" ;;
esac
echo "PASS $CASE"
