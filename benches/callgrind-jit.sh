#!/usr/bin/env bash
# Machine instructions one run of each JIT benchmark program costs, counted
# by callgrind (deterministic, unlike timings on a shared machine): the
# instructions of a process that compiles the program once and runs it
# three times, less those of one that runs it once, halved. That is the
# compiled code with its entry and the instance reset, compilation
# excluded. The programs go through the loophole optimizer, as in the JIT
# benchmark. Needs valgrind.
#
# Usage: benches/callgrind-jit.sh [NAME...]     (from the repository root;
#        NAME is a workload like sieve or che-sieve, default all ten)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build -q --release -p che-jit --example run_jit
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    names=(fib loop sieve listcopy calls che-fib che-loop che-sieve che-listcopy che-calls)
fi
count() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" \
        "$target/release/examples/run_jit" "$1" "$2" >/dev/null 2>"$work/err"
    grep -o 'Collected : [0-9]*' "$work/err" | grep -o '[0-9]*$'
}
printf '| program | instructions per run |\n|---|---|\n'
for n in "${names[@]}"; do
    case "$n" in
        che-*) file="benches/che/${n#che-}.che" ;;
        *) file="benches/programs/$n.asm" ;;
    esac
    one=$(count "$file" 1)
    three=$(count "$file" 3)
    printf '| %s | %d |\n' "$n" $(( (three - one) / 2 ))
done
