#!/usr/bin/env bash
# Machine instructions (callgrind) of the interpreter benchmarks across a range
# of commits, one row per commit, so that a slowdown can be pinned to the
# commit that made it.
#
# Two measurements:
#
# - core: one run of main() of benches/programs/NAME.asm on the interpreter,
#   counted as benches/callgrind-core.sh counts it (the `time_asm` example of
#   the `cvm` package: a process running main() three times less one running
#   it once, halved; translation and process start-up cancel out). The
#   example is built with the `cvm` package's dev-dependencies removed from
#   its Cargo.toml for the build (restored at once), so that only the core and
#   the example compile at each commit; the example uses none of them, and at
#   491ebdb both builds count the same per run (406,615,440 against
#   406,615,424 instructions for fib).
# - whole: the whole process `che run benches/che/NAME.che --backend interp`
#   (start-up, Che++ front end, optimizer, translation, execution, exit).
#
# Usage:
#   callgrind-history.sh core  RANGE [PATH...]   first-parent commits of RANGE
#                                                 (A..B; A itself is included)
#                                                 that touch PATH (default:
#                                                 cvm chess-core Cargo.toml
#                                                 Cargo.lock)
#   callgrind-history.sh whole COMMIT...          the listed commits
#   callgrind-history.sh whole-range RANGE N      A, every Nth first-parent
#                                                 commit of RANGE, and B
#
# Prints a Markdown table (instructions per program, and the change against the
# previous row in percent of the previous row's sum) and appends CSV rows to
# $OUT/core.csv or $OUT/whole.csv; keeps each binary as $OUT/bin/NAME.COMMIT.
#
# Environment:
#   REPO          the repository (default: the checkout holding this script)
#   WORKTREE      a detached worktree used for the checkouts (default:
#                 $REPO/../che-history-wt; made with `git worktree add` when
#                 missing; its files are overwritten)
#   CARGO_TARGET_DIR  (default: $WORKTREE/target)
#   OUT           where the CSV files and the count cache go (default: .)
#   PROGRAMS      the benchmark names (default: fib loop sieve listcopy calls)
#   NICE          prefix for builds and valgrind (default: nice -n 10)
#
# The benchmark sources are read from the range's last commit (benches/programs
# and benches/che did not change between 51e1740 and 491ebdb), so every commit
# runs the same programs. Counts are cached by the binary's SHA-256: a commit
# whose binary is byte-identical to one already counted reuses its counts.
# Needs valgrind and git.
set -euo pipefail

mode="${1:?usage: callgrind-history.sh core|whole|whole-range ...}"
shift
script_dir="$(cd "$(dirname "$0")" && pwd)"
repo="${REPO:-$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null || pwd)}"
repo="$(cd "$repo" && pwd)"
wt="${WORKTREE:-$repo/../che-history-wt}"
out="$(mkdir -p "${OUT:-.}" && cd "${OUT:-.}" && pwd)"
programs="${PROGRAMS:-fib loop sieve listcopy calls}"
read -r -a nice_cmd <<<"${NICE:-nice -n 10}"

if [ ! -d "$wt" ]; then
    git -C "$repo" worktree add --detach "$wt" HEAD >/dev/null
fi
wt="$(cd "$wt" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$wt/target}"
mkdir -p "$out/cache"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The benchmark programs, copied once from the newest commit of the range.
copy_programs() {
    local rev="$1"
    mkdir -p "$work/programs"
    for n in $programs; do
        git -C "$repo" show "$rev:benches/programs/$n.asm" >"$work/programs/$n.asm"
        git -C "$repo" show "$rev:benches/che/$n.che" >"$work/programs/$n.che"
    done
}

checkout() {
    git -C "$wt" checkout -q --force --detach "$1"
    git -C "$wt" clean -q -fd -- . >/dev/null
}

# The directory of the `cvm` package at the checked-out commit.
cvm_dir() {
    if [ -f "$wt/cvm/core/Cargo.toml" ]; then echo "$wt/cvm/core"; else echo "$wt/cvm"; fi
}

build_time_asm() {
    local manifest
    manifest="$(cvm_dir)/Cargo.toml"
    python3 - "$manifest" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r'\n\[dev-dependencies\]\n[^\[]*', '\n', s)
open(p, 'w').write(s)
EOF
    # The core's package is `cvm` before it was renamed for publishing, `che-cvm` after.
    local core_pkg
    core_pkg=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$manifest" | head -n 1)
    (cd "$wt" && "${nice_cmd[@]}" cargo build -q --release -p "$core_pkg" --example time_asm) >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        git -C "$wt" checkout -q -- .
        return 1
    }
    git -C "$wt" checkout -q -- .
    cp "$CARGO_TARGET_DIR/release/examples/time_asm" "$work/bin"
    keep time_asm
}

