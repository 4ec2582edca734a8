#!/usr/bin/env bash
# Machine instructions the interpreter executes for each Che++ benchmark
# program, unoptimized and optimized, counted by callgrind (deterministic,
# unlike timings on a shared machine). Needs valgrind.
#
# Usage: benches/callgrind-opt.sh            (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build -q --release -p che-cvm --example time_asm
cargo build -q --release -p chess-core --bin che
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '| program | unoptimized | optimized | ratio |\n|---|---|---|---|\n'
for w in fib loop sieve listcopy calls; do
    "$target/release/che" asm --no-opt "benches/che/$w.che" -o "$work/$w.noopt.asm"
    "$target/release/che" asm "benches/che/$w.che" -o "$work/$w.opt.asm"
    declare -A count
    for v in noopt opt; do
        valgrind --tool=callgrind --callgrind-out-file="$work/$w.$v.out" \
            "$target/release/examples/time_asm" "$work/$w.$v.asm" 1 >/dev/null 2>"$work/$w.$v.err"
        count[$v]=$(grep -o 'Collected : [0-9]*' "$work/$w.$v.err" | grep -o '[0-9]*$')
    done
    awk -v w="$w" -v a="${count[noopt]}" -v b="${count[opt]}" \
        'BEGIN { printf "| %s | %d | %d | %.2f |\n", w, a, b, a / b }'
done
