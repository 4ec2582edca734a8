#!/usr/bin/env bash
# Machine instructions (callgrind; exact and repeatable, unlike timings on a
# shared machine) of the three measurements that guard the core's speed:
#
# - interp NAME: one run of main() of benches/programs/NAME.asm on the
#   interpreter (a process running it three times less one running it
#   once, halved: translation and process start-up cancel out);
# - jit NAME: the same on the JIT (compilation cancels out the same way;
#   the program goes through the loophole optimizer, as in the JIT bench);
# - perft D: the whole process `che-engine perft D` from the start position.
#
# Usage: benches/callgrind-core.sh [--no-build] [ROOT]
#   ROOT is a checkout of this repository (default: this one), so that two
#   commits can be compared side by side with the same script:
#   benches/callgrind-core.sh /path/to/old/checkout
# Needs valgrind.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build=1
if [ "${1:-}" = "--no-build" ]; then
    build=0
    shift
fi
root="$(cd "${1:-$here}" && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
if [ "$build" = 1 ]; then
    cargo build -q --release -p che-cvm --example time_asm
    cargo build -q --release -p che-jit --example run_jit
    # The engine binary's package changed with the crate split.
    cargo build -q --release --bin che-engine
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$@" >/dev/null 2>"$work/err"
    grep -o 'Collected : [0-9]*' "$work/err" | grep -o '[0-9]*$'
}
per_run() {
    local one three
    one=$(count "$@" 1)
    three=$(count "$@" 3)
    echo $(( (three - one) / 2 ))
}
printf '| measurement | machine instructions |\n|---|---|\n'
for n in fib loop sieve listcopy calls; do
    printf '| interp %s | %d |\n' "$n" "$(per_run "$target/release/examples/time_asm" "benches/programs/$n.asm")"
done
for n in fib loop sieve listcopy calls; do
    printf '| jit %s | %d |\n' "$n" "$(per_run "$target/release/examples/run_jit" "benches/programs/$n.asm")"
done
printf '| perft 5 | %d |\n' "$(count "$target/release/che-engine" perft 5)"