build_che() {
    local pkg=()
    # The `che` binary's package moved with the crate split.
    if [ -f "$wt/chess-core/cli/Cargo.toml" ]; then pkg=(-p che-cli); fi
    (cd "$wt" && "${nice_cmd[@]}" cargo build -q --release "${pkg[@]}" --bin che) >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        return 1
    }
    cp "$CARGO_TARGET_DIR/release/che" "$work/bin"
    keep che
}

# Keeps each commit's binary as $OUT/bin/NAME.COMMIT, for profiles.
keep() {
    mkdir -p "$out/bin"
    cp "$work/bin" "$out/bin/$1.$(git -C "$wt" rev-parse --short=7 HEAD)"
}

count() {
    "${nice_cmd[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/err" || {
        cat "$work/err" >&2
        return 1
    }
    grep -o 'Collected : [0-9]*' "$work/err" | grep -o '[0-9]*$'
}

# Counts of every program with the binary in $work/bin, cached by its hash.
measure() {
    local kind="$1" hash cache n one three row=""
    hash="$(sha256sum "$work/bin" | cut -c1-16)"
    cache="$out/cache/$kind-$hash"
    if [ -f "$cache" ]; then
        cat "$cache"
        return
    fi
    cd "$work/programs"
    for n in $programs; do
        if [ "$kind" = core ]; then
            one=$(count "$work/bin" "$n.asm" 1)
            three=$(count "$work/bin" "$n.asm" 3)
            row="$row $(((three - one) / 2))"
        else
            row="$row $(count "$work/bin" run "$n.che" --backend interp)"
        fi
    done
    cd - >/dev/null
    echo "$row" >"$cache"
    echo "$row"
}

header() {
    local kind="$1"
    printf '| commit | %s | sum | change |\n' "$(echo $programs | sed 's/ / | /g')"
    printf '|---|%s---:|---:|\n' "$(for _ in $programs; do printf -- '---:|'; done)"
    [ -f "$out/$kind.csv" ] || echo "commit,date,subject,$(echo $programs | tr ' ' ','),binary" >"$out/$kind.csv"
}

prev_sum=""
row_out() {
    local kind="$1" rev="$2" counts="$3" sum=0 c change="" short date subject
    for c in $counts; do sum=$((sum + c)); done
    if [ -n "$prev_sum" ]; then
        change=$(awk -v a="$prev_sum" -v b="$sum" 'BEGIN { printf "%+.2f %%", (b - a) * 100 / a }')
    fi
    prev_sum=$sum
    short="$(git -C "$repo" rev-parse --short=7 "$rev")"
    date="$(git -C "$repo" log -1 --format=%cs "$rev")"
    subject="$(git -C "$repo" log -1 --format=%s "$rev" | cut -c1-70 | tr ',|' ';/')"
    printf '| %s | %s | %s | %s |\n' "$short" "$(echo $counts | sed 's/ / | /g')" "$sum" "$change"
    echo "$short,$date,$subject,$(echo $counts | tr ' ' ','),$(sha256sum "$work/bin" | cut -c1-16)" >>"$out/$kind.csv"
}

run_commits() {
    local kind="$1" last="$2" rev counts
    shift 2
    copy_programs "$last"
    header "$kind"
    for rev in "$@"; do
        checkout "$rev"
        if [ "$kind" = core ]; then built=build_time_asm; else built=build_che; fi
        if ! "$built" 2>"$work/build.err"; then
            # A commit that does not build (say, a merge fixed by the next
            # commit) gets a row saying so; the next row compares with the
            # last one that built.
            printf '| %s | does not build |\n' "$(git -C "$repo" rev-parse --short=7 "$rev")"
            continue
        fi
        counts="$(measure "$kind")"
        row_out "$kind" "$rev" "$counts"
    done
}

case "$mode" in
core)
    range="${1:?core needs a range A..B}"
    shift
    [ $# -gt 0 ] || set -- cvm chess-core Cargo.toml Cargo.lock
    first="${range%%..*}"
    last="${range##*..}"
    mapfile -t revs < <(
        git -C "$repo" rev-parse "$first"
        git -C "$repo" rev-list --reverse --first-parent "$range" -- "$@"
    )
    run_commits core "$last" "${revs[@]}"
    ;;
whole)
    [ $# -gt 0 ] || { echo "whole needs commits" >&2; exit 2; }
    run_commits whole "${@: -1}" "$@"
    ;;
whole-range)
    range="${1:?whole-range needs a range A..B and a step}"
    step="${2:?whole-range needs a step}"
    first="${range%%..*}"
    last="${range##*..}"
    mapfile -t all < <(git -C "$repo" rev-list --reverse --first-parent "$range")
    revs=("$(git -C "$repo" rev-parse "$first")")
    for ((i = step - 1; i < ${#all[@]} - 1; i += step)); do revs+=("${all[$i]}"); done
    revs+=("$(git -C "$repo" rev-parse "$last")")
    run_commits whole "$last" "${revs[@]}"
    ;;
*)
    echo "unknown mode $mode (core, whole, whole-range)" >&2
    exit 2
    ;;
esac
